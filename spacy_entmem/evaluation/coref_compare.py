"""Two systems' CoNLL-2012 outputs on the same documents, compared by a paired bootstrap over the documents."""
from pathlib import Path
from typing import Any, Dict, List

from ..corpora.conll2012 import read_conll_documents
from ..corpora.docs import CorefDocument
from .coref_metrics import CorefScorer


def compare_conll(gold: Path, first: Path, second: Path, samples: int = 1000, seed: int = 0) -> Dict[str, Any]:
    """CoNLL F1 and LEA (with singletons) of ``first`` and ``second`` against ``gold`` (CoNLL-2012 files as
    ``entmem coref-evaluate`` writes them: the same documents in the same order), and 95 % intervals of first
    minus second over the same resampled documents (``CorefScorer.bootstrap``)."""
    documents = {name: list(read_conll_documents(path)) for name, path in
                 (("gold", gold), ("first", first), ("second", second))}
    _check_same_documents(documents, {"gold": gold, "first": first, "second": second})
    scorers = {"first": CorefScorer(True), "second": CorefScorer(True)}
    for index, key in enumerate(documents["gold"]):
        for name, scorer in scorers.items():
            scorer.add(_clusters(key), _clusters(documents[name][index]))
    intervals = scorers["first"].bootstrap(against=scorers["second"], samples=samples, seed=seed)
    scores = {name: scorer.scores() for name, scorer in scorers.items()}
    return {
        "documents": len(documents["gold"]),
        **{name: {metric: values[metric] for metric in ("conll_f", "lea_f")} for name, values in scores.items()},
        "first_minus_second": {metric: list(intervals[f"{metric}_minus"]) for metric in ("conll_f", "lea_f")},
        "samples": samples,
    }


def _clusters(record: CorefDocument) -> List[List[tuple]]:
    return [[(m.start, m.end) for m in cluster] for cluster in record.clusters()]


def _check_same_documents(documents: Dict[str, List[CorefDocument]], paths: Dict[str, Path]) -> None:
    gold = documents["gold"]
    if not gold:
        raise ValueError(f"[spacy-entmem] {paths['gold']} holds no '#begin document' block")
    for name in ("first", "second"):
        other = documents[name]
        if len(other) != len(gold):
            raise ValueError(f"[spacy-entmem] {paths[name]} holds {len(other)} documents, {paths['gold']} "
                             f"{len(gold)}: compare outputs on the same documents")
        for index, (key, response) in enumerate(zip(gold, other)):
            if (key.doc_id, len(key.words)) != (response.doc_id, len(response.words)):
                raise ValueError(f"[spacy-entmem] document {index + 1} of {paths[name]} is {response.doc_id!r} "
                                 f"({len(response.words)} tokens), of {paths['gold']} {key.doc_id!r} "
                                 f"({len(key.words)} tokens)")
