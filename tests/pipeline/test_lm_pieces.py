import numpy
import pytest
import spacy
from spacy.tokens import Span

from spacy_entmem.nn.lm.base_lm import load_base_lm
from spacy_entmem.pipeline.lm_pieces import NO_TOKEN, piece_document, token_entities, token_log_probs


@pytest.fixture
def nlp():
    return spacy.blank("en")


def test_the_innermost_mention_gives_a_token_its_entity(nlp):
    doc = nlp("Her mother met Tom .")
    doc.spans["coref_clusters_1"] = [Span(doc, 3, 4)]          # Tom: first mentioned last
    doc.spans["coref_clusters_2"] = [Span(doc, 0, 2)]          # "Her mother"
    doc.spans["coref_clusters_3"] = [Span(doc, 0, 1)]          # "Her" inside it
    # numbered by first mention ("Her" before "Her mother": same start, shorter first), Tom last
    assert token_entities(doc).tolist() == [1, 2, 0, 3, 0]
    doc.spans["coref_clusters_1"] = [Span(doc, 3, 4), Span(doc, 3, 4)]  # a repeated span is one mention
    assert token_entities(doc, min_mentions=2).tolist() == [0, 0, 0, 0, 0]
    doc.spans["coref_clusters_3"] = [Span(doc, 0, 1), Span(doc, 3, 4)]
    assert token_entities(doc, min_mentions=2).tolist() == [1, 0, 0, 1, 0]


def test_pieces_are_attributed_to_the_token_of_their_first_character(nlp, tiny_lm_dir):
    _, tokenizer = load_base_lm(tiny_lm_dir)
    doc = nlp("Marie Curie  moved to Paris.\nShe met Pierre.")
    doc.spans["coref_clusters_1"] = [Span(doc, 0, 2), Span(doc, 8, 9)]
    pieces = piece_document(doc, tokenizer)
    decoded = tokenizer.convert_ids_to_tokens(pieces.ids.tolist())
    assert len(pieces.ids) == len(pieces.tokens) == len(pieces.entities)
    for piece, token, (start, end) in zip(decoded, pieces.tokens,
                                          tokenizer(doc.text, add_special_tokens=False,
                                                    return_offsets_mapping=True)["offset_mapping"]):
        text = doc.text[start:end]
        if text.strip():
            assert doc[token].idx <= start + len(text) - len(text.lstrip()) < doc[token].idx + len(doc[token])
        else:  # white space only: the next token's
            assert doc[token].idx >= end
    assert set(pieces.entities[numpy.isin(pieces.tokens, [0, 1, 8])].tolist()) == {1}
    assert set(pieces.entities[~numpy.isin(pieces.tokens, [0, 1, 8])].tolist()) == {0}
    assert pieces.n_words == sum(not t.is_space for t in doc)


def test_a_token_gets_the_sum_of_its_pieces(nlp, tiny_lm_dir):
    _, tokenizer = load_base_lm(tiny_lm_dir)
    doc = nlp("Radioactivity  was studied.")
    pieces = piece_document(doc, tokenizer)
    logp = -numpy.arange(1, len(pieces.ids) + 1, dtype=float)
    per_token = token_log_probs(pieces, logp, len(doc))
    assert per_token[0] == pytest.approx(logp[pieces.tokens == 0].sum())
    assert (pieces.tokens == 0).sum() > 1  # a word the tiny tokenizer splits
    assert per_token[1] is None  # the extra space token
    assert sum(v for v in per_token if v is not None) == pytest.approx(logp.sum())
    trailing = piece_document(nlp("Radioactivity was studied.\n\n"), tokenizer)
    assert trailing.tokens[-1] == NO_TOKEN  # white space at the end counts for no token


def test_an_empty_doc_has_no_pieces(nlp, tiny_lm_dir):
    _, tokenizer = load_base_lm(tiny_lm_dir)
    pieces = piece_document(nlp(""), tokenizer)
    assert len(pieces.ids) == 0 and pieces.n_words == 0
