"""Binding without a parser (Chomsky's Principle B): an object pronoun cannot refer to the subject of its own
clause. "Cobb allegedly choked her", "Denise lies to her", "Angus decides to go with him": "her" is not Cobb,
not Denise, "him" not Angus (that reading takes "herself" / "himself").

The clause is read off the tagger's tags: the tokens between the subject and the pronoun are one verb group
(verbs, modals, adverbs, particles, "to", adjectives, prepositions) with no noun phrase, punctuation, line break
or clause opener in it; it starts right after the subject (a noun, name or pronoun) with a verb, a modal or an
adverb. Prepositions of place are left out ("Mary looked around her" may be Mary), and so is everything a tagger
cannot separate from a clause boundary ("that", "because", "when", …). A doc without tags binds nothing.
"""
from typing import List

from spacy.strings import hash_string

OBJECT_PRONOUNS = {"him", "her", "them"}
# the longest verb group looked at (tokens between the subject and the pronoun)
MAX_VERB_GROUP = 12
PLACE_PREPOSITIONS = {
    "behind", "around", "round", "near", "beside", "besides", "beneath", "below", "above", "under", "over",
    "across", "toward", "towards", "about", "upon", "on", "in", "inside", "outside", "within", "among", "between",
    "like", "unlike", "except", "than"}
CLAUSE_OPENERS = {"that", "because", "when", "while", "after", "before", "if", "as", "since", "until", "although",
                  "though", "whether", "so"}


def _tag_ids(*tags: str) -> frozenset:
    return frozenset(hash_string(tag) for tag in tags)


VERBS = _tag_ids("VB", "VBD", "VBG", "VBN", "VBP", "VBZ")
GROUP_OPENERS = VERBS | _tag_ids("MD", "RB")  # what may follow the subject
GROUP_WORDS = GROUP_OPENERS | _tag_ids("RP", "TO", "JJ")
SUBJECT_ENDS = _tag_ids("NN", "NNS", "NNP", "NNPS", "PRP")  # what a subject mention ends with
PREPOSITION = hash_string("IN")
PERSONAL_PRONOUN = hash_string("PRP")


def _in_verb_group(word: str, tag: int) -> bool:
    if "\n" in word:
        return False
    if tag == PREPOSITION:
        return word not in PLACE_PREPOSITIONS and word not in CLAUSE_OPENERS
    return tag in GROUP_WORDS


def bound_subject_end(lower: List[str], tags: List[int], i: int) -> int:
    """For the token i (lowercased words and tag ids of the doc, as ``doc.to_array([TAG])``): if it is an object
    pronoun (him / her / them tagged PRP) after a verb group, the index where that group starts — the end of the
    subject mention it cannot refer to; else -1."""
    if lower[i] not in OBJECT_PRONOUNS or tags[i] != PERSONAL_PRONOUN:
        return -1
    start = i
    while start > 0 and i - start < MAX_VERB_GROUP and _in_verb_group(lower[start - 1], tags[start - 1]):
        start -= 1
    group = tags[start:i]
    subject_before = start > 0 and tags[start - 1] in SUBJECT_ENDS
    if not (subject_before and group and group[0] in GROUP_OPENERS and any(tag in VERBS for tag in group)):
        return -1
    return start
