import pytest

from spacy_entmem.pipeline.mention_schemes import left_out, load_with_scheme, use_mention_scheme
from spacy_entmem.training.assembly import add_component, set_component_settings

from ..training.test_assembly import finder_pipeline


@pytest.fixture
def two_finders():
    """A pipeline with the default scheme's finder and a GUM finder (off), on one tok2vec."""
    nlp, other = finder_pipeline(0), finder_pipeline(0)
    other.get_pipe("span_finder").cfg["threshold"] = 0.9
    add_component(nlp, other, "span_finder", "span_finder_gum", before=None)
    nlp.disable_pipe("span_finder_gum")
    return nlp


def test_the_schemes_finder_runs_under_the_finders_name(two_finders):
    nlp = use_mention_scheme(two_finders, "gum")
    assert nlp.pipe_names == ["tok2vec", "span_finder"] and nlp.component_names == ["tok2vec", "span_finder"]
    assert nlp.get_pipe("span_finder").cfg["threshold"] == 0.9
    assert nlp.get_pipe("tok2vec").listening_components == ["span_finder"]
    assert "mention_candidates" in nlp("Alan Turing studied mathematics.").spans


def test_the_default_scheme_leaves_the_other_finders_out(two_finders):
    nlp = use_mention_scheme(two_finders, "litbank")
    assert nlp.component_names == ["tok2vec", "span_finder"]
    assert nlp.get_pipe("span_finder").cfg["threshold"] == 0.5


def test_unknown_and_missing_schemes_are_named():
    with pytest.raises(ValueError, match="unknown mention scheme 'ace'.*'gum', 'litbank'"):
        use_mention_scheme(finder_pipeline(0), "ace")
    with pytest.raises(ValueError, match="no finder for the mention scheme 'gum'.*it can use: litbank"):
        use_mention_scheme(finder_pipeline(0), "gum")


def test_a_schemes_own_memory_replaces_the_pipelines_and_others_are_left_out(two_finders):
    """Sentencizers stand in for the memories: only their names and settings matter here."""
    two_finders.add_pipe("sentencizer", name="entity_memory", config={"punct_chars": ["."]})
    two_finders.add_pipe("sentencizer", name="entity_memory_gum", config={"punct_chars": ["!"]})
    two_finders.disable_pipe("entity_memory_gum")
    gum = use_mention_scheme(two_finders, "gum")
    assert gum.pipe_names == ["tok2vec", "span_finder", "entity_memory"]
    assert gum.get_pipe("entity_memory").punct_chars == {"!"}


def test_the_default_scheme_drops_the_other_schemes_memory(two_finders):
    two_finders.add_pipe("sentencizer", name="entity_memory", config={"punct_chars": ["."]})
    two_finders.add_pipe("sentencizer", name="entity_memory_gum", config={"punct_chars": ["!"]})
    nlp = use_mention_scheme(two_finders, "litbank")
    assert nlp.component_names == ["tok2vec", "span_finder", "entity_memory"]
    assert nlp.get_pipe("entity_memory").punct_chars == {"."}


def test_the_components_a_scheme_does_not_run_are_not_loaded(two_finders, tmp_path):
    names = ["tok2vec", "span_finder", "span_finder_gum", "entity_memory"]
    assert left_out("litbank", names) == ["span_finder_gum"]
    assert left_out("gum", names) == ["span_finder"]  # the memory is shared: gum has none of its own here
    two_finders.to_disk(tmp_path / "pipe")
    set_component_settings(tmp_path / "pipe", {"span_finder_gum": {"threshold": 0.9}})  # as shipping writes it
    nlp = load_with_scheme(tmp_path / "pipe", "gum")
    assert nlp.component_names == ["tok2vec", "span_finder"] and nlp.get_pipe("span_finder").cfg["threshold"] == 0.9
    with pytest.raises(ValueError, match="unknown mention scheme 'ace'"):
        load_with_scheme(tmp_path / "pipe", "ace")
