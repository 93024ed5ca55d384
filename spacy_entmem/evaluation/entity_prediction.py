"""Entity prediction (EntityNLM §5.3, after Modi et al. 2017): reading a story left to right with its gold
mentions, at each evaluation slot (a mention; its boundaries given, R_t observed) predict which referent it
is: one of those mentioned before, or a new one. Accuracy over slots, for EntityNLM (argmax of p(E_t)), the
always-new baseline, and a conditional-logit baseline on the shallow features of each earlier referent
(recency and frequency, as Modi et al.'s), trained on the training stories."""
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence

import numpy
import torch
from spacy.tokens import Doc

from ..pipeline.entity_lm_scorer import EntityLMScorer
from ..pipeline.lm_inputs import chains

NEW = -1  # the gold or predicted referent of a slot whose referent was not mentioned before
RECENCY_BOUNDS = (1, 2, 3, 5, 8, 13, 21, 34, 55, 89)  # mentions since the referent's latest mention
FREQUENCY_BOUNDS = (1, 2, 3, 5, 8, 13)                 # the referent's mentions so far


@dataclass
class Slot:
    """A mention to predict: its first token, the referents before it (slot order), the gold answer (the
    index among them, or NEW), and each earlier referent's recency and frequency (in mentions)."""

    token: int
    n_before: int
    gold: int
    recency: numpy.ndarray
    frequency: numpy.ndarray


def story_slots(doc: Doc, prefix: str = "coref_clusters", n_slots: int = 80,
                only: Sequence[int] = ()) -> List[Slot]:
    """The slots of one story (every mention start after the first, or only the tokens in ``only``)."""
    mentions = sorted((start, slot) for slot, (_, spans) in enumerate(chains(doc, prefix, n_slots, 1))
                      for start, _ in spans)
    wanted = set(only)
    last = numpy.zeros(n_slots, dtype="int64")
    counts = numpy.zeros(n_slots, dtype="int64")
    n_before = 0
    out = []
    for index, (start, slot) in enumerate(mentions):
        if (start in wanted) if wanted else index > 0:
            out.append(Slot(start, n_before, slot if slot < n_before else NEW,
                            index - last[:n_before], counts[:n_before].copy()))
        n_before = max(n_before, slot + 1)
        last[slot], counts[slot] = index, counts[slot] + 1
    return out


def features(slot: Slot) -> numpy.ndarray:
    """(n_before + 1, F): one-hot recency and frequency buckets per earlier referent; the last row (new) has
    only its own indicator."""
    n_recency, n_frequency = len(RECENCY_BOUNDS) + 1, len(FREQUENCY_BOUNDS) + 1
    out = numpy.zeros((slot.n_before + 1, n_recency + n_frequency + 1), dtype="float32")
    rows = numpy.arange(slot.n_before)
    out[rows, numpy.searchsorted(RECENCY_BOUNDS, slot.recency)] = 1.0
    out[rows, n_recency + numpy.searchsorted(FREQUENCY_BOUNDS, slot.frequency)] = 1.0
    out[-1, -1] = 1.0
    return out


def gold_index(slot: Slot) -> int:
    return slot.n_before if slot.gold == NEW else slot.gold


class ShallowReferentModel:
    """A conditional logit over the candidates (earlier referents + new): score = w · features."""

    def __init__(self, epochs: int = 200, learn_rate: float = 1.0, seed: int = 0):
        self.epochs, self.learn_rate, self.seed = epochs, learn_rate, seed
        self.weights = None

    def fit(self, slots: Iterable[Slot]) -> "ShallowReferentModel":
        slots = list(slots)
        if not slots:
            raise ValueError("[spacy-entmem] no training slots for the shallow referent model")
        torch.manual_seed(self.seed)
        x = [torch.from_numpy(features(s)) for s in slots]
        y = torch.tensor([gold_index(s) for s in slots])
        candidates = torch.nn.utils.rnn.pad_sequence(x, batch_first=True)  # (N, C, F), padding rows zero
        real = torch.nn.utils.rnn.pad_sequence([torch.ones(len(f), dtype=torch.bool) for f in x], batch_first=True)
        weights = torch.zeros(candidates.shape[-1], requires_grad=True)
        optimizer = torch.optim.LBFGS([weights], lr=self.learn_rate, max_iter=self.epochs,
                                      line_search_fn="strong_wolfe")

        def closure():
            optimizer.zero_grad()
            logp = torch.log_softmax((candidates @ weights).masked_fill(~real, float("-inf")), dim=-1)
            loss = -logp[torch.arange(len(y)), y].mean()
            loss.backward()
            return loss

        optimizer.step(closure)
        self.weights = weights.detach().numpy()
        return self

    def predict(self, slot: Slot) -> int:
        index = int(numpy.argmax(features(slot) @ self.weights))
        return NEW if index == slot.n_before else index


def entitynlm_predictions(scorer: EntityLMScorer, docs: List[Doc], slots: List[List[Slot]],
                          batch_size: int = 8) -> List[List[int]]:
    """EntityNLM's argmax referent (slot index or NEW) at each slot of each story."""
    if not scorer.is_entitynlm:
        raise ValueError(f"[spacy-entmem] {scorer.name} is not an EntityNLM (spacy_entmem.EntityNLM.v1): it "
                         "predicts no entities")
    lm_docs, scored = scorer.score_docs(docs, batch_size)
    out = []
    for lm_doc, scores, doc_slots in zip(lm_docs, scored, slots):
        tokens = numpy.concatenate([t[1:] for t in lm_doc.tokens]) if lm_doc.tokens else numpy.zeros(0, "int64")
        row_of = {token: row for row, token in enumerate(tokens.tolist())}
        predictions = []
        for slot in doc_slots:
            logp = scores["entity"][row_of[slot.token]]
            index = int(numpy.argmax(logp))
            predictions.append(NEW if index == slot.n_before else index)
        out.append(predictions)
    return out


def accuracy(predicted: Iterable[int], gold: Iterable[int]) -> float:
    pairs = list(zip(predicted, gold))
    return sum(p == g for p, g in pairs) / len(pairs) if pairs else 0.0


def evaluate_entity_prediction(scorer: EntityLMScorer, train_docs: List[Doc], test_docs: List[Doc],
                               test_slot_tokens: Dict[int, List[int]], batch_size: int = 8) -> Dict[str, float]:
    """Accuracy of EntityNLM and the baselines at the slots (``test_slot_tokens``: doc index → slot tokens)."""
    prefix, n_slots = scorer.cfg["cluster_prefix"], scorer._layer.attrs["n_slots"]
    if scorer.cfg["min_mentions"] != 1:
        raise ValueError(f"[spacy-entmem] entity prediction needs a model trained with min_mentions = 1 (every "
                         f"referent is an entity, singletons included); {scorer.name} has "
                         f"{scorer.cfg['min_mentions']}")
    train_slots = [s for doc in train_docs for s in story_slots(doc, prefix, n_slots)]
    test_slots = [story_slots(doc, prefix, n_slots, test_slot_tokens.get(i, ())) for i, doc in enumerate(test_docs)]
    missing = sum(len(test_slot_tokens.get(i, ())) - len(s) for i, s in enumerate(test_slots))
    if missing:
        raise ValueError(f"[spacy-entmem] {missing} evaluation slots are not mentions of the first {n_slots} "
                         "referents of their stories (the model's n_slots)")
    gold = [s.gold for doc_slots in test_slots for s in doc_slots]
    shallow = ShallowReferentModel().fit(train_slots)
    model = [p for doc_predictions in entitynlm_predictions(scorer, test_docs, test_slots, batch_size)
             for p in doc_predictions]
    return {"slots": len(gold), "entitynlm": accuracy(model, gold), "always_new": accuracy([NEW] * len(gold), gold),
            "shallow": accuracy([shallow.predict(s) for doc_slots in test_slots for s in doc_slots], gold),
            "new_share": sum(g == NEW for g in gold) / len(gold) if gold else 0.0}
