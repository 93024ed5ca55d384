"""Binding constraints read off constructed dependency parses (no parser runs: heads and labels are given)."""
import pytest
import spacy
from spacy.tokens import Doc

from spacy_entmem.linguistics.switches import switched_off
from spacy_entmem.linguistics import syntax
from spacy_entmem.linguistics.syntax import (
    MAX_FORBIDDEN, NO_TOKEN, PLACE, TIME, NOT_A_THING, binding_columns, forbidden_antecedents, no_binding,
    place_or_time, reflexive_binder, span_root)

VOCAB = spacy.blank("en").vocab


def parsed(words, heads, deps, pos=None):
    """A Doc with the given absolute heads and labels (and coarse tags, default VERB for ROOT / conj / xcomp
    heads of clauses, NOUN otherwise)."""
    pos = pos or ["VERB" if dep in ("ROOT", "conj", "xcomp", "relcl", "ccomp", "advcl", "pcomp") else "NOUN"
                  for dep in deps]
    return Doc(VOCAB, words=words, heads=heads, deps=deps, pos=pos)


def texts(doc, indices):
    return [doc[i].text for i in indices]


def test_principle_b_reaches_the_understood_subject_of_a_coordinated_verb():
    # The pilot thanked the mechanic and paid him .
    doc = parsed("The pilot thanked the mechanic and paid him .".split(),
                 [1, 2, 2, 4, 2, 2, 2, 6, 2], ["det", "nsubj", "ROOT", "det", "dobj", "cc", "conj", "dobj", "punct"])
    assert texts(doc, forbidden_antecedents(doc, 7, 8)) == ["pilot"]


def test_a_bracketed_clause_shares_no_subject_even_parsed_as_a_conjunct():
    # I spurred my horse ( sent me from home ) .   "sent" misparsed as a conjunct of "spurred"
    words = "I spurred my horse ( sent me from home ) .".split()
    heads = [1, 1, 3, 1, 5, 1, 5, 5, 7, 5, 1]
    deps = ["nsubj", "ROOT", "poss", "dobj", "punct", "conj", "dobj", "prep", "pobj", "punct", "punct"]
    doc = parsed(words, heads, deps)
    assert texts(doc, forbidden_antecedents(doc, 6, 7)) == ["home"]  # "me" may be the narrator: no shared subject
    with switched_off("brackets"):  # the ablation's switch
        assert texts(doc, forbidden_antecedents(doc, 6, 7)) == ["home", "I"]
    unbracketed = parsed("I spurred my horse and sent me home .".split(), [1, 1, 3, 1, 1, 1, 5, 5, 1],
                         ["nsubj", "ROOT", "poss", "dobj", "cc", "conj", "dobj", "advmod", "punct"])
    assert texts(unbracketed, forbidden_antecedents(unbracketed, 6, 7)) == ["I"]


def test_principle_b_object_control_rules_out_the_controller_not_the_subject():
    # Mary asked John to help her .
    doc = parsed("Mary asked John to help her .".split(), [1, 1, 1, 4, 1, 4, 1],
                 ["nsubj", "ROOT", "dobj", "aux", "xcomp", "dobj", "punct"])
    assert texts(doc, forbidden_antecedents(doc, 5, 6)) == ["John"]


def test_principle_b_subject_control_and_co_arguments():
    # John wanted to help him . / he gave him a ticket
    doc = parsed("John wanted to help him .".split(), [1, 1, 3, 1, 3, 1], ["nsubj", "ROOT", "aux", "xcomp", "dobj", "punct"])
    assert texts(doc, forbidden_antecedents(doc, 4, 5)) == ["John"]
    doc = parsed("he gave him a ticket".split(), [1, 1, 1, 4, 1], ["nsubj", "ROOT", "dative", "det", "dobj"])
    assert "he" in texts(doc, forbidden_antecedents(doc, 2, 3))


def test_an_objective_subject_of_a_small_clause_is_the_main_verbs_co_argument():
    # The gardener let her use the shed .  ("her" parsed as the subject of "use", a ccomp of "let")
    words = "The gardener let her use the shed .".split()
    heads, deps = [1, 2, 2, 4, 2, 6, 4, 2], ["det", "nsubj", "ROOT", "nsubj", "ccomp", "det", "dobj", "punct"]
    doc = parsed(words, heads, deps)
    assert syntax.small_clause_matrix(doc[3]).text == "let"
    assert "gardener" in texts(doc, forbidden_antecedents(doc, 3, 4))
    with switched_off("small_clause_subjects"):  # the ablation's switch: the old reading, a domain of its own
        assert "gardener" not in texts(doc, forbidden_antecedents(doc, 3, 4))
    # a finite clause keeps its own domain: The gardener said that she used the shed .
    finite = Doc(VOCAB, words="The gardener said that she used the shed .".split(), heads=[1, 2, 2, 5, 5, 2, 7, 5, 2],
                 deps=["det", "nsubj", "ROOT", "mark", "nsubj", "ccomp", "det", "dobj", "punct"],
                 pos=["DET", "NOUN", "VERB", "SCONJ", "PRON", "VERB", "DET", "NOUN", "PUNCT"],
                 tags=["DT", "NN", "VBD", "IN", "PRP", "VBD", "DT", "NN", "."])
    assert syntax.small_clause_matrix(finite[4]) is None and "gardener" not in texts(finite, forbidden_antecedents(finite, 4, 5))


def test_prepositions_of_place_and_possessors_are_left_alone():
    # John saw a snake near him . / John loves his mother
    doc = parsed("John saw a snake near him .".split(), [1, 1, 3, 1, 3, 4, 1],
                 ["nsubj", "ROOT", "det", "dobj", "prep", "pobj", "punct"])
    assert forbidden_antecedents(doc, 5, 6) == []
    doc = parsed("John loves his mother".split(), [1, 1, 3, 1], ["nsubj", "ROOT", "poss", "dobj"])
    assert forbidden_antecedents(doc, 2, 3) == []


def test_an_object_pronoun_parsed_as_the_possessor_of_an_articled_noun_is_read_as_a_dative():
    # She sent her the letter . (the parser made "her" the possessor of "letter")
    doc = parsed("She sent her the letter .".split(), [1, 1, 4, 4, 1, 1],
                 ["nsubj", "ROOT", "poss", "det", "dobj", "punct"])
    assert "She" in texts(doc, forbidden_antecedents(doc, 2, 3))
    # She sent her letter . (no article: a possessor, bound by nothing)
    doc = parsed("She sent her letter .".split(), [1, 1, 3, 1, 1], ["nsubj", "ROOT", "poss", "dobj", "punct"])
    assert forbidden_antecedents(doc, 2, 3) == []
    # the repair off (an ablation): the misparse stands
    doc = parsed("She sent her the letter .".split(), [1, 1, 4, 4, 1, 1],
                 ["nsubj", "ROOT", "poss", "det", "dobj", "punct"])
    with switched_off("datives"):
        assert forbidden_antecedents(doc, 2, 3) == []


def test_the_reporter_of_a_reported_they_is_the_reporting_verbs_subject():
    # The gardener said that they would come .
    doc = parsed("The gardener said that they would come .".split(), [1, 2, 2, 6, 6, 6, 2, 2],
                 ["det", "nsubj", "ROOT", "mark", "nsubj", "aux", "ccomp", "punct"])
    assert syntax.reporting_subject(doc, 4, 5) == 1
    # They said that the gardener would come . (a "they" that reports) / the gardener's own span
    doc = parsed("They said that the gardener would come .".split(), [1, 1, 6, 4, 6, 6, 1, 1],
                 ["nsubj", "ROOT", "mark", "det", "nsubj", "aux", "ccomp", "punct"])
    assert syntax.reporting_subject(doc, 0, 1) == NO_TOKEN and syntax.reporting_subject(doc, 3, 5) == NO_TOKEN
    # The gardener came because they were free . (an adverbial clause reports nothing)
    doc = parsed("The gardener came because they were free .".split(), [1, 2, 2, 5, 5, 2, 5, 2],
                 ["det", "nsubj", "ROOT", "mark", "nsubj", "advcl", "acomp", "punct"])
    assert syntax.reporting_subject(doc, 4, 5) == NO_TOKEN


def test_a_parse_with_fine_tags_only_reads_verbs_by_their_tags():
    # John talked to him . / She showed her the garden . : a tagger without an attribute ruler sets no POS
    doc = Doc(VOCAB, words="John talked to him .".split(), heads=[1, 1, 1, 2, 1],
              deps=["nsubj", "ROOT", "prep", "pobj", "punct"], tags=["NNP", "VBD", "IN", "PRP", "."])
    assert texts(doc, forbidden_antecedents(doc, 3, 4)) == ["John"]
    doc = Doc(VOCAB, words="She showed her the garden .".split(), heads=[1, 1, 4, 4, 1, 1],
              deps=["nsubj", "ROOT", "poss", "det", "dobj", "punct"], tags=["PRP", "VBD", "PRP$", "DT", "NN", "."])
    assert "She" in texts(doc, forbidden_antecedents(doc, 2, 3))


def test_two_subjects_of_one_verb_are_a_misparse_and_bind_nothing():
    # "I I can just go": a disfluency parsed as two subjects
    doc = parsed("I I saw him".split(), [2, 2, 2, 2], ["nsubj", "nsubj", "ROOT", "dobj"])
    assert forbidden_antecedents(doc, 3, 4) == []


def test_principle_c_a_name_below_a_pronoun_subject_but_not_below_a_coordinated_clause():
    # He said that John left . / He left and John stayed .
    doc = parsed("He said that John left .".split(), [1, 1, 4, 4, 1, 1],
                 ["nsubj", "ROOT", "mark", "nsubj", "ccomp", "punct"])
    assert texts(doc, forbidden_antecedents(doc, 3, 4)) == ["He"]
    doc = parsed("He left and John stayed .".split(), [1, 1, 1, 4, 1, 1], ["nsubj", "ROOT", "cc", "nsubj", "conj", "punct"])
    assert forbidden_antecedents(doc, 3, 4) == []


def test_principle_c_spares_predicates_and_the_expletive_it():
    # He is a doctor . / it is clear that John left
    doc = parsed("He is a doctor .".split(), [1, 1, 3, 1, 1], ["nsubj", "ROOT", "det", "attr", "punct"])
    assert forbidden_antecedents(doc, 2, 4) == []
    doc = parsed("it is clear that John left".split(), [1, 1, 1, 5, 5, 1], ["nsubj", "ROOT", "acomp", "mark", "nsubj", "ccomp"])
    assert forbidden_antecedents(doc, 4, 5) == []


def test_i_within_i_a_noun_phrase_is_not_its_possessor():
    doc = parsed("John called his mother".split(), [1, 1, 3, 1], ["nsubj", "ROOT", "poss", "dobj"])
    assert span_root(doc, 2, 4) == 3
    assert texts(doc, forbidden_antecedents(doc, 2, 4)) == ["his"]


def test_principle_a_a_reflexive_is_bound_by_its_local_subject():
    # Mary said that Tom hurt himself .
    doc = parsed("Mary said that Tom hurt himself .".split(), [1, 1, 4, 4, 1, 4, 1],
                 ["nsubj", "ROOT", "mark", "nsubj", "ccomp", "dobj", "punct"])
    assert reflexive_binder(doc, 5, 6) == 3
    assert reflexive_binder(doc, 3, 4) == NO_TOKEN  # not a reflexive
    assert forbidden_antecedents(doc, 5, 6) == []  # a reflexive is meant to be bound


def test_columns_of_a_doc_and_of_a_doc_without_a_parse():
    doc = parsed("The pilot thanked the mechanic and paid him .".split(),
                 [1, 2, 2, 4, 2, 2, 2, 6, 2], ["det", "nsubj", "ROOT", "det", "dobj", "cc", "conj", "dobj", "punct"])
    rows = binding_columns(doc, [(0, 2), (7, 8)])
    assert rows[0] == (1, NO_TOKEN) + (NO_TOKEN,) * MAX_FORBIDDEN
    assert rows[1] == (7, NO_TOKEN, 1) + (NO_TOKEN,) * (MAX_FORBIDDEN - 1)
    plain = spacy.blank("en")("The pilot paid him .")
    assert forbidden_antecedents(plain, 3, 4) == [] and reflexive_binder(plain, 3, 4) == NO_TOKEN
    assert no_binding([(0, 2), (3, 4)]) == [(1, NO_TOKEN) + (NO_TOKEN,) * MAX_FORBIDDEN,
                                             (3, NO_TOKEN) + (NO_TOKEN,) * MAX_FORBIDDEN]


BINDING_PARSES = [  # (words, heads, deps): two sentences each, so that one tree's pronouns meet the other's names
    ("The pilot thanked the mechanic and paid him . John called his mother".split(),
     [1, 2, 2, 4, 2, 2, 2, 6, 2, 10, 10, 12, 10],
     ["det", "nsubj", "ROOT", "det", "dobj", "cc", "conj", "dobj", "punct", "nsubj", "ROOT", "poss", "dobj"]),
    ("He said that John left . Mary said that Tom hurt himself .".split(),
     [1, 1, 4, 4, 1, 1, 7, 7, 10, 10, 7, 10, 7],
     ["nsubj", "ROOT", "mark", "nsubj", "ccomp", "punct", "nsubj", "ROOT", "mark", "nsubj", "ccomp", "dobj", "punct"]),
]


@pytest.mark.parametrize("words,heads,deps", BINDING_PARSES)
def test_binding_columns_read_as_arrays_agree_with_the_tree_walk_on_every_span(words, heads, deps):
    doc = parsed(words, heads, deps)
    spans = [(start, end) for start in range(len(doc)) for end in range(start + 1, min(start + 6, len(doc)) + 1)]
    rows = binding_columns(doc, spans)
    for (start, end), row in zip(spans, rows):
        forbidden = forbidden_antecedents(doc, start, end)
        assert row == (span_root(doc, start, end), reflexive_binder(doc, start, end)) + tuple(forbidden) + (
            NO_TOKEN,) * (MAX_FORBIDDEN - len(forbidden)), (start, end)
    assert any(row[2] != NO_TOKEN for row in rows)  # (the parses do rule something out)


def test_token_heads_roots_and_trees_without_token_objects():
    words, heads, deps = BINDING_PARSES[1]
    doc = parsed(words, heads, deps)
    assert syntax.token_heads(doc) == heads
    assert syntax.root_of(heads, 2, 5) == span_root(doc, 2, 5) == 4
    assert syntax.tree_ids(heads) == [1] * 6 + [7] * 7
    assert syntax.tree_ids([1, 0]) == [0, 0]  # heads that never settle into a tree: one tree
    assert syntax.token_heads(spacy.blank("en")("")) == []


@pytest.mark.parametrize("text,expected", [("Warsaw", True), ("yesterday", True), ("1895", True), ("mechanic", False),
                                           ("12", False)])
def test_only_capitalised_words_time_words_and_years_may_be_places_or_times(text, expected):
    assert syntax.may_be_place_or_time(text) == expected


@pytest.mark.parametrize("words,heads,deps,span,expected", [
    ("She was born in Warsaw".split(), [2, 2, 2, 2, 3], ["nsubjpass", "auxpass", "ROOT", "prep", "pobj"], (4, 5), PLACE),
    ("She gave it to Paris".split(), [1, 1, 1, 1, 3], ["nsubj", "ROOT", "dobj", "dative", "pobj"], (4, 5), NOT_A_THING),
    ("He left yesterday".split(), [1, 1, 1], ["nsubj", "ROOT", "npadvmod"], (2, 3), TIME),
    ("They married in 1895".split(), [1, 1, 1, 2], ["nsubj", "ROOT", "prep", "pobj"], (3, 4), TIME),
    ("He met Pierre in college".split(), [1, 1, 1, 1, 3], ["nsubj", "ROOT", "dobj", "prep", "pobj"], (2, 3), NOT_A_THING),
])
def test_places_and_times(words, heads, deps, span, expected):
    assert place_or_time(parsed(words, heads, deps), *span) == expected


def test_grammatical_roles_of_subjects_objects_possessors_obliques_and_conjuncts():
    # John and Bill gave his sister a book with Mary .
    doc = parsed("John and Bill gave his sister a book with Mary .".split(),
                 [3, 0, 0, 3, 5, 3, 7, 3, 3, 8, 3],
                 ["nsubj", "cc", "conj", "ROOT", "poss", "dative", "det", "dobj", "prep", "pobj", "punct"])
    roles = [syntax.grammatical_role(doc[i]) for i in (0, 2, 4, 5, 7, 9, 3)]
    assert roles == [syntax.SUBJECT, syntax.SUBJECT, syntax.POSSESSOR, syntax.OBJECT, syntax.OBJECT,
                     syntax.OBLIQUE, syntax.OTHER_ROLE]


def test_a_misread_dative_has_the_object_role():
    # She showed her the garden . (the parser: "her" the possessor of "garden")
    doc = parsed("She showed her the garden .".split(), [1, 1, 4, 4, 1, 1],
                 ["nsubj", "ROOT", "poss", "det", "dobj", "punct"])
    assert syntax.grammatical_role(doc[2]) == syntax.OBJECT


def test_role_and_sentence_columns_read_the_parse_and_are_empty_without_one():
    doc = parsed("Tom left . He slept .".split(), [1, 1, 1, 4, 4, 4],
                 ["nsubj", "ROOT", "punct", "nsubj", "ROOT", "punct"])
    assert syntax.role_and_sentence_columns(doc, [0, 3, NO_TOKEN]) == [
        (syntax.SUBJECT, 0), (syntax.SUBJECT, 1), (syntax.NO_ROLE, syntax.NO_SENTENCE)]
    bare = Doc(VOCAB, words="Tom left . He slept .".split())
    assert syntax.role_and_sentence_columns(bare, [0, 3]) == [(syntax.NO_ROLE, syntax.NO_SENTENCE)] * 2


def _tagged(words, heads, deps, tags):
    pos = {"NNP": "PROPN", "VBD": "VERB", "PRP$": "PRON", "NN": "NOUN", "DT": "DET", ".": "PUNCT", "JJ": "ADJ",
           "PRP": "PRON"}
    return Doc(VOCAB, words=words, heads=heads, deps=deps, tags=tags, pos=[pos[tag] for tag in tags])


def test_an_objective_her_parsed_as_a_possessor_of_a_small_clauses_verb_is_its_subject():
    # Mary watched her paint the fence .  ("paint" a noun with "her" its possessor and "fence" its apposition)
    doc = _tagged("Mary watched her paint the fence .".split(), [1, 1, 3, 1, 5, 3, 1],
                  ["nsubj", "ROOT", "poss", "dobj", "det", "appos", "punct"], "NNP VBD PRP$ NN DT NN .".split())
    assert syntax.misread_small_clause(doc[2]).text == "watched" and "Mary" in texts(doc, forbidden_antecedents(doc, 2, 3))
    with switched_off("small_clause_subjects"):
        assert forbidden_antecedents(doc, 2, 3) == []
    # Anna made her smile .  ("smile" a noun, the clausal complement of "made")
    doc = _tagged("Anna made her smile .".split(), [1, 1, 3, 1, 1], ["nsubj", "ROOT", "poss", "ccomp", "punct"],
                  "NNP VBD PRP$ NN .".split())
    assert texts(doc, forbidden_antecedents(doc, 2, 3)) == ["Anna"]
    # The doctor saw her paint the fence .  ("her paint" the subject of a clause "the fence")
    doc = _tagged("The doctor saw her paint the fence .".split(), [1, 2, 2, 4, 6, 6, 2, 2],
                  ["det", "nsubj", "ROOT", "poss", "nsubj", "det", "ccomp", "punct"],
                  "DT NN VBD PRP$ NN DT NN .".split())
    assert syntax.misread_small_clause(doc[3]).text == "saw" and "doctor" in texts(doc, forbidden_antecedents(doc, 3, 4))
    # Lee spotted her climb the wall .  ("climb" and "wall" two objects of "spotted")
    doc = _tagged("Lee spotted her climb the wall .".split(), [1, 1, 3, 1, 5, 1, 1],
                  ["nsubj", "ROOT", "poss", "dobj", "det", "dobj", "punct"], "NNP VBD PRP$ NN DT NN .".split())
    assert "Lee" in texts(doc, forbidden_antecedents(doc, 2, 3))
    # Lee deemed her trustworthy .  (an adjective with a possessor)
    doc = _tagged("Lee deemed her trustworthy .".split(), [1, 1, 3, 1, 1], ["nsubj", "ROOT", "poss", "dobj", "punct"],
                  "NNP VBD PRP$ JJ .".split())
    assert "Lee" in texts(doc, forbidden_antecedents(doc, 2, 3))


def test_a_possessive_her_stays_a_possessor():
    for words, heads, deps, tags in (
            ("Mary watched her dog .", [1, 1, 3, 1, 1], ["nsubj", "ROOT", "poss", "dobj", "punct"], "NNP VBD PRP$ NN ."),
            ("Mary made her own bed .", [1, 1, 4, 4, 1, 1], ["nsubj", "ROOT", "poss", "amod", "dobj", "punct"],
             "NNP VBD PRP$ JJ NN ."),
            ("She made her own .", [1, 1, 3, 1, 1], ["nsubj", "ROOT", "poss", "dobj", "punct"], "PRP VBD PRP$ JJ ."),
            ("She found her power inadequate .", [1, 1, 3, 4, 1, 1], ["nsubj", "ROOT", "poss", "nsubj", "ccomp", "punct"],
             "PRP VBD PRP$ NN JJ .")):
        doc = _tagged(words.split(), heads, deps, tags.split())
        assert syntax.misread_small_clause(doc[2]) is None and forbidden_antecedents(doc, 2, 3) == [], words


def test_the_parse_read_as_lists_gives_the_c_commanding_pronouns_and_a_shared_cache():
    # He said that the pilot left .
    doc = parsed("He said that the pilot left .".split(), [1, 1, 5, 4, 5, 1, 1],
                 ["nsubj", "ROOT", "mark", "det", "nsubj", "ccomp", "punct"])
    parse = syntax.parse_arrays(doc)
    assert parse.heads == [1, 1, 5, 4, 5, 1, 1] and parse.children[1] == [0, 5, 6] and parse.lower[0] == "he"
    assert syntax.c_commanding_pronouns(parse, 4) == [0]
    cache = {}
    assert texts(doc, syntax.nominal_forbidden(parse, 3, 5, 4, cache)) == ["He"] and cache == {4: [0]}
    assert syntax.nominal_forbidden(parse, 0, 5, 4, cache) == []  # (the pronoun inside the span is no antecedent)
    from spacy_entmem.linguistics.switches import DEFAULT_SWITCHES, using

    with using(DEFAULT_SWITCHES.with_changes(principles=("B",))):
        assert syntax.nominal_forbidden(parse, 3, 5, 4) == []
