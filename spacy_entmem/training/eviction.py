"""A learnt eviction policy for the bounded memory: which cell a new entity should take when all are in use.

Least-recently-used eviction forgets a main character who is quiet for a page. Toshniwal et al. (2020) learn
what to evict; here the memory's cells are described by a few symbolic features (``EVICTION_FEATURES``: idle
time, mentions, recency rank, whether the cell holds a name, a person, the narrator, ...) and a linear score
over them is trained against Belady's oracle on gold clusters:

1. the shipped memory reads the training documents (greedily, as at inference; documents concatenated so that
   entities outnumber the cells: memory pressure), and at every eviction it logs each cell's features and the
   entity it holds (``MentionMemory.eviction_log``);
2. each predicted entity is mapped to the gold cluster most of its mentions are exact mentions of; the best cells
   to evict are those whose cluster is next mentioned furthest ahead (never, for a cluster that is done or a
   spurious entity);
3. a softmax over the cells, trained to put its mass on those best cells (log of the summed probability).

``python -m spacy_entmem.training.eviction TRAIN.spacy ... --dev DEV.spacy --output eviction.json`` trains and
writes the weights; the entity memory reads them with ``eviction_weights`` (a path, or "packaged").
"""
import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy

from ..nn.memory.mention_memory import EVICTION_FEATURES
from .pressure import concatenated

PACKAGED_EVICTION = Path(__file__).resolve().parent.parent / "resources" / "eviction.json"
NEVER = 10 ** 9  # the next use of a cluster that is not mentioned again


def gold_next_uses(reference, prefix: str = "coref_clusters") -> Tuple[Dict[Tuple[int, int], int], List[List[int]]]:
    """Each gold mention span → its cluster's index, and each cluster's sorted mention starts."""
    span_cluster, starts = {}, []
    for key in sorted(k for k in reference.spans if k.startswith(prefix)):
        index = len(starts)
        starts.append(sorted(span.start for span in reference.spans[key]))
        for span in reference.spans[key]:
            span_cluster[(span.start, span.end)] = index
    return span_cluster, starts


def eviction_examples(nlp, references: Sequence, memory: str = "entity_memory") -> Tuple[numpy.ndarray, numpy.ndarray]:
    """(E, N, F) the cells' features at each eviction the memory makes on the references (read one at a time,
    on their own tokens) and (E, N) which cells Belady's oracle would evict (see the module docstring)."""
    from ..evaluation.coref_evaluate import reference_inputs
    from ..models.memory import torch_memory

    module = torch_memory(nlp.get_pipe(memory).model)
    features, targets = [], []
    for reference, doc in zip(references, reference_inputs(nlp, list(references))):
        module.eviction_log = []
        try:
            doc = nlp(doc)
            log = module.eviction_log
        finally:
            module.eviction_log = None
        span_cluster, starts = gold_next_uses(reference)
        group = doc.spans.get("coref_mentions")
        entity_cluster: Dict[int, int] = {}
        if group is not None:
            votes: Dict[int, Counter] = {}
            for span, entity in zip(group, group.attrs.get("entity_ids", [])):
                cluster = span_cluster.get((span.start, span.end))
                if cluster is not None:
                    votes.setdefault(entity, Counter())[cluster] += 1
            entity_cluster = {entity: counts.most_common(1)[0][0] for entity, counts in votes.items()}
        steps = doc._.entity_memory_log["spans"]
        for _, t, cell_features, entities in log:
            start = int(steps[t][0]) if t < len(steps) else 0
            next_use = numpy.array([_next(starts, entity_cluster.get(int(e)), start) for e in entities])
            features.append(cell_features)
            targets.append(next_use == next_use.max())
    if not features:
        raise ValueError("[spacy-entmem] the memory made no eviction on these documents: nothing to learn from")
    return numpy.stack(features), numpy.stack(targets)


def _next(starts: List[List[int]], cluster: Optional[int], position: int) -> int:
    if cluster is None:
        return NEVER
    later = [s for s in starts[cluster] if s >= position]
    return later[0] if later else NEVER


def train_policy(features: numpy.ndarray, targets: numpy.ndarray, epochs: int = 300, l2: float = 1e-3,
                 seed: int = 0) -> numpy.ndarray:
    """Weights (F,) of the softmax over cells that maximises the log of its mass on the oracle's cells."""
    import torch

    torch.manual_seed(seed)
    x, y = torch.from_numpy(features).float(), torch.from_numpy(targets)
    mean, scale = x.mean(dim=(0, 1)), x.std(dim=(0, 1)).clamp_min(1e-6)
    mean[0], scale[0] = 0.0, 1.0  # (the bias column)
    weights = torch.zeros(x.shape[-1], requires_grad=True)
    optimiser = torch.optim.LBFGS([weights], max_iter=epochs, line_search_fn="strong_wolfe")

    def loss_fn():
        optimiser.zero_grad()
        logits = ((x - mean) / scale) @ weights
        log_p = torch.log_softmax(logits, dim=-1)
        loss = -torch.logsumexp(log_p.masked_fill(~y, -float("inf")), dim=-1).mean() + l2 * (weights ** 2).sum()
        loss.backward()
        return loss

    optimiser.step(loss_fn)
    unscaled = (weights / scale).detach().numpy()
    unscaled[0] -= float((weights * mean / scale).sum().detach())  # fold the standardisation into the weights
    return unscaled.astype("float64")


def oracle_agreement(features: numpy.ndarray, targets: numpy.ndarray, weights: Optional[numpy.ndarray]) -> float:
    """How often a policy evicts one of the oracle's cells: the learnt one (``weights``), or least recently used
    (None: the highest recency rank)."""
    if weights is None:
        chosen = features[..., EVICTION_FEATURES.index("recency rank")].argmax(axis=1)
    else:
        chosen = (features @ weights).argmax(axis=1)
    return float(targets[numpy.arange(len(targets)), chosen].mean())


def load_weights(path) -> numpy.ndarray:
    """A policy's weights from its JSON file ("packaged": the one shipped); the feature names must match."""
    path = PACKAGED_EVICTION if str(path) == "packaged" else Path(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"[spacy-entmem] cannot read the eviction policy {path}: {error}") from error
    if data.get("features") != list(EVICTION_FEATURES):
        raise ValueError(f"[spacy-entmem] the eviction policy {path} was trained on other features "
                         f"({data.get('features')}); this version reads {list(EVICTION_FEATURES)}")
    return numpy.asarray(data["weights"], dtype="float64")


def main(argv: Optional[Sequence[str]] = None) -> None:
    import spacy_entmem
    from spacy.tokens import DocBin

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("train", nargs="+", type=Path, help=".spacy files with gold coref_clusters_N")
    parser.add_argument("--dev", nargs="*", type=Path, default=[], help="scored, never trained on")
    parser.add_argument("--per-stream", type=int, default=3, help="training documents joined into one")
    parser.add_argument("--output", type=Path, default=PACKAGED_EVICTION)
    args = parser.parse_args(argv)
    nlp = spacy_entmem.load_default(config={"components": {"entity_memory": {"protected_cells": 0}}})

    def read(paths, per_stream):
        docs = [doc for path in paths for doc in DocBin().from_disk(path).get_docs(nlp.vocab)]
        return concatenated(docs, per_stream) if per_stream > 1 else docs

    x, y = eviction_examples(nlp, read(args.train, args.per_stream))
    weights = train_policy(x, y)
    report = {"features": list(EVICTION_FEATURES), "weights": weights.tolist(), "train_evictions": int(len(x)),
              "train": [str(p) for p in args.train], "per_stream": args.per_stream,
              "train_agreement": {"learnt": oracle_agreement(x, y, weights), "least_used": oracle_agreement(x, y, None)}}
    if args.dev:
        dx, dy = eviction_examples(nlp, read(args.dev, args.per_stream))
        report["dev_agreement"] = {"learnt": oracle_agreement(dx, dy, weights),
                                   "least_used": oracle_agreement(dx, dy, None), "evictions": int(len(dx))}
    args.output.write_text(json.dumps(report, indent=1), encoding="utf8")
    print(json.dumps({k: v for k, v in report.items() if k != "weights"}, indent=1))


if __name__ == "__main__":
    main()
