"""Extension attributes of ``entity_lm_scorer``, as getters over ``doc.user_data`` (so they survive DocBin
and multiprocessing): ``Token._.lm_logprob``, ``Doc._.lm_logprob``, ``Doc._.perplexity``,
``Span._.perplexity``; EntityNLM's ``Token._.entity_prediction``, ``Token._.lm_logprob_given_clusters`` and
``Doc._.perplexity_given_clusters``. A figure not computed (EntityNLM's marginal with ``marginal_samples`` 0) is
None."""
from typing import Optional

from spacy.tokens import Doc, Span, Token

from .lm_inputs import perplexity

USER_DATA_KEY = "entmem_lm"


def _scores(doc: Doc) -> Optional[dict]:
    scores = doc.user_data.get(USER_DATA_KEY)
    return scores if scores and "token_logprob" in scores else None


def _given_clusters(doc: Doc) -> Optional[dict]:
    scores = doc.user_data.get(USER_DATA_KEY)
    return scores.get("given_clusters") if scores else None


def token_logprob_given_clusters(token: Token) -> Optional[float]:
    """EntityNLM: log p(word | the words and the clusters' mentions before it)."""
    scores = _given_clusters(token.doc)
    return scores["token_logprob"][token.i] if scores else None


def doc_perplexity_given_clusters(doc: Doc) -> Optional[float]:
    scores = _given_clusters(doc)
    return perplexity(scores["total"], scores["n"]) if scores else None


def token_logprob(token: Token) -> Optional[float]:
    scores = _scores(token.doc)
    return scores["token_logprob"][token.i] if scores else None


def doc_logprob(doc: Doc) -> Optional[float]:
    scores = _scores(doc)
    return scores["total"] if scores else None


def doc_perplexity(doc: Doc) -> Optional[float]:
    scores = _scores(doc)
    return perplexity(scores["total"], scores["n"]) if scores else None


def span_perplexity(span: Span) -> Optional[float]:
    """exp(− mean log p) over the span's scored tokens (None when none is scored)."""
    scores = _scores(span.doc)
    if not scores:
        return None
    values = [v for v in scores["token_logprob"][span.start:span.end] if v is not None]
    return perplexity(sum(values), len(values))


def entity_prediction(token: Token) -> Optional[dict]:
    """At a mention's first token (EntityNLM): {span key of an earlier entity, or "new": probability}."""
    scores = token.doc.user_data.get(USER_DATA_KEY)
    predictions = scores.get("entity_prediction") if scores else None
    return None if predictions is None else predictions.get(str(token.i))  # str keys: DocBin-safe


def register_lm_extensions() -> None:
    """Register the attributes once (idempotent)."""
    if not Token.has_extension("lm_logprob"):
        Token.set_extension("lm_logprob", getter=token_logprob)
    if not Doc.has_extension("lm_logprob"):
        Doc.set_extension("lm_logprob", getter=doc_logprob)
    if not Doc.has_extension("perplexity"):
        Doc.set_extension("perplexity", getter=doc_perplexity)
    if not Token.has_extension("entity_prediction"):
        Token.set_extension("entity_prediction", getter=entity_prediction)
    if not Span.has_extension("perplexity"):
        Span.set_extension("perplexity", getter=span_perplexity)
    if not Token.has_extension("lm_logprob_given_clusters"):
        Token.set_extension("lm_logprob_given_clusters", getter=token_logprob_given_clusters)
    if not Doc.has_extension("perplexity_given_clusters"):
        Doc.set_extension("perplexity_given_clusters", getter=doc_perplexity_given_clusters)
