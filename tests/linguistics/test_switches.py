import pytest
import spacy

from spacy_entmem.linguistics.switches import (DEFAULT_SWITCHES, SWITCH_NAMES, GrammarSwitches, active,
                                               switched_off, using)


def test_defaults_are_all_on_and_round_trip_as_an_empty_table():
    assert all(getattr(DEFAULT_SWITCHES, name) for name in SWITCH_NAMES)
    assert DEFAULT_SWITCHES.to_config() == {}
    changed = GrammarSwitches.from_config({"datives": False, "principles": ["C", "A"]})
    assert changed.to_config() == {"datives": False, "principles": ["A", "C"]}
    assert GrammarSwitches.from_config(changed.to_config()) == changed


@pytest.mark.parametrize("table,message", [
    ({"no_such": False}, r"entity_memory.grammar_switches: unknown grammar switch\(es\) \['no_such'\]"),
    ({"datives": "no"}, "entity_memory.grammar_switches.datives: true or false"),
    ({"principles": ["D"]}, "principles: a list of binding principles"),
])
def test_bad_tables_are_named(table, message):
    with pytest.raises(ValueError, match=message):
        GrammarSwitches.from_config(table, "entity_memory.grammar_switches")


def test_using_is_scoped_and_restored_after_an_error():
    with pytest.raises(RuntimeError):
        with switched_off("telling"):
            assert active().telling is False and active().addressees is True
            raise RuntimeError("inside")
    assert active() == DEFAULT_SWITCHES
    with using(DEFAULT_SWITCHES.with_changes(principles=("A",))):
        assert active().principles == ("A",)
    with pytest.raises(ValueError, match="unknown grammar switch"):
        switched_off("nope")


def test_a_components_switches_are_saved_and_loaded_with_its_config(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("entmem_span_finder", config={"grammar_switches": {"clauses_cover_nothing": False}})
    nlp.initialize()
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path).get_pipe("entmem_span_finder")
    assert loaded.grammar_switches.clauses_cover_nothing is False
    assert loaded.grammar_switches.fragments_cover_nothing is True
    with pytest.raises(ValueError, match="finder.grammar_switches: unknown"):
        spacy.blank("en").add_pipe("entmem_span_finder", name="finder", config={"grammar_switches": {"x": True}})
