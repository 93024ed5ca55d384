"""Sentence boundaries of a doc: its own (parser, senter, gold) or, without them, a punctuation rule."""
from typing import List

from spacy.tokens import Doc

SENTENCE_FINAL = {".", "!", "?"}


def sentence_lengths(doc: Doc) -> List[int]:
    """Token counts of the doc's sentences, in order (they sum to len(doc))."""
    if len(doc) == 0:
        return []
    if doc.has_annotation("SENT_START"):
        return [len(sent) for sent in doc.sents]
    lengths, start = [], 0
    for token in doc[:-1]:  # a sentence ends after '.', '!', '?' or a line break, with the white space after it
        if (token.text in SENTENCE_FINAL or "\n" in token.text) and not doc[token.i + 1].is_space:
            lengths.append(token.i + 1 - start)
            start = token.i + 1
    if start < len(doc):
        lengths.append(len(doc) - start)
    return lengths
