"""``entity_lm_scorer``: scores text with an entity-aware language model, left to right.

The entities come from ``doc.spans`` (``{cluster_prefix}_N``): gold clusters in training, or the clusters of
an ``entity_memory`` placed before it in the same pipeline. The text is anonymised as the Dynamic Neural Text
Model does (``lm_inputs``): each mention of a chain is one entity token. Writes, per doc,
``Token._.lm_logprob`` (log p of the token given the tokens before it; for an anonymised mention, of its entity
token, on the mention's first token; None on its other tokens and on white space), ``Doc._.lm_logprob`` (the
sum over the doc's LM tokens, sentence ends included), ``Doc._.perplexity`` and ``Span._.perplexity``.

EntityNLM (``spacy_entmem.EntityNLM.v1``) reads the words as they are. ``Token._.lm_logprob``, ``Doc._.lm_logprob``
and ``Doc._.perplexity`` are language-model quantities, marginal over the mention variables R / E / L: log p(word |
the words before it), estimated by sequential Monte Carlo with the model's locally optimal proposal
(``marginal_samples`` annotations per document, resampled after any token whose effective sample size fell below
half; ``nn.lm.entitynlm.smc_log_marginals``; 0 samples: not computed, None). What it gives with the clusters
before it as R / E / L is named for what it is: ``Token._.lm_logprob_given_clusters``,
``Doc._.perplexity_given_clusters`` (log p(word | the words and the clusters' mentions before it)); and at each
mention's first token ``Token._.entity_prediction`` is its distribution over the entities mentioned so far (by
span key) and ``"new"``, before it saw the mention's words.

CoreLM (``spacy_entmem.EntityGatedLM.v1``) reads the pretrained base LM's own sub-word pieces with the entity
of each piece (``lm_pieces``): ``Token._.lm_logprob`` is the sum of the token's pieces' log p,
``Doc._.perplexity`` is per word (the pieces' total over the doc's non-space tokens), as CoreLM reports it.
"""
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional

import numpy
import srsly
import torch
from spacy import util
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Model

from ..models.entity_lm import CORELM, ENTITYNLM, LM_LAYER, build_lm_module, pad_documents
from ..nn.lm.dntm import DynamicEntityLM
from ..nn.lm.context_cloze import load_context_encoder
from ..nn.lm.entitynlm import EntityNLMOutput
from ..models.memory import find_layer
from .lm_inputs import NO_TOKEN, LMDocument, LMVocabulary, chain_keys, group_perplexities, lm_document, perplexity
from .lm_attributes import USER_DATA_KEY, register_lm_extensions
from .lm_pieces import PieceDocument, piece_document, token_log_probs
from .settings import restore_cfg

STATE_KEYS = ("vocab_size",)  # what training fixes; the rest comes from the config
DEFAULT_DNTM = {"@architectures": "spacy_entmem.DynamicEntityLM.v1", "n_slots": 80, "embed_width": 256,
                "hidden_width": 256, "context_width": 128, "dynamic": "both", "merge": "gru_relu",
                "dropout": 0.3, "shortlist": 2000}


@Language.factory(
    "entity_lm_scorer",
    assigns=["token._.lm_logprob", "token._.entity_prediction", "token._.lm_logprob_given_clusters",
             "doc._.lm_logprob", "doc._.perplexity", "doc._.perplexity_given_clusters"],
    default_config={"model": DEFAULT_DNTM, "cluster_prefix": "coref_clusters", "vocab_size": 10000,
                    "min_mentions": 2, "block_sentences": 256, "marginal_samples": 8,
                    "scorer": {"@scorers": "spacy_entmem.entity_lm_scorer.v1"}},
    default_score_weights={"lm_token_prob": 1.0, "lm_perplexity": None, "lm_perplexity_reappearing": None,
                           "lm_perplexity_following": None, "lm_perplexity_non_entity": None,
                           "lm_joint_perplexity": None},
)
def make_entity_lm_scorer(nlp: Language, name: str, model: Model, cluster_prefix: str, vocab_size: int,
                          min_mentions: int, block_sentences: int, scorer: Optional[Callable],
                          marginal_samples: int = 8) -> "EntityLMScorer":
    return EntityLMScorer(nlp.vocab, model, name, cluster_prefix=cluster_prefix, vocab_size=vocab_size,
                          min_mentions=min_mentions, block_sentences=block_sentences, scorer=scorer,
                          marginal_samples=marginal_samples)


@util.registry.scorers("spacy_entmem.entity_lm_scorer.v1")
def make_entity_lm_scores() -> Callable:
    return score_lm_examples


def score_lm_examples(examples: Iterable[Example], pipe: "EntityLMScorer", **kwargs) -> Dict[str, float]:
    """Perplexity of the reference docs (gold clusters) by token group (DNTM Table 2), and the inverse of the
    perplexity a model is selected on as ``lm_token_prob`` (the geometric-mean probability of a token: higher
    is better). EntityNLM adds ``lm_joint_perplexity`` (words and mention variables, Eq. 9), its paper's
    selection criterion."""
    lm_docs, scored = pipe.score_docs([eg.reference for eg in examples])
    if pipe.is_corelm:  # per-word perplexity over the pieces, as CoreLM reports it
        selected = perplexity(sum(float(s["word"].sum()) for s in scored), sum(d.n_words for d in lm_docs))
        return {"lm_perplexity": selected, "lm_token_prob": 1.0 / selected if selected else None}
    by_group, _ = group_perplexities(lm_docs, [s["word"] for s in scored])
    scores = {("lm_perplexity" if group == "all" else f"lm_perplexity_{group}"): value
              for group, value in by_group.items()}
    selected = scores["lm_perplexity"]
    if pipe.is_entitynlm:
        selected = scores["lm_joint_perplexity"] = perplexity(sum(float(s["joint"].sum()) for s in scored),
                                                             sum(len(s["joint"]) for s in scored))
    scores["lm_token_prob"] = 1.0 / selected if selected else None
    return scores


def predicted_positions(lm_doc: LMDocument) -> numpy.ndarray:
    """Flat positions of the doc's predicted LM tokens (every sentence's tokens but its BOS), in the order
    of ``LMDocument.groups``."""
    starts = numpy.cumsum([0] + [len(w) for w in lm_doc.words[:-1]])
    return numpy.concatenate([numpy.arange(s + 1, s + len(w)) for s, w in zip(starts, lm_doc.words)]) \
        if lm_doc.words else numpy.zeros(0, dtype="int64")


def per_token_annotations(tokens: numpy.ndarray, logp: numpy.ndarray, n_tokens: int) -> Dict[str, Any]:
    """{"token_logprob": log p per doc token (None where no LM token starts), "total", "n"} of the LM tokens'
    log p (``tokens``: the doc token each predicted LM token starts at, NO_TOKEN for none)."""
    per_token: List[Optional[float]] = [None] * n_tokens
    for token, value in zip(tokens.tolist(), logp.tolist()):
        if token != NO_TOKEN:
            per_token[token] = value
    return {"token_logprob": per_token, "total": float(logp.sum()), "n": int(len(logp))}


class EntityLMScorer(TrainablePipe):
    """See the module docstring."""

    def __init__(self, vocab: Vocab, model: Model, name: str = "entity_lm_scorer", *,
                 cluster_prefix: str = "coref_clusters", vocab_size: int = 10000, min_mentions: int = 2,
                 block_sentences: int = 256, scorer: Optional[Callable] = None, marginal_samples: int = 8):
        problems = []
        if not cluster_prefix:
            problems.append("cluster_prefix must be a non-empty span key prefix")
        if vocab_size <= 4:
            problems.append(f"vocab_size must be more than 4 (the special tokens), got {vocab_size}")
        if min_mentions < 1:
            problems.append(f"min_mentions must be at least 1, got {min_mentions}")
        if block_sentences < 1:
            problems.append(f"block_sentences must be at least 1, got {block_sentences}")
        if isinstance(marginal_samples, bool) or not isinstance(marginal_samples, int) or marginal_samples < 0:
            problems.append(f"marginal_samples must be a whole number >= 0, got {marginal_samples!r}")
        if problems:
            raise ValueError(f"[spacy-entmem] invalid {name} config: " + "; ".join(problems))
        register_lm_extensions()
        self.vocab, self.model, self.name, self.scorer = vocab, model, name, scorer
        self.cfg: Dict[str, Any] = {"cluster_prefix": cluster_prefix, "vocab_size": vocab_size,
                                    "min_mentions": min_mentions, "block_sentences": block_sentences,
                                    "marginal_samples": marginal_samples}
        self.lm_vocab: Optional[LMVocabulary] = None

    @property
    def _layer(self) -> Model:
        return find_layer(self.model, LM_LAYER)

    def torch_model(self) -> torch.nn.Module:
        """The trained torch language model."""
        if not self._layer.layers:
            raise ValueError(f"[spacy-entmem] {self.name}: no model yet: run nlp.initialize() or load a trained pipeline")
        return self._layer.layers[0].shims[0]._model

    @property
    def is_entitynlm(self) -> bool:
        return self._layer.attrs["kind"] == ENTITYNLM

    @property
    def is_corelm(self) -> bool:
        return self._layer.attrs["kind"] == CORELM

    def to_lm(self, doc: Doc):
        """The doc as the model's input: an ``LMDocument`` (DNTM, EntityNLM) or CoreLM's ``PieceDocument``."""
        if self.is_corelm:
            return piece_document(doc, self._layer.attrs["tokenizer"](), self.cfg["cluster_prefix"],
                                  self.cfg["min_mentions"])
        if self.lm_vocab is None:
            raise ValueError(f"[spacy-entmem] {self.name}: no vocabulary yet: run nlp.initialize() or load a "
                             "trained pipeline")
        return lm_document(doc, self.lm_vocab, self.cfg["cluster_prefix"], self._layer.attrs["n_slots"],
                           self.cfg["min_mentions"], anonymise=not self.is_entitynlm,
                           max_length=self._layer.attrs["max_length"])

    # -- inference ----------------------------------------------------------------------------------
    def log_probs(self, docs: List[Doc], batch_size: int = 8):
        """(LM documents, log p per predicted LM token as a flat array per doc)."""
        lm_docs, scored = self.score_docs(docs, batch_size)
        return lm_docs, [s["word"] for s in scored]

    def score_docs(self, docs: List[Doc], batch_size: int = 8):
        """(LM documents, per doc a dict of flat arrays over its predicted LM tokens: ``word`` log p,
        ``joint`` log p (EntityNLM: with the mention variables; else the word's), and for EntityNLM
        ``entity`` (n, K) log p(E_t) at mention starts (−inf elsewhere)). A DNTM document of more than
        ``block_sentences`` sentences is read alone, block by block, with the LSTM and entity states carried
        over (the same scores; memory bounded by the block, not the document); EntityNLM reads it whole."""
        lm_docs = [self.to_lm(doc) for doc in docs]
        if self.is_corelm:
            return lm_docs, self._score_pieces(lm_docs, batch_size)
        block = self.cfg["block_sentences"] if not self.is_entitynlm else None
        scored: List[Optional[Dict[str, numpy.ndarray]]] = [None] * len(lm_docs)
        short = [i for i, d in enumerate(lm_docs) if block is None or len(d.words) <= block]
        with torch.no_grad():
            for start in range(0, len(short), batch_size):
                indices = short[start:start + batch_size]
                output = self.model.predict([lm_docs[i] for i in indices])
                for b, i in enumerate(indices):
                    positions = predicted_positions(lm_docs[i])
                    if isinstance(output, EntityNLMOutput):
                        scored[i] = {"word": output.word[b].cpu().numpy()[positions],
                                     "joint": output.joint[b].cpu().numpy()[positions],
                                     "entity": output.entity_logp[b].cpu().numpy()[positions]}
                    else:
                        logp = output[b].cpu().numpy()[positions]
                        scored[i] = {"word": logp, "joint": logp}
            for i in (i for i, d in enumerate(lm_docs) if i not in set(short)):
                logp = self._read_in_blocks(lm_docs[i], block)
                scored[i] = {"word": logp, "joint": logp}
        return lm_docs, scored

    def _score_pieces(self, piece_docs: List[PieceDocument], batch_size: int) -> List[Dict[str, numpy.ndarray]]:
        """CoreLM: log p of every piece (each document read in the model's strided windows)."""
        scored = []
        with torch.no_grad():
            for start in range(0, len(piece_docs), batch_size):
                batch = piece_docs[start:start + batch_size]
                output = self.model.predict(batch)
                for b, piece_doc in enumerate(batch):
                    logp = output[b, :len(piece_doc.ids)].cpu().numpy()
                    scored.append({"word": logp, "joint": logp})
        return scored

    def _read_in_blocks(self, lm_doc: LMDocument, block: int) -> numpy.ndarray:
        lm, state, pieces = self.torch_model(), None, []
        for start in range(0, len(lm_doc.words), block):
            part = lm_doc.sentences(start, start + block)
            logp, state = lm.read(pad_documents([part]), state)
            pieces.append(logp[0].cpu().numpy()[predicted_positions(part)])
        return numpy.concatenate(pieces)

    def predict(self, docs: Iterable[Doc]):
        docs = list(docs)
        lm_docs, scored = self.score_docs(docs)
        # the discriminative EntityNLM (a proposal) is no model of the words: no marginal to estimate
        if self.is_entitynlm and self.cfg.get("marginal_samples", 0) > 0 and not self.torch_model().discriminative:
            for scores, marginal in zip(scored, self.marginal_log_probs(docs)):
                scores["marginal"] = marginal
        return lm_docs, scored

    def marginal_log_probs(self, docs: List[Doc], seed: int = 0, batch_rows: int = 400) -> List[numpy.ndarray]:
        """EntityNLM: per doc, the estimate of log p(word | the words before it) at each predicted LM token,
        marginal over the mention variables (sequential Monte Carlo, ``marginal_samples`` particles, the locally
        optimal proposal, resampled after any token whose effective sample size is below half; the estimator
        of ``entmem research lm-marginal``). No cluster is read. The estimates of a doc sum to its estimated
        log p(X)."""
        from ..evaluation.lm_marginal import document_log_likelihoods, plain_document

        with torch.no_grad():
            estimates = document_log_likelihoods(self, None, docs, self.cfg["marginal_samples"], seed,
                                                 resample_below=0.5, every_token=True, rows_per_batch=batch_rows)
        return [numpy.diff(estimate["prefix"], prepend=0.0)[predicted_positions(plain_document(self, doc))]
                for doc, estimate in zip(docs, estimates)]

    def set_annotations(self, docs: Iterable[Doc], predictions) -> None:
        lm_docs, scored = predictions
        for doc, lm_doc, scores in zip(docs, lm_docs, scored):
            logp = scores["word"]
            if isinstance(lm_doc, PieceDocument):
                doc.user_data[USER_DATA_KEY] = {"token_logprob": token_log_probs(lm_doc, logp, len(doc)),
                                                "total": float(logp.sum()), "n": lm_doc.n_words}
                continue
            tokens = numpy.concatenate([t[1:] for t in lm_doc.tokens]) if lm_doc.tokens else numpy.zeros(0, "int64")
            annotations = per_token_annotations(tokens, logp, len(doc))
            if self.is_entitynlm:  # what it gives with the clusters as R / E / L is named so; the LM figure is
                annotations = {"given_clusters": annotations}  # the marginal, where computed
                if "marginal" in scores:
                    annotations.update(per_token_annotations(tokens, scores["marginal"], len(doc)))
            if "entity" in scores:
                annotations["entity_prediction"] = self._entity_predictions(doc, tokens, scores["entity"])
            doc.user_data[USER_DATA_KEY] = annotations

    def _entity_predictions(self, doc: Doc, tokens: numpy.ndarray, entity_logp: numpy.ndarray) -> Dict[str, Dict[str, float]]:
        """{token index (as str): {span key of an entity mentioned before, or "new": probability}} at mention
        starts."""
        keys = chain_keys(doc, self.cfg["cluster_prefix"], self._layer.attrs["n_slots"], self.cfg["min_mentions"],
                          self._layer.attrs["max_length"])
        out: Dict[str, Dict[str, float]] = {}
        for token, logp in zip(tokens.tolist(), entity_logp):
            if token == NO_TOKEN or not numpy.isfinite(logp).any():
                continue
            n_seen = int(numpy.isfinite(logp).sum()) - 1
            probs = numpy.exp(logp[:n_seen + 1])
            out[str(token)] = {**{keys[k]: float(probs[k]) for k in range(n_seen)}, "new": float(probs[n_seen])}
        return out

    # -- training -----------------------------------------------------------------------------------
    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        losses = {} if losses is None else losses
        losses.setdefault(self.name, 0.0)
        lm_docs = [self.to_lm(eg.reference) for eg in examples]
        lm_docs = [d for d in lm_docs if d.n_predicted]
        if not lm_docs:
            return losses
        logp, backprop = self.model.begin_update(lm_docs)
        mask = torch.zeros_like(logp)
        for b, d in enumerate(lm_docs):
            mask[b, predicted_positions(d) if isinstance(d, LMDocument) else slice(0, len(d.ids))] = 1.0
        n = float(mask.sum())
        backprop(-mask / n)
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += float(-(logp.detach() * mask).sum() / n)
        return losses

    def get_loss(self, examples, scores):
        raise NotImplementedError("[spacy-entmem] entity_lm_scorer computes its loss in update()")

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   pretrained_context: Optional[Path] = None, slots_as_anonymised: bool = True) -> None:
        """Build the vocabulary from the training docs and the model. ``pretrained_context``: a context
        encoder pre-trained by ``entmem dntm-pretrain-context`` to start the Dynamic Neural Text Model from
        (its word embeddings initialise the LM's; set in ``[initialize.components.entity_lm_scorer]``);
        ``slots_as_anonymised``: the entity slots' input embeddings all start as the pre-trained anonymised
        token's, as the paper (false: they keep their random start)."""
        validate_get_examples(get_examples, "EntityLMScorer.initialize")
        docs = [eg.reference for eg in get_examples()]
        # CoreLM reads the base LM's own pieces: no word vocabulary
        self.lm_vocab = LMVocabulary([]) if self.is_corelm else LMVocabulary.count(docs, self.cfg["vocab_size"])
        build_lm_module(self._layer, len(self.lm_vocab))
        self.model.initialize()
        if pretrained_context is not None:
            module = self.torch_model()
            if not isinstance(module, DynamicEntityLM):
                raise ValueError(f"[spacy-entmem] {self.name}: pretrained_context is for the Dynamic Neural Text "
                                 f"Model (spacy_entmem.DynamicEntityLM.v1), not {type(module).__name__}")
            saved = load_context_encoder(pretrained_context)
            module.load_pretrained(saved["state"], saved["words"], self.lm_vocab.words, slots_as_anonymised)

    def add_label(self, label: str) -> int:
        raise NotImplementedError("[spacy-entmem] entity_lm_scorer has no labels")

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, Any]:
        return self.scorer(examples, pipe=self, **kwargs) if self.scorer else {}

    # -- serialization ------------------------------------------------------------------------------
    def _build_before_loading(self, words: List[str]) -> None:
        self.lm_vocab = LMVocabulary(words)
        build_lm_module(self._layer, len(self.lm_vocab))

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return srsly.msgpack_dumps({"cfg": srsly.json_dumps(self.cfg), "words": self._words(),
                                    "model": self.model.to_bytes()})

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "EntityLMScorer":
        msg = srsly.msgpack_loads(bytes_data)
        restore_cfg(self.cfg, srsly.json_loads(msg["cfg"]), STATE_KEYS)
        self._build_before_loading(msg["words"])
        self.model.from_bytes(msg["model"])
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = util.ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "cfg", self.cfg)
        srsly.write_json(path / "vocab.json", self._words())
        self.model.to_disk(path / "model")

    def from_disk(self, path, *, exclude=tuple()) -> "EntityLMScorer":
        path = util.ensure_path(path)
        restore_cfg(self.cfg, srsly.read_json(path / "cfg"), STATE_KEYS)
        self._build_before_loading(srsly.read_json(path / "vocab.json"))
        self.model.from_disk(path / "model")
        return self

    def _words(self) -> List[str]:
        if self.lm_vocab is None:
            raise ValueError(f"[spacy-entmem] {self.name}: nothing to save before nlp.initialize()")
        return self.lm_vocab.words
