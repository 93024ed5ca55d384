"""EntityNLM's marginal word perplexity by importance sampling (Ji et al. 2017, §5.1, Eq. 11): for each
document, N annotations (R, E, L) are drawn from the discriminative proposal Q(R, E, L | X) and

    p(X) ≈ 1/N Σ_i P(X, r_i, e_i, l_i) / Q(r_i, e_i, l_i | X)

is averaged **per document** (the importance weights of one document are never mixed with another's). With
``resample_below`` > 0 the same samples are weighed at every sentence end (or every token) and resampled when
their effective sample size falls low (sequential Monte Carlo, also unbiased for p(X); see
``smc_log_marginals``). Without a proposal pipeline the generative model proposes the annotations itself, from
its posterior at each token given the word there (the locally optimal proposal, ``LocallyOptimalSampler``). The
corpus perplexity is exp(− Σ_docs log p(X) / Σ_docs tokens) over the same predicted tokens as the LSTM LM
(every token and sentence end, no ``<bos>``). No gold annotation is read."""
import math
import time
from typing import Dict, List, Optional

import numpy
import torch
from spacy.tokens import Doc

from ..models.entity_lm import pad_entity_documents
from ..nn.lm.entitynlm import smc_log_marginals
from ..pipeline.entity_lm_scorer import EntityLMScorer
from ..pipeline.lm_inputs import LMDocument, lm_document


def check_pair(model: EntityLMScorer, proposal: Optional[EntityLMScorer]) -> None:
    """The generative model and the proposal (if any) must be EntityNLMs over one vocabulary."""
    if proposal is None:
        if not model.is_entitynlm or model.torch_model().discriminative:
            raise ValueError("[spacy-entmem] the marginal needs the generative EntityNLM (architecture setting "
                             "`discriminative` false)")
        return
    if not model.is_entitynlm or not proposal.is_entitynlm:
        raise ValueError("[spacy-entmem] importance sampling needs two EntityNLM pipelines (model and proposal)")
    if not proposal.torch_model().discriminative or model.torch_model().discriminative:
        raise ValueError("[spacy-entmem] the proposal must be the discriminative EntityNLM and the model the "
                         "generative one (architecture setting `discriminative`)")
    if model.lm_vocab.words != proposal.lm_vocab.words:
        raise ValueError("[spacy-entmem] the model and the proposal have different vocabularies: train both on "
                         "the same data with the same vocab_size")


def plain_document(scorer: EntityLMScorer, doc: Doc) -> LMDocument:
    """The doc's words as EntityNLM reads them, with no mention given."""
    return lm_document(doc, scorer.lm_vocab, mentions={}, anonymise=False)


def document_log_likelihoods(model: EntityLMScorer, proposal: Optional[EntityLMScorer], docs: List[Doc],
                             n_samples: int, seed: int = 0, resample_below: float = 0.0, every_token: bool = False,
                             rows_per_batch: int = 400) -> List[Dict[str, float]]:
    """Per document: the estimated log p(X), its token count, the effective sample size (Σw)² / Σw² of its
    last N weights and how often its samples were resampled (``resample_below`` > 0: sequential Monte Carlo;
    0: importance sampling, the paper's; see ``smc_log_marginals``; no ``proposal``: the locally optimal one)."""
    check_pair(model, proposal)
    generative = model.torch_model()
    discriminative = None if proposal is None else proposal.torch_model()
    generator = torch.Generator(device=generative.embedding.weight.device).manual_seed(seed)
    out = []
    per_batch = max(1, rows_per_batch // n_samples)
    for start in range(0, len(docs), per_batch):
        lm_docs = [plain_document(model, doc) for doc in docs[start:start + per_batch]]
        estimates = smc_log_marginals(generative, discriminative, pad_entity_documents(lm_docs), n_samples,
                                      generator, resample_below, every_token)
        out.extend({**estimate, "tokens": lm_doc.n_predicted} for lm_doc, estimate in zip(lm_docs, estimates))
    return out


def marginal_perplexity(model: EntityLMScorer, proposal: Optional[EntityLMScorer], docs: List[Doc],
                        n_samples: int = 100, repeats: int = 3, seed: int = 0, resample_below: float = 0.0,
                        every_token: bool = False) -> Dict[str, object]:
    """Corpus perplexity from ``repeats`` independent runs of ``n_samples`` per document: mean ± std over
    runs, the mean effective sample size per document, resamplings per document, and seconds per run.
    ``proposal`` None: the model's locally optimal proposal; ``every_token``: see ``smc_log_marginals``."""
    runs, ess, resamples, seconds = [], [], [], []
    for repeat in range(repeats):
        began = time.perf_counter()
        per_doc = document_log_likelihoods(model, proposal, docs, n_samples, seed + repeat, resample_below,
                                           every_token)
        seconds.append(time.perf_counter() - began)
        total = sum(d["log_likelihood"] for d in per_doc)
        tokens = sum(d["tokens"] for d in per_doc)
        runs.append(math.exp(-total / tokens))
        ess.append(float(numpy.mean([d["ess"] for d in per_doc])))
        resamples.append(float(numpy.mean([d["resamples"] for d in per_doc])))
    method = (f"sequential Monte Carlo (resampled when the ESS < {resample_below:g} N at "
              f"{'any token' if every_token else 'a sentence end'})" if resample_below > 0 else "importance sampling")
    proposal_kind = ("discriminative EntityNLM" if proposal is not None
                     else "locally optimal (the model's posterior at each token given its word)")
    return {"perplexity": float(numpy.mean(runs)), "perplexity_std": float(numpy.std(runs)), "runs": runs,
            "method": method, "proposal_kind": proposal_kind, "samples": n_samples, "mean_ess": float(numpy.mean(ess)),
            "resamples_per_document": float(numpy.mean(resamples)), "seconds_per_run": float(numpy.mean(seconds)),
            "tokens": tokens, "documents": len(docs)}
