"""Standalone full-coreference evaluation: run a pipeline over a gold ``.spacy`` corpus (its own
tokenization), score MUC / B³ / CEAF-e / CoNLL F1 / LEA with and without singletons, and write gold and
predicted clusters in CoNLL-2012 format for the reference scorer."""
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from .corpora.conll2012 import write_document
from .corpora.docs import DOC_ID, sentence_lengths_from_flags
from .memory_log import decode_actions
from .scorers import predicted_clusters, score_entity_memory
from .supervision import cluster_groups


def _sentence_lengths(doc: Doc) -> List[int]:
    if not len(doc):
        return []
    if doc.has_annotation("SENT_START"):
        return sentence_lengths_from_flags([bool(t.is_sent_start) for t in doc])
    return [len(doc)]


def gold_clusters(doc: Doc, prefix: str = "coref_clusters") -> List[List[tuple]]:
    return [[(s.start, s.end) for s in doc.spans[key]] for _, key in cluster_groups(doc, prefix)]


THRESHOLDS = tuple(round(0.1 * i, 1) for i in range(1, 10)) + (0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999)
BIASES = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)


def _read(nlp: Language, corpus: Path) -> List[Doc]:
    references = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
    if not references:
        raise ValueError(f"[spacy-entmem] {corpus} holds no documents")
    return references


def _predict(nlp: Language, references: List[Doc], batch_size: int):
    """Predicted docs on the references' own tokens, and the seconds the pipeline took."""
    inputs = [Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d]) for d in references]
    start = time.perf_counter()
    predicted = list(nlp.pipe(inputs, batch_size=batch_size))
    return predicted, time.perf_counter() - start


def redecode(nlp: Language, docs: List[Doc], entity_threshold: float, new_entity_bias: float = 1.0,
             component: str = "entity_memory") -> None:
    """Decode the stored memory logs again with other decision settings (no model run)."""
    pipe = nlp.get_pipe(component)
    pipe.cfg.update(entity_threshold=entity_threshold, new_entity_bias=new_entity_bias)
    logs = []
    for doc in docs:
        log = dict(doc._.entity_memory_log)
        log["action"], log["cell"] = decode_actions(log, entity_threshold, new_entity_bias)
        logs.append(log)
    pipe.set_annotations(docs, logs)


def select_decisions(nlp: Language, corpus: Path, batch_size: int = 4, thresholds: Sequence[float] = THRESHOLDS,
                     biases: Sequence[float] = BIASES) -> Tuple[Tuple[float, float], Dict[Tuple[float, float], float]]:
    """The (entity_threshold, new_entity_bias) with the best CoNLL F1 on ``corpus`` (ties: closest to
    (0.5, 1)), and the F1 of every pair tried. The model runs once; only the decoding is repeated."""
    references = _read(nlp, corpus)
    predicted, _ = _predict(nlp, references, batch_size)
    results = {}
    for threshold in thresholds:
        for bias in biases:
            redecode(nlp, predicted, threshold, bias)
            examples = [Example(p, r) for p, r in zip(predicted, references)]
            results[(threshold, bias)] = score_entity_memory(examples)["coref_conll_f"]
    best = max(results, key=lambda k: (results[k], -abs(k[0] - 0.5) - abs(k[1] - 1.0)))
    return best, results


def evaluate_corpus(nlp: Language, corpus: Path, output_dir: Path, name: str, batch_size: int = 4) -> Dict[str, Any]:
    """Scores (keys as the component's scorer: ``coref_conll_f``, ``coref_lea_f``,
    ``coref_nosingletons_conll_f`` …) plus ``words_per_second``; writes ``{name}.gold.conll``,
    ``{name}.pred.conll`` and returns the dict (the caller saves it)."""
    references = _read(nlp, corpus)
    predicted, seconds = _predict(nlp, references, batch_size)
    examples = [Example(p, r) for p, r in zip(predicted, references)]
    scores = score_entity_memory(examples)
    if "coref_conll_f" not in scores:
        raise ValueError(f"[spacy-entmem] {corpus}: no document carries gold 'coref_clusters_N' span groups")
    n_words = sum(len(d) for d in references)
    scores.update({"documents": len(references), "words": n_words, "seconds": seconds,
                   "words_per_second": n_words / seconds if seconds else None})
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    with (output_dir / f"{name}.gold.conll").open("w", encoding="utf8") as gold_out, \
            (output_dir / f"{name}.pred.conll").open("w", encoding="utf8") as pred_out:
        for i, eg in enumerate(examples):
            ref = eg.reference
            doc_name = str(ref.user_data.get(DOC_ID, f"doc{i}"))
            words, lengths = [t.text for t in ref], _sentence_lengths(ref)
            write_document(gold_out, doc_name, words, lengths, gold_clusters(ref))
            write_document(pred_out, doc_name, words, lengths, predicted_clusters(eg))
    return scores
