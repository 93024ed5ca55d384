"""Switching the shipped pipeline's grammar off for an ablation, and back."""
import pytest

import spacy_entmem
import spacy_entmem.linguistics.syntax as syntax
from spacy_entmem.evaluation.grammar_variants import GRAMMAR_RULES, grammar_variant

TEXT = "The pilot thanked the mechanic and paid him."


@pytest.fixture(scope="module")
def nlp():
    return spacy_entmem.load_default()


def _clusters(doc):
    return [[span.text for span in group] for group in doc._.coref_clusters]


def test_the_variant_switches_the_grammar_off_and_restores_it(nlp):
    memory = nlp.get_pipe("entity_memory")
    before = {rule: memory.cfg[rule] for rule in GRAMMAR_RULES}
    assert all(before.values())  # shipped on
    place_or_time = syntax.place_or_time
    with grammar_variant(nlp, rules_off=GRAMMAR_RULES, things=False, parser=False):
        assert not any(memory.cfg[rule] for rule in GRAMMAR_RULES)
        assert "parser" not in nlp.pipe_names and syntax.place_or_time is not place_or_time
        assert not nlp(TEXT).has_annotation("DEP")
    assert {rule: memory.cfg[rule] for rule in GRAMMAR_RULES} == before
    assert "parser" in nlp.pipe_names and syntax.place_or_time is place_or_time


def test_binding_keeps_him_out_of_the_understood_subjects_cluster(nlp):
    with grammar_variant(nlp):
        assert not any("The pilot" in c and "him" in c for c in _clusters(nlp(TEXT)))


def test_an_unknown_rule_is_refused(nlp):
    with pytest.raises(ValueError, match="unknown grammar rule"):
        with grammar_variant(nlp, rules_off=["no_such_rule"]):
            pass


def test_principles_can_be_read_one_at_a_time(nlp):
    from spacy_entmem.linguistics.syntax import forbidden_antecedents, reflexive_binder

    doc = nlp("The pilot thanked the mechanic and paid him. Tom saw himself.")
    him, himself = [t.i for t in doc if t.lower_ == "him"][0], [t.i for t in doc if t.lower_ == "himself"][0]
    assert forbidden_antecedents(doc, him, him + 1) and reflexive_binder(doc, himself, himself + 1) >= 0
    with grammar_variant(nlp, principles=["A"]):
        assert forbidden_antecedents(doc, him, him + 1) == [] and reflexive_binder(doc, himself, himself + 1) >= 0
    with grammar_variant(nlp, principles=["B"]):
        assert forbidden_antecedents(doc, him, him + 1) and reflexive_binder(doc, himself, himself + 1) < 0
    with pytest.raises(ValueError, match="unknown binding principle"):
        with grammar_variant(nlp, principles=["D"]):
            pass


def test_switches_are_set_inside_and_restored_after(nlp):
    from spacy_entmem.linguistics.switches import active

    memory, finder = nlp.get_pipe("entity_memory"), nlp.get_pipe("span_finder")
    assert memory.grammar_switches == finder.grammar_switches == active()  # shipped: all on
    with grammar_variant(nlp, switches={"datives": False, "addressees": False}, principles=["A", "B"]):
        for switches in (memory.grammar_switches, finder.grammar_switches, active()):
            assert (switches.datives, switches.addressees, switches.telling) == (False, False, True)
            assert switches.principles == ("A", "B")
    assert memory.grammar_switches == finder.grammar_switches == active()
    assert memory.cfg["grammar_switches"] == {}
    with pytest.raises(ValueError, match="unknown grammar switch"):
        with grammar_variant(nlp, switches={"no_such_switch": False}):
            pass
