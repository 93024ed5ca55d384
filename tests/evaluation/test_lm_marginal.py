import math

import pytest

from spacy_entmem.evaluation.lm_marginal import document_log_likelihoods, marginal_perplexity

from ..pipeline.test_entity_lm_scorer import TEXTS, TINY_ENTITYNLM, gold_doc, trained


@pytest.fixture(scope="module")
def pair():
    model, examples, _ = trained(steps=10, base=TINY_ENTITYNLM)
    proposal, _, _ = trained(steps=10, base=dict(TINY_ENTITYNLM, discriminative=True))
    return model.get_pipe("entity_lm_scorer"), proposal.get_pipe("entity_lm_scorer"), model


def test_marginal_perplexity_per_document_with_its_spread(pair):
    model, proposal, nlp = pair
    docs = [nlp.make_doc(text) for text, _ in TEXTS]  # no clusters: nothing gold is read
    per_doc = document_log_likelihoods(model, proposal, docs, n_samples=16)
    assert len(per_doc) == 2 and all(d["log_likelihood"] < 0 and 1 <= d["ess"] <= 16 for d in per_doc)
    assert per_doc[0]["tokens"] == len(docs[0]) + 3  # words and sentence ends
    result = marginal_perplexity(model, proposal, docs, n_samples=16, repeats=2)
    assert len(result["runs"]) == 2 and result["runs"][0] != result["runs"][1]  # independent runs
    assert result["perplexity"] == pytest.approx(sum(result["runs"]) / 2)
    assert math.isfinite(result["perplexity_std"]) and result["tokens"] == sum(len(d) + 3 for d in docs)
    # gold clusters in the docs change nothing: the annotation is sampled
    gold = [gold_doc(nlp, t, c) for t, c in TEXTS]
    again = document_log_likelihoods(model, proposal, gold, n_samples=16)
    assert again[0]["log_likelihood"] == pytest.approx(per_doc[0]["log_likelihood"])
    assert result["method"] == "importance sampling" and result["resamples_per_document"] == 0


def test_sequential_monte_carlo_resamples_at_sentence_ends(pair):
    model, proposal, nlp = pair
    docs = [nlp.make_doc(text) for text, _ in TEXTS]
    always = marginal_perplexity(model, proposal, docs, n_samples=16, repeats=1, resample_below=1.0)
    # at every sentence end but the document's last (the texts have three sentences each)
    assert always["resamples_per_document"] == 2 and always["method"].startswith("sequential Monte Carlo")
    assert math.isfinite(always["perplexity"]) and always["tokens"] == sum(len(d) + 3 for d in docs)


def test_the_pair_is_checked(pair):
    model, proposal, _ = pair
    with pytest.raises(ValueError, match="the proposal must be the discriminative EntityNLM"):
        marginal_perplexity(proposal, model, [], n_samples=2, repeats=1)


def test_the_model_can_propose_for_itself(pair):
    model, proposal, nlp = pair
    docs = [nlp.make_doc(text) for text, _ in TEXTS]
    result = marginal_perplexity(model, None, docs, n_samples=8, repeats=1, resample_below=0.5, every_token=True)
    assert result["proposal_kind"].startswith("locally optimal") and "any token" in result["method"]
    assert math.isfinite(result["perplexity"]) and result["tokens"] == sum(len(d) + 3 for d in docs)
    with pytest.raises(ValueError, match="needs the generative EntityNLM"):
        marginal_perplexity(proposal, None, docs, n_samples=2, repeats=1)
