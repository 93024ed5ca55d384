import math

import pytest
import spacy
from spacy.tokens import Doc, DocBin, Span
from spacy.training import Example

from ..conftest import DATA

TINY_LM = {"@architectures": "spacy_entmem.DynamicEntityLM.v1", "n_slots": 8, "embed_width": 16,
           "hidden_width": 16, "context_width": 8, "dropout": 0.0, "shortlist": 50}
TEXTS = [
    ("Anna met Bob . She gave him a book . Then Anna left .", [[(0, 1), (4, 5), (11, 12)], [(2, 3), (6, 7)]]),
    ("Carl saw Dora . He waved at her . Dora smiled at Carl .", [[(0, 1), (4, 5), (12, 13)], [(2, 3), (7, 8), (9, 10)]]),
]


def gold_doc(nlp, text, clusters):
    doc = nlp.make_doc(text)
    for i, token in enumerate(doc):
        token.is_sent_start = i == 0 or doc[i - 1].text == "."
    for n, cluster in enumerate(clusters, start=1):
        doc.spans[f"coref_clusters_{n}"] = [Span(doc, s, e) for s, e in cluster]
    return doc


def trained(steps=15, base=TINY_LM, initialize=None, **config):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("entity_lm_scorer", config={"model": dict(base, **config.pop("model", {})),
                                                    "vocab_size": 30, **config})
    examples = [Example(gold_doc(nlp, t, c), gold_doc(nlp, t, c)) for t, c in TEXTS]
    if initialize:
        nlp.config["initialize"]["components"]["entity_lm_scorer"] = initialize
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.01
    losses = [pipe.update(examples, sgd=optimizer)["entity_lm_scorer"] for _ in range(steps)]
    return nlp, examples, losses


@pytest.fixture(scope="module")
def tiny():
    return trained()


def test_training_lowers_the_loss_and_scores_by_token_group(tiny):
    nlp, examples, losses = tiny
    assert losses[-1] < losses[0] * 0.8
    scores = nlp.get_pipe("entity_lm_scorer").score(examples)
    assert set(scores) == {"lm_perplexity", "lm_perplexity_reappearing", "lm_perplexity_following",
                           "lm_perplexity_non_entity", "lm_token_prob"}
    assert scores["lm_token_prob"] == pytest.approx(1 / scores["lm_perplexity"])
    assert 1 < scores["lm_perplexity"] < 30


def test_attributes_of_a_doc_with_predicted_or_gold_clusters(tiny):
    nlp, _, _ = tiny
    doc = nlp(gold_doc(nlp, *TEXTS[0]))
    assert doc._.lm_logprob < 0
    scored = [t._.lm_logprob for t in doc if t._.lm_logprob is not None]
    assert len(scored) == len(doc)  # every mention here is one token
    n_eos = 3
    assert doc._.lm_logprob < sum(scored)  # the sentence ends are scored too
    assert doc._.perplexity == pytest.approx(math.exp(-doc._.lm_logprob / (len(doc) + n_eos)))
    assert doc[0:3]._.perplexity == pytest.approx(math.exp(-sum(scored[:3]) / 3))


def test_tokens_inside_an_anonymised_mention_and_white_space_get_none(tiny):
    nlp, _, _ = tiny
    doc = gold_doc(nlp, "Anna met the old man .  He smiled .", [[(0, 1)], [(2, 5), (7, 8)]])
    doc = nlp(doc)
    assert doc[2]._.lm_logprob is not None  # the mention's entity token
    assert doc[3]._.lm_logprob is None and doc[4]._.lm_logprob is None
    assert doc[6].is_space and doc[6]._.lm_logprob is None
    assert doc[1]._.lm_logprob is not None


def test_a_later_token_never_changes_earlier_scores(tiny):
    nlp, _, _ = tiny
    first = nlp(gold_doc(nlp, *TEXTS[0]))
    text = TEXTS[0][0].replace("Then Anna left", "Then Anna cried")
    second = nlp(gold_doc(nlp, text, TEXTS[0][1]))
    assert [t._.lm_logprob for t in first[:12]] == [t._.lm_logprob for t in second[:12]]
    assert first[12]._.lm_logprob != second[12]._.lm_logprob


def test_docs_without_clusters_empty_docs_and_unknown_words(tiny):
    nlp, _, _ = tiny
    plain = nlp("Zebras quietly graze . Nobody knows why .")
    assert all(t._.lm_logprob is not None for t in plain) and plain._.perplexity > 1
    empty = nlp("")
    assert empty._.lm_logprob == 0.0 and empty._.perplexity is None
    assert nlp("Hi")._.perplexity > 1


def test_saved_and_loaded_pipelines_score_alike(tiny, tmp_path):
    nlp, _, _ = tiny
    nlp.to_disk(tmp_path / "lm")
    loaded = spacy.load(tmp_path / "lm")
    doc = gold_doc(nlp, *TEXTS[1])
    assert loaded(doc.copy())._.lm_logprob == pytest.approx(nlp(doc.copy())._.lm_logprob, abs=1e-4)
    from_bytes = spacy.blank("en")
    from_bytes.add_pipe("entity_lm_scorer", config={"model": TINY_LM, "vocab_size": 30})
    from_bytes.get_pipe("entity_lm_scorer").from_bytes(nlp.get_pipe("entity_lm_scorer").to_bytes())
    assert from_bytes(doc.copy())._.lm_logprob == pytest.approx(nlp(doc.copy())._.lm_logprob, abs=1e-4)
    docs = list(DocBin(docs=[nlp(doc.copy())], store_user_data=True).get_docs(nlp.vocab))
    assert docs[0]._.perplexity == pytest.approx(nlp(doc.copy())._.perplexity)


def test_clear_errors_for_bad_config_and_an_untrained_component():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="vocab_size must be more than 4"):
        nlp.add_pipe("entity_lm_scorer", config={"vocab_size": 2})
    with pytest.raises(ValueError, match="dynamic must be one of"):
        nlp.add_pipe("entity_lm_scorer", name="b", config={"model": dict(TINY_LM, dynamic="maybe")})
    with pytest.raises(ValueError, match="min_mentions must be at least 1"):
        nlp.add_pipe("entity_lm_scorer", name="c", config={"min_mentions": 0})
    nlp.add_pipe("entity_lm_scorer", name="d", config={"model": TINY_LM})
    with pytest.raises(ValueError, match="no vocabulary yet"):
        nlp("Some text .")


def test_reads_the_clusters_of_an_entity_memory_before_it(tiny):
    """With the shipped coreference pipeline in front, the scorer anonymises its predicted clusters."""
    import spacy_entmem

    nlp, _, _ = tiny
    coref = spacy_entmem.load_default()
    coref.add_pipe("entity_lm_scorer", source=nlp)
    doc = coref("Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie.")
    cluster = doc._.coref_clusters[0]
    assert [m.text for m in cluster] == ["Marie Curie", "She", "she"]
    assert doc[0]._.lm_logprob is not None and doc[1]._.lm_logprob is None  # "Marie Curie" is one token [0]
    assert doc._.perplexity > 1


def test_long_documents_are_read_in_blocks_with_the_same_scores(tiny):
    nlp, _, _ = tiny
    pipe = nlp.get_pipe("entity_lm_scorer")
    text = " ".join(t for t, _ in TEXTS) + " " + TEXTS[0][0]
    clusters = [[(0, 1), (4, 5), (11, 12), (27, 28)], [(2, 3), (6, 7)], [(13, 14), (17, 18), (25, 26)]]
    whole = nlp(gold_doc(nlp, text, clusters))
    pipe.cfg["block_sentences"] = 2
    try:
        blocks = nlp(gold_doc(nlp, text, clusters))
    finally:
        pipe.cfg["block_sentences"] = 256
    assert [t._.lm_logprob for t in blocks] == pytest.approx([t._.lm_logprob for t in whole], abs=1e-5)
    with pytest.raises(ValueError, match="block_sentences must be at least 1"):
        spacy.blank("en").add_pipe("entity_lm_scorer", config={"block_sentences": 0})


TINY_ENTITYNLM = {"@architectures": "spacy_entmem.EntityNLM.v1", "n_slots": 8, "embed_width": 16,
                  "hidden_width": 16, "max_length": 5, "dropout": 0.0, "shortlist": 20}


@pytest.fixture(scope="module")
def tiny_entitynlm():
    return trained(steps=20, base=TINY_ENTITYNLM)


def test_entitynlm_trains_on_the_joint_likelihood_and_is_selected_on_it(tiny_entitynlm):
    nlp, examples, losses = tiny_entitynlm
    assert losses[-1] < losses[0] * 0.8
    scores = nlp.get_pipe("entity_lm_scorer").score(examples)
    assert scores["lm_joint_perplexity"] > scores["lm_perplexity"] > 1  # the mention variables cost too
    assert scores["lm_token_prob"] == pytest.approx(1 / scores["lm_joint_perplexity"])


def test_entitynlm_predicts_the_next_entity_at_each_mention(tiny_entitynlm, tmp_path):
    nlp, _, _ = tiny_entitynlm
    doc = nlp(gold_doc(nlp, *TEXTS[0]))
    assert all(t._.lm_logprob is not None for t in doc)  # words are kept: every token is scored
    assert doc[0]._.entity_prediction == {"new": pytest.approx(1.0)}
    she = doc[4]._.entity_prediction  # "She": Anna or Bob (both seen) or new
    assert set(she) == {"coref_clusters_1", "coref_clusters_2", "new"}
    assert sum(she.values()) == pytest.approx(1.0)
    assert doc[1]._.entity_prediction is None  # not a mention
    docs = list(DocBin(docs=[doc], store_user_data=True).get_docs(nlp.vocab))
    assert docs[0][4]._.entity_prediction == pytest.approx(she)
    nlp.to_disk(tmp_path / "entitynlm")
    loaded = spacy.load(tmp_path / "entitynlm")
    again = loaded(gold_doc(loaded, *TEXTS[0]))
    assert again._.lm_logprob == pytest.approx(doc._.lm_logprob, abs=1e-4)
    assert again[4]._.entity_prediction == pytest.approx(she, abs=1e-5)


def test_entitynlms_lm_figures_are_marginal_over_the_mentions_and_the_conditional_ones_say_so(tiny_entitynlm):
    from spacy_entmem.evaluation.lm_marginal import document_log_likelihoods

    nlp, _, _ = tiny_entitynlm
    pipe = nlp.get_pipe("entity_lm_scorer")
    text, clusters = TEXTS[0]
    with_gold = nlp(gold_doc(nlp, text, clusters))
    without = nlp(gold_doc(nlp, text, []))
    # the marginal reads no cluster: the same figures whatever the clusters; the conditional ones differ
    assert [t._.lm_logprob for t in with_gold] == pytest.approx([t._.lm_logprob for t in without])
    assert with_gold._.perplexity_given_clusters != pytest.approx(without._.perplexity_given_clusters)
    assert all(t._.lm_logprob is not None and t._.lm_logprob_given_clusters is not None for t in with_gold)
    # the per-token estimates add up to the estimator's log p(X) with the same samples
    (estimate,) = document_log_likelihoods(pipe, None, [with_gold], pipe.cfg["marginal_samples"], seed=0,
                                           resample_below=0.5, every_token=True)
    assert with_gold._.lm_logprob == pytest.approx(estimate["log_likelihood"], rel=1e-5)
    assert with_gold._.perplexity == pytest.approx(math.exp(-estimate["log_likelihood"] / estimate["tokens"]), rel=1e-5)
    samples, pipe.cfg["marginal_samples"] = pipe.cfg["marginal_samples"], 0  # not computed: None, never the
    try:                                                                      # conditional figure under its name
        off = nlp(gold_doc(nlp, text, clusters))
    finally:
        pipe.cfg["marginal_samples"] = samples
    assert off._.perplexity is None and off[0]._.lm_logprob is None
    assert off._.perplexity_given_clusters == pytest.approx(with_gold._.perplexity_given_clusters)
    with pytest.raises(ValueError, match="marginal_samples must be a whole number >= 0, got -1"):
        spacy.blank("en").add_pipe("entity_lm_scorer", config={"model": TINY_ENTITYNLM, "marginal_samples": -1})


def test_entitynlm_config_errors_name_every_bad_value():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="invalid EntityNLM config: max_length must be at least 1, got 0; "
                                         "dropout must be in"):
        nlp.add_pipe("entity_lm_scorer", config={"model": dict(TINY_ENTITYNLM, max_length=0, dropout=1.0)})


# --- CoreLM (spacy_entmem.EntityGatedLM.v1) over a tiny random causal LM saved in a directory


def tiny_corelm_config(tiny_lm_dir, **overrides):
    return {"@architectures": "spacy_entmem.EntityGatedLM.v1", "base_model": tiny_lm_dir, "gguf_file": "",
            "n_heads": 4, "dropout": 0.0, "window": 16, "stride": 8, **overrides}


@pytest.fixture(scope="module")
def tiny_corelm(tmp_path_factory):
    from ..conftest import save_tiny_causal_lm

    directory = str(save_tiny_causal_lm(tmp_path_factory.mktemp("corelm_base")))
    return trained(steps=12, base=tiny_corelm_config(directory)) + (directory,)


def test_corelm_trains_its_gating_layer_and_scores_per_word(tiny_corelm):
    nlp, examples, losses, _ = tiny_corelm
    assert losses[-1] < losses[0]
    scores = nlp.get_pipe("entity_lm_scorer").score(examples)
    docs = [nlp(eg.reference.copy()) for eg in examples]
    total = sum(d._.lm_logprob for d in docs)
    words = sum(len(d) for d in docs)
    assert scores["lm_perplexity"] == pytest.approx(math.exp(-total / words), rel=1e-4)


def test_corelm_attributes_sum_the_pieces_of_each_token(tiny_corelm):
    nlp, _, _, _ = tiny_corelm
    doc = nlp(gold_doc(nlp, *TEXTS[0]))
    values = [t._.lm_logprob for t in doc]
    assert all(v is not None and v < 0 for v in values)
    assert sum(values) == pytest.approx(doc._.lm_logprob, abs=1e-3)  # no white-space pieces in this text
    assert doc._.perplexity == pytest.approx(math.exp(-doc._.lm_logprob / len(doc)))


def test_corelm_uses_the_clusters_and_reads_left_to_right(tiny_corelm):
    nlp, _, _, _ = tiny_corelm
    with_clusters = nlp(gold_doc(nlp, TEXTS[0][0], TEXTS[0][1][1:]))  # Bob (token 2) and "him"
    without = nlp(gold_doc(nlp, TEXTS[0][0], []))
    before = [t._.lm_logprob for t in without[:2]]
    assert [t._.lm_logprob for t in with_clusters[:2]] == pytest.approx(before)  # no entity read yet
    assert [t._.lm_logprob for t in with_clusters[3:]] != pytest.approx([t._.lm_logprob for t in without[3:]])
    with_clusters = nlp(gold_doc(nlp, *TEXTS[0]))
    changed = nlp(gold_doc(nlp, TEXTS[0][0].replace("Then Anna left", "Then Anna stayed"), TEXTS[0][1]))
    assert [t._.lm_logprob for t in changed[:12]] == pytest.approx([t._.lm_logprob for t in with_clusters[:12]])


def test_corelm_saves_the_gating_layer_and_reloads_the_base(tiny_corelm, tmp_path):
    nlp, _, _, _ = tiny_corelm
    nlp.to_disk(tmp_path / "corelm")
    saved = sum(f.stat().st_size for f in (tmp_path / "corelm" / "entity_lm_scorer").rglob("*") if f.is_file())
    pipe = nlp.get_pipe("entity_lm_scorer")
    base_bytes = sum(p.numel() * 4 for p in pipe.torch_model().base.parameters())
    gating_bytes = sum(p.numel() * 4 for p in pipe.torch_model().gating.parameters())
    assert gating_bytes <= saved < gating_bytes + base_bytes  # the frozen base is not in the pipeline
    loaded = spacy.load(tmp_path / "corelm")
    doc = gold_doc(nlp, *TEXTS[1])
    assert loaded(doc.copy())._.lm_logprob == pytest.approx(nlp(doc.copy())._.lm_logprob, abs=1e-4)


def test_corelm_config_errors_name_every_bad_value(tiny_lm_dir):
    with pytest.raises(ValueError, match=r"delta must be in \[0, 1\], got 2.0; stride must be in \[1, window = 8\]"):
        spacy.blank("en").add_pipe("entity_lm_scorer", config={
            "model": tiny_corelm_config(tiny_lm_dir, delta=2.0, window=8, stride=9)})


def test_corelm_handles_empty_and_one_token_docs(tiny_corelm):
    nlp, _, _, _ = tiny_corelm
    empty, one = nlp(""), nlp("Anna")
    assert empty._.perplexity is None and empty._.lm_logprob == 0.0
    assert one[0]._.lm_logprob < 0 and one._.perplexity > 1


def test_corelm_reads_the_clusters_of_an_entity_memory_before_it(tiny_corelm):
    """Zero-shot use: the shipped coreference pipeline's clusters feed CoreLM in one pipeline."""
    import spacy_entmem

    nlp, _, _, _ = tiny_corelm
    coref = spacy_entmem.load_default()
    coref.add_pipe("entity_lm_scorer", source=nlp)
    text = "Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie."
    doc = coref(text)
    assert [m.text for m in doc._.coref_clusters[0]] == ["Marie Curie", "She", "she"]
    scorer = coref.get_pipe("entity_lm_scorer")
    pieces = scorer.to_lm(doc)
    assert doc[7].text == "She" and set(pieces.entities[pieces.tokens == 7].tolist()) == {1}  # as "Marie Curie"
    assert all(t._.lm_logprob is not None for t in doc if not t.is_space)
    plain = scorer.to_lm(coref.make_doc(text))
    assert not plain.entities.any() and (plain.ids == pieces.ids).all()


def test_a_dntm_starts_from_a_pretrained_context_encoder_and_keeps_it_frozen(tmp_path):
    import torch

    from spacy_entmem.nn.lm.context_cloze import ContextCloze, save_context_encoder
    from spacy_entmem.pipeline.lm_inputs import LMVocabulary

    nlp = spacy.blank("en")
    words = LMVocabulary.count([gold_doc(nlp, t, c) for t, c in TEXTS], 30).words
    torch.manual_seed(3)
    encoder = ContextCloze(30, embed_width=16, context_width=8)
    save_context_encoder(encoder, list(reversed(words)), tmp_path / "encoder.pt")  # another word order
    pretrained, examples, losses = trained(steps=5, model={"freeze_context": True},
                                           initialize={"pretrained_context": str(tmp_path / "encoder.pt")})
    lm = pretrained.get_pipe("entity_lm_scorer").torch_model()
    table = encoder.context_embedding.weight
    anna = words.index("anna")
    source_row = 4 + list(reversed(words)).index("anna")
    assert torch.equal(lm.context_embedding.weight[4 + anna], table[source_row])  # frozen: unchanged
    assert not torch.equal(lm.embedding.weight[4 + anna], table[source_row])  # the LM's own: trained on
    assert losses[-1] < losses[0]
    with pytest.raises(ValueError, match="pretrained_context is for the Dynamic Neural Text Model"):
        trained(steps=1, base=TINY_ENTITYNLM, initialize={"pretrained_context": str(tmp_path / "encoder.pt")})
