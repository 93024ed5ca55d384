import subprocess
import sys

import numpy
import pytest
import spacy
from spacy.tokens import DocBin, SpanGroup
from spacy.training import Example

from spacy_entmem import main_mention
from spacy_entmem.pipeline.memory_log import ACTIONS

from ..conftest import TINY_MODEL, tiny_pipeline, train_tiny

TEXTS = [
    "Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie.",
    "He said that his brother had seen her at the station.",
]


def test_factory_is_registered_by_entry_point():
    code = "import spacy; nlp = spacy.blank('en'); nlp.add_pipe('entity_memory'); print(nlp.pipe_names)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "entity_memory" in result.stdout


def test_untrained_component_says_to_train_or_load():
    nlp = spacy.blank("en")
    memory = nlp.add_pipe("entity_memory")
    with pytest.raises(ValueError, match="no trained model yet.*spacy train"):
        nlp("Hello there.")
    with pytest.raises(ValueError, match="load a trained pipeline"):
        memory.predict([nlp.make_doc("Hello there.")])


@pytest.mark.parametrize(
    "model_config,message",
    [
        ({"n_cells": 0}, "n_cells must be at least 1"),
        ({"usage_decay": 1.5}, r"usage_decay must be in \(0, 1\)"),
        ({"usage_decay": 0.0}, r"usage_decay must be in \(0, 1\)"),
        ({"hidden_width": 0}, "hidden_width must be at least 1"),
        ({"dropout": 1.0}, r"dropout must be in \[0, 1\)"),
    ],
)
def test_invalid_model_config_is_a_clear_error(model_config, message):
    nlp = spacy.blank("en")
    with pytest.raises(Exception, match=message):
        nlp.add_pipe("entity_memory", config={"model": {**TINY_MODEL, **model_config}})


@pytest.mark.parametrize(
    "config,message",
    [
        ({"entity_threshold": 2.0}, r"entity_threshold must be in \[0, 1\]"),
        ({"negative_weight": -1.0}, "negative_weight must be >= 0"),
        ({"cluster_prefix": ""}, "cluster_prefix must be a non-empty name"),
        ({"mentions_key": "coref_clusters_3"}, "would clash"),
        ({"temperature_halving_examples": 0}, "temperature_halving_examples must be >= 1"),
        ({"pruning_bound": "high"}, "pruning_bound"),
        ({"beam_width": 0}, "beam_width must be a whole number >= 1"),
        ({"max_batch_steps": 0}, "max_batch_steps must be null or a whole number >= 1"),
        ({"max_batch_steps": 2.5}, "max_batch_steps"),  # spaCy's own type check names it
    ],
)
def test_invalid_component_config_is_a_clear_error(config, message):
    with pytest.raises(Exception, match=message):
        tiny_pipeline(**config)


def test_training_reduces_the_loss(gap_validation_docs):
    _, losses = train_tiny(gap_validation_docs[:8], steps=40, learn_rate=0.01)
    assert min(losses[20:]) < 0.5 * losses[0]  # per-pair loss: noisier steps than a per-document sum


def test_initialize_without_supervision_fails():
    nlp = tiny_pipeline()
    examples = [Example.from_dict(nlp.make_doc("No gold here."), {})]
    with pytest.raises(ValueError, match="carries coreference supervision"):
        nlp.initialize(lambda: examples)


def test_annotations_follow_the_contract(trained_nlp):
    doc = trained_nlp(TEXTS[0])
    log = doc._.entity_memory_log
    n_cells = TINY_MODEL["n_cells"]
    assert log["entity"].shape == (len(doc),)
    for key in ("overwrite", "coref", "usage"):
        assert log[key].shape == (len(doc), n_cells)
    assert numpy.all((log["usage"] >= 0) & (log["usage"] <= 1))
    # o + c + new-entity mass never exceed the entity probability
    assert numpy.all(log["coref"].sum(1) + log["overwrite"].sum(1) <= log["entity"] + 1e-5)
    mentions = doc.spans["coref_mentions"]
    assert mentions.attrs["entity_memory"] == "mentions"
    tokens_in_mentions = {t for span in mentions for t in range(span.start, span.end)}
    entity_tokens = {i for i, a in enumerate(log["action"]) if a != 0}
    assert tokens_in_mentions == entity_tokens
    for group in doc._.coref_clusters:
        assert group.name.startswith("coref_clusters_")
        assert len(group) >= 2
        assert main_mention(group) in list(group)
        for span in group:
            assert span._.coref_cluster is group or span._.coref_cluster.name == group.name
    assert doc._.has_coref == bool(doc._.coref_clusters)
    for token in doc:
        assert token._.memory_action in ACTIONS
        assert (token._.memory_cell is None) == (token._.memory_action == "IGNORE")


def test_multi_token_mentions_are_whole_spans(trained_nlp):
    memory = trained_nlp.get_pipe("entity_memory")
    doc = trained_nlp.make_doc("Marie Curie met him")
    n = TINY_MODEL["n_cells"]
    log = {
        "entity": numpy.array([0.9, 0.9, 0.1, 0.9], dtype="f"),
        "overwrite": numpy.zeros((4, n), dtype="f"),
        "coref": numpy.zeros((4, n), dtype="f"),
        "usage": numpy.zeros((4, n), dtype="f"),
    }
    log["overwrite"][0, 0] = 0.8  # Marie starts an entity in cell 0
    log["coref"][1, 0] = 0.8  # Curie continues it
    log["coref"][3, 0] = 0.7  # him refers back to it
    from spacy_entmem.pipeline.memory_log import decode_actions

    log["action"], log["cell"] = decode_actions(log)
    memory.set_annotations([doc], [log])
    assert [s.text for s in doc.spans["coref_mentions"]] == ["Marie Curie", "him"]
    (cluster,) = doc._.coref_clusters
    assert [s.text for s in cluster] == ["Marie Curie", "him"]
    assert main_mention(cluster).text == "Marie Curie"
    assert doc._.coref_resolved == "Marie Curie met Marie Curie"
    assert [t._.in_coref for t in doc] == [True, True, False, True]


def test_existing_cluster_keys_are_replaced_never_mixed(trained_nlp):
    doc = trained_nlp.make_doc(TEXTS[0])
    stale = [f"coref_clusters_{i}" for i in range(1, 40)]
    for key in stale:
        doc.spans[key] = SpanGroup(doc, name=key, spans=[doc[0:1]])
    doc.spans["unrelated"] = [doc[0:2]]
    doc = trained_nlp(doc)
    predicted = {g.name for g in doc._.coref_clusters}
    cluster_keys = {k for k in doc.spans if k.startswith("coref_clusters_")}
    assert cluster_keys == predicted  # every stale group is gone
    assert len(doc.spans["unrelated"]) == 1  # other keys are left alone


def test_existing_cluster_keys_error_when_replacement_is_off(gap_validation_docs, tmp_path):
    nlp, _ = train_tiny(gap_validation_docs[:8], steps=1, replace_existing=False)
    doc = nlp.make_doc(TEXTS[0])
    doc.spans["coref_clusters_1"] = [doc[0:1]]
    with pytest.raises(ValueError, match="already has span groups.*coref_clusters_1"):
        nlp(doc)


def test_custom_prefix(gap_validation_docs):
    nlp, _ = train_tiny(gap_validation_docs[:8], steps=1, cluster_prefix="chains", mentions_key="ments")
    doc = nlp(TEXTS[0] * 3)
    assert "ments" in doc.spans
    assert all(g.name.startswith("chains_") for g in doc._.coref_clusters)


def _signature(doc):
    return (
        [(g.name, [(s.start, s.end) for s in g]) for g in doc._.coref_clusters],
        [(s.start, s.end) for s in doc.spans["coref_mentions"]],
        doc._.entity_memory_log["coref"].round(6).tolist(),
    )


def test_inference_is_deterministic(trained_nlp):
    assert _signature(trained_nlp(TEXTS[0])) == _signature(trained_nlp(TEXTS[0]))


def test_batched_equals_one_by_one(trained_nlp):
    batched = [_signature(d) for d in trained_nlp.pipe(TEXTS + [TEXTS[0] * 4], batch_size=8)]
    single = [_signature(trained_nlp(t)) for t in TEXTS + [TEXTS[0] * 4]]
    assert batched[0][:2] == single[0][:2] and batched[1][:2] == single[1][:2]
    for b, s in zip(batched, single):
        numpy.testing.assert_allclose(numpy.array(b[2]), numpy.array(s[2]), atol=1e-5)


def test_to_disk_and_load_give_identical_predictions(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert [_signature(d) for d in loaded.pipe(TEXTS)] == [_signature(d) for d in trained_nlp.pipe(TEXTS)]


def test_to_bytes_round_trip(trained_nlp):
    data = trained_nlp.to_bytes()
    fresh = spacy.blank("en")
    fresh.from_config(trained_nlp.config)
    loaded = spacy.blank("en").from_config(trained_nlp.config).from_bytes(data)
    assert _signature(loaded(TEXTS[0])) == _signature(trained_nlp(TEXTS[0]))


def test_two_processes_match_one(trained_nlp):
    one = [_signature(d) for d in trained_nlp.pipe(TEXTS * 3, n_process=1)]
    two = [_signature(d) for d in trained_nlp.pipe(TEXTS * 3, n_process=2, batch_size=2)]
    assert one == two


def test_memory_log_survives_docbin(trained_nlp):
    doc = trained_nlp(TEXTS[0])
    restored = list(DocBin(docs=[doc], store_user_data=True).get_docs(spacy.blank("en").vocab))[0]
    for key, value in doc._.entity_memory_log.items():
        numpy.testing.assert_array_equal(restored._.entity_memory_log[key], value)
    assert [g.name for g in restored._.coref_clusters] == [g.name for g in doc._.coref_clusters]
    assert restored._.coref_resolved == doc._.coref_resolved


@pytest.mark.parametrize("text", ["", "Hello", "😀 🎉 !!", "Le chat de Marie dort. Elle l'aime.", "東京は大きい。彼は行った。"])
def test_edge_case_texts(trained_nlp, text):
    doc = trained_nlp(text)
    assert doc._.entity_memory_log["entity"].shape == (len(doc),)
    assert len(doc.spans["coref_mentions"]) <= len(doc)
    assert doc._.coref_resolved == doc.text or doc._.has_coref


def test_empty_doc_in_a_batch_and_in_training(trained_nlp, gap_validation_docs):
    docs = list(trained_nlp.pipe(["", TEXTS[0], ""]))
    assert [len(d) for d in docs] == [0, len(docs[1]), 0]
    nlp = trained_nlp
    empty = Example(nlp.make_doc(""), nlp.make_doc(""))
    losses = nlp.update([empty], sgd=None)
    assert losses.get("entity_memory", 0.0) == 0.0  # no supervision, nothing to learn, no crash


def test_hundred_thousand_token_document(trained_nlp):
    words = ("Anna met her brother . He said that she was late . " * 8334).split()[:100_000]
    doc = spacy.tokens.Doc(trained_nlp.vocab, words=words)
    doc = trained_nlp(doc)
    assert len(doc) == 100_000
    log = doc._.entity_memory_log
    assert log["overwrite"].shape == (100_000, TINY_MODEL["n_cells"])
    # The memory is bounded: at most n_cells entities are live at once, whatever the length.
    assert numpy.all(log["usage"] <= 1.0)


def test_score_reports_gap_metrics(trained_nlp, gap_validation_docs):
    examples = [Example(trained_nlp(d.text), d) for d in gap_validation_docs[:40]]
    scores = trained_nlp.get_pipe("entity_memory").score(examples)
    for key in ("gap_f1", "gap_f1_masc", "gap_f1_fem", "gap_bias", "gap_threshold"):
        assert key in scores
    assert 0.0 <= scores["gap_f1"] <= 1.0
    assert "coref_f" not in scores


def _full_cluster_docs(nlp, n: int):
    docs = []
    for i in range(n):
        doc = nlp.make_doc(f"Anna Smith met Bob number {i} . She said that he was late and she left .")
        doc.spans["coref_clusters_1"] = [doc[0:2], doc[7:8], doc[14:15]]
        doc.spans["coref_clusters_2"] = [doc[3:6], doc[10:11]]
        docs.append(doc)
    return docs


def test_full_cluster_supervision_trains_and_scores_conll_metrics():
    nlp = tiny_pipeline()
    examples = [Example(nlp.make_doc(d.text), d) for d in _full_cluster_docs(nlp, 12)]
    spacy.util.fix_random_seed(0)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.01
    history = []
    for _ in range(60):
        losses = {}
        nlp.update(examples, sgd=optimizer, losses=losses)
        history.append(losses["entity_memory"])
    assert history[-1] < 0.7 * history[0]
    scores = nlp.evaluate(examples)
    for key in ("coref_f", "coref_muc_f", "coref_b3_f", "coref_ceafe_f", "coref_lea_f", "coref_nosingletons_conll_f"):
        assert 0.0 <= scores[key] <= 1.0
    # trained on one pattern, the memory learns which tokens are mentions
    doc = nlp(examples[0].reference.text)
    gold_tokens = {0, 1, 3, 4, 5, 7, 10, 14}
    predicted = {t.i for t in doc if t._.memory_action != "IGNORE"}
    assert 0 < len(predicted) < len(doc)
    assert len(predicted & gold_tokens) / len(predicted) >= 0.6


def test_a_batch_mixing_supervised_and_unsupervised_docs_trains(gap_validation_docs):
    nlp, _ = train_tiny(gap_validation_docs[:4], steps=1)
    supervised = Example(nlp.make_doc(gap_validation_docs[5].text), gap_validation_docs[5])
    unsupervised = Example(nlp.make_doc("No gold annotation here."), nlp.make_doc("No gold annotation here."))
    losses = nlp.update([supervised, unsupervised, supervised])
    assert losses["entity_memory"] > 0


def test_reader_you_keeps_an_addressless_you_from_a_named_person_and_is_a_setting():
    import spacy_entmem

    text = "If you want to bake bread, you need flour. Tom bought some and he baked a loaf."
    nlp = spacy_entmem.load_default()
    assert nlp.get_pipe("entity_memory").cfg["reader_you"]
    doc = nlp(text)
    clusters = [[span.text for span in group] for group in doc._.coref_clusters]
    assert not any("you" in group and "Tom" in group for group in clusters)
    off = spacy_entmem.load_default(config={"components": {"entity_memory": {"reader_you": False}}})
    assert not off.get_pipe("entity_memory").cfg["reader_you"]
    doc = off(text)
    clusters = [[span.text for span in group] for group in doc._.coref_clusters]
    assert any("you" in group and "Tom" in group for group in clusters)  # what the memory alone does
