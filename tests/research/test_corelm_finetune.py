import copy
import json
import math

import numpy
import pytest
import torch

from spacy_entmem.research.corelm_finetune import EXPORTED_SOURCES, Text, evaluate, load_export, main, set_trainable
from spacy_entmem.nn.lm.base_lm import load_base_lm
from spacy_entmem.nn.lm.corelm import EntityGatedLM

TEXTS = ["Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie.",
         "Alan Turing worked at Bletchley Park. Joan Clarke worked with him; she was a cryptanalyst."]


def export_file(path, tokenizer):
    """A small export as ``export`` writes it: every corpus has the two texts (entity 1 on some of their
    pieces, for the sources ``export`` keeps), LAMBADA scores the last two pieces."""
    corpora = {}
    for corpus, sources in EXPORTED_SOURCES.items():
        corpora[corpus] = []
        for text in TEXTS:
            ids = numpy.asarray(tokenizer(text, add_special_tokens=False)["input_ids"], dtype=numpy.int32)
            entities = numpy.zeros(len(ids), dtype=numpy.int32)
            entities[:2] = entities[12:14] = 1
            corpora[corpus].append({"ids": ids, "n_words": len(text.split()), "entities": dict.fromkeys(sources, entities),
                                    "first_scored": len(ids) - 2 if corpus == "lambada" else 0})
    torch.save({"corpora": corpora}, path)
    return path


def tiny_lm(tiny_lm_dir, gated=True):
    base, tokenizer = load_base_lm(tiny_lm_dir)
    base = copy.deepcopy(base)  # the loaded LM is shared by the whole process; these tests train theirs
    return EntityGatedLM(base, tokenizer.bos_token_id, n_heads=4, dropout=0.0, window=12, stride=5, gated=gated,
                         freeze_base=False), tokenizer


def test_only_the_embeddings_and_the_layer_train(tiny_lm_dir, tmp_path):
    """The paper's set-up: the base's blocks stay frozen, the (tied) embeddings and the layer change."""
    lm, tokenizer = tiny_lm(tiny_lm_dir)
    groups = set_trainable(lm, "embeddings")
    assert [g["name"] for g in groups] == ["base", "gating"]
    assert groups[0]["params"] == [lm.base.get_input_embeddings().weight]  # tied with the head: one tensor
    before = {k: v.clone() for k, v in lm.base.state_dict().items()}
    gating_before = {k: v.clone() for k, v in lm.gating.state_dict().items()}
    text = load_export(export_file(tmp_path / "e.pt", tokenizer))["train"][0]
    optimizer = torch.optim.SGD([p for g in groups for p in g["params"]], lr=0.1)
    (-lm.read_document(text.ids, text.read_entities("gold")).mean()).backward()
    optimizer.step()
    changed = {k for k, v in lm.base.state_dict().items() if not torch.equal(v, before[k])}
    assert changed == {"model.embed_tokens.weight", "lm_head.weight"}
    assert any(not torch.equal(v, gating_before[k]) for k, v in lm.gating.state_dict().items())
    set_trainable(lm, "all")
    assert all(p.requires_grad for p in lm.base.parameters())


def test_evaluation_scores_every_piece_and_lambada_only_its_target(tiny_lm_dir, tmp_path):
    lm, tokenizer = tiny_lm(tiny_lm_dir, gated=False)
    corpora = load_export(export_file(tmp_path / "e.pt", tokenizer))
    texts = corpora["test"]
    with torch.no_grad():
        total = sum(float(lm.read_document(t.ids, t.read_entities("none")).sum()) for t in texts)
        target = sum(float(lm.read_document(t.ids, t.read_entities("none"))[-2:].sum()) for t in texts)
    result = evaluate(lm, texts, "none")
    assert result["pieces"] == sum(len(t.ids) for t in texts)
    assert result["word_perplexity"] == pytest.approx(math.exp(-total / sum(t.n_words for t in texts)), rel=1e-5)
    lambada = evaluate(lm, corpora["lambada"], "none", lambada=True)
    assert lambada["lambada_perplexity"] == pytest.approx(math.exp(-target / 2), rel=1e-5)
    assert 0.0 <= lambada["lambada_accuracy"] <= 1.0


def test_read_entities_are_shifted_by_one_and_none_reads_nothing():
    text = Text(torch.arange(4), 4, {"gold": torch.tensor([1, 1, 0, 2], dtype=torch.int32)})
    assert text.read_entities("gold").tolist() == [0, 1, 1, 0]
    assert text.read_entities("none").tolist() == [0, 0, 0, 0]


def test_the_run_writes_every_system_and_an_untrained_layer_equals_the_base(tiny_lm_dir, tmp_path):
    """With both learning rates at zero every system is the base LM (the layer starts as the identity)."""
    _, tokenizer = load_base_lm(tiny_lm_dir)
    export = export_file(tmp_path / "e.pt", tokenizer)
    output = tmp_path / "results.jsonl"
    main(["run", str(export), str(output), "--base", tiny_lm_dir, "--gguf-file", "", "--device", "cpu",
          "--epochs", "1", "--base-lr", "0", "--gating-lr", "0", "--heads", "4", "--dropout", "0"])
    records = [json.loads(line) for line in output.read_text().splitlines()]
    scores = {(r["system"], r["entities"], r["corpus"]): r for r in records if "corpus" in r}
    assert {k[:2] for k in scores} == {("base", "none"), ("fine-tuned", "none"), ("corelm", "gold"),
                                       ("corelm", "model"), ("corelm", "none"), ("corelm-no-entities", "none")}
    assert ("corelm", "gold", "wikitext") not in scores  # zero-shot corpora have no gold clusters
    reference = scores[("base", "none", "test")]["word_perplexity"]
    for system, entities in [("fine-tuned", "none"), ("corelm", "gold"), ("corelm-no-entities", "none")]:
        assert scores[(system, entities, "test")]["word_perplexity"] == pytest.approx(reference, rel=1e-5)
    epochs = [r["training"] for r in records if "training" in r]
    assert len(epochs) == 3 and all(e["epoch"] == 0 for e in epochs)


def test_the_run_trains_its_own_copy_of_the_base_not_the_process_wide_one(tiny_lm_dir, tmp_path):
    """Other code in the process (e.g. CausalLMFeatures) shares ``load_base_lm``'s model; a run must not move it."""
    shared, tokenizer = load_base_lm(tiny_lm_dir, "")
    before = {k: v.clone() for k, v in shared.state_dict().items()}
    export = export_file(tmp_path / "e.pt", tokenizer)
    main(["run", str(export), str(tmp_path / "results.jsonl"), "--base", tiny_lm_dir, "--gguf-file", "",
          "--device", "cpu", "--epochs", "1", "--base-lr", "0.1", "--gating-lr", "0.1", "--heads", "4"])
    assert all(torch.equal(v, before[k]) for k, v in shared.state_dict().items())
