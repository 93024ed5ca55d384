"""GAP evaluation of a pipeline: threshold on validation, official scoring on validation and test."""
import json
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example

import numpy

from ..models.memory import is_span_model
from ..pipeline.mention_schemes import MEMORY
from ..pipeline.pronoun_resolver import (PronounResolver, add_candidates, query_memory, query_rows,
                                         upstream_of_memories)
from ..pipeline.span_encoder import SpanEncoder
from .scorers import gap_pair_probabilities, gap_query_ranges
from ..corpora.gap import ConversionReport, GapRow, read_gap_rows, row_to_doc
from .gap import GapGold, bootstrap_intervals, decide, interval_row, score_gap, select_threshold, write_system_tsv


def pair_probabilities(
    nlp: Language, tsv: Path, batch_size: int = 64, resolver: Optional[PronounResolver] = None
) -> Tuple[List[GapGold], Dict[str, Tuple[float, float]], float, int]:
    """Gold, P(A~pronoun) and P(B~pronoun) per example (the ``resolver``'s, else the memory's), seconds spent
    predicting and words processed."""
    rows, references = _read_tsv(nlp, tsv)
    start = time.perf_counter()
    predicted = _predict_with_annotated_candidates(nlp, rows, references, batch_size)
    gold, probabilities = _read_probabilities(rows, predicted, references, resolver)
    seconds = time.perf_counter() - start
    return gold, probabilities, seconds, sum(len(doc) for doc in predicted)


def _read_tsv(nlp: Language, tsv: Path) -> Tuple[List[GapRow], List[Doc]]:
    """A GAP TSV's rows and their reference docs."""
    rows = list(read_gap_rows(tsv))
    return rows, [row_to_doc(nlp, row, ConversionReport()) for row in rows]


def pronoun_resolver_of(nlp: Language) -> Optional[PronounResolver]:
    """The pipeline's trained pronoun resolver (enabled or not), or None."""
    for name in nlp.component_names:
        component = nlp.get_pipe(name)
        if isinstance(component, PronounResolver) and component.head is not None:
            return component
    return None


def _read_probabilities(rows, predicted, references, resolver: Optional[PronounResolver] = None
                        ) -> Tuple[List[GapGold], Dict[str, Tuple[float, float]]]:
    gold, probabilities = [], {}
    for row, pred, ref in zip(rows, predicted, references):
        gold.append(GapGold(row.id, row.spans[0][1], row.a_coref, row.b_coref))
        eg = Example(pred, ref)
        if resolver is None:
            probabilities[row.id] = gap_pair_probabilities(eg, ref.spans["gap"])
        else:
            probabilities[row.id] = resolver.resolve(pred, *gap_query_ranges(eg, ref.spans["gap"]))
    return gold, probabilities


def gap_query_rows(nlp: Language, tsv: Path, batch_size: int = 64, encoder: Optional[SpanEncoder] = None,
                   parse_roles: bool = False) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """The pronoun resolver's training rows for a GAP TSV (``pronoun_resolver.query_rows``: A's row, then B's,
    per example) and their 0/1 labels, with the pipeline's memory run as ``entmem gap-evaluate`` runs it."""
    rows, references = _read_tsv(nlp, tsv)
    predicted = _predict_with_annotated_candidates(nlp, rows, references, batch_size)
    features, labels = [], []
    for row, pred, ref in zip(rows, predicted, references):
        features.append(query_rows(pred, *gap_query_ranges(Example(pred, ref), ref.spans["gap"]), encoder,
                                   parse_roles))
        labels.extend((row.a_coref, row.b_coref))
    return numpy.concatenate(features), numpy.array(labels, dtype="float32")


def _predict_with_annotated_candidates(nlp: Language, rows, references, batch_size: int):
    """Run the pipeline. GAP gives a system the offsets of A, B and the pronoun, so a span model sees them
    as candidates: the upstream components run first, the annotated spans join the proposed candidates,
    then the memory runs: the one the pronoun resolver reads (``query_memory``)."""
    name = query_memory(nlp)
    memory = nlp.get_pipe(name) if name is not None else None
    if memory is None or not is_span_model(memory.model):
        return list(nlp.pipe((row.text for row in rows), batch_size=batch_size))
    with nlp.select_pipes(enable=upstream_of_memories(nlp)):
        docs = list(nlp.pipe((row.text for row in rows), batch_size=batch_size))
    add_annotated_candidates(docs, references, memory.cfg["candidates_key"])
    return list(memory.pipe(docs, batch_size=batch_size))


def add_annotated_candidates(docs: List[Doc], references: List[Doc], key: str) -> None:
    """Add each reference's annotated GAP spans (A, B, pronoun) to the doc's candidates under ``key``."""
    for doc, ref in zip(docs, references):
        aligned = Example(doc, ref).get_aligned_spans_y2x([Span(doc=ref, start=s.start, end=s.end)
                                                            for s in ref.spans["gap"]], allow_overlap=True)
        add_candidates(doc, key, [doc[s.start: s.end] for s in aligned])


GAP_FINDER_THRESHOLDS = (0.2, 0.3, 0.5, 0.7)
GAP_FINDER_CAPS = (0.5, 1.0, 1.5)


def select_gap_finder(nlp: Language, validation: Path, batch_size: int = 64,
                      thresholds: Sequence[float] = GAP_FINDER_THRESHOLDS, caps: Sequence[float] = GAP_FINDER_CAPS,
                      finder: str = "span_finder") -> Tuple[Tuple[float, float], Dict]:
    """The span finder's (threshold, max_per_token) with the best GAP validation F1 (each at its own best
    probability threshold; ties: the higher threshold and lower cap), at the memory's current decision
    settings, and the F1 of every pair tried. The token vectors are computed once; per setting the finder
    and the memory run again. The finder is left set to the best."""
    from .coref_evaluate import search_finder_grid

    finder_pipe, memory = nlp.get_pipe(finder), nlp.get_pipe(query_memory(nlp) or MEMORY)
    rows, references = _read_tsv(nlp, validation)
    with nlp.select_pipes(enable=upstream_of_memories(nlp, skip=(finder,))):
        docs = list(nlp.pipe((row.text for row in rows), batch_size=batch_size))

    def score() -> float:
        found = list(finder_pipe.pipe(docs, batch_size=batch_size))
        add_annotated_candidates(found, references, memory.cfg["candidates_key"])
        predicted = list(memory.pipe(found, batch_size=batch_size))
        gold, probabilities = _read_probabilities(rows, predicted, references)
        return select_threshold(gold, probabilities)[1].overall.f1

    return search_finder_grid(finder_pipe, thresholds, caps, score)


def select_gap_decisions(nlp: Language, validation: Path, batch_size: int = 64,
                         settings: Sequence[Tuple[float, float]] = ()) -> Tuple[Tuple[float, float], Dict]:
    """The (entity_threshold, new_entity_bias) of the memory that answers queries (``query_memory``) with the
    best GAP validation F1 (each at its own best probability threshold; ties: closest to (0.5, 1)), and the F1
    of every pair tried. The memory is left set to the best. The upstream components run once; per setting only
    the memory runs again."""
    from .coref_evaluate import FORCED_BIASES, FORCED_THRESHOLDS, best_decisions, redecode

    settings = settings or [(t, b) for t in FORCED_THRESHOLDS for b in FORCED_BIASES]
    rows, references = _read_tsv(nlp, validation)
    predicted = _predict_with_annotated_candidates(nlp, rows, references, batch_size)
    memory = query_memory(nlp) or MEMORY
    tried = {}
    for threshold, bias in settings:
        redecode(nlp, predicted, threshold, bias, component=memory)
        gold, probabilities = _read_probabilities(rows, predicted, references)
        tried[(threshold, bias)] = select_threshold(gold, probabilities)[1].overall.f1
    best = best_decisions(tried)
    nlp.get_pipe(memory).cfg.update(entity_threshold=best[0], new_entity_bias=best[1])
    return best, tried


def _by_setting(tried: Dict[Tuple[float, float], float]) -> Dict[str, float]:
    """F1 per setting pair, keyed "a,b" for JSON."""
    return {f"{a},{b}": round(f1, 2) for (a, b), f1 in tried.items()}


def gender_swap_check(nlp: Language, test: Path, output_dir: Path, threshold: float,
                      answers: Dict[str, Tuple[bool, bool]], resolver: Optional[PronounResolver] = None,
                      batch_size: int = 64) -> Dict:
    """Score the gender-swapped copy of ``test`` (``corpora.gender_swap``, written to ``output_dir``) at the
    validation ``threshold``, and the share of its examples answered as in the original (``answers``): a
    system that reads gender only where it must answers the same, and its bias then follows the examples."""
    from ..corpora.gender_swap import SWAPPED_SUFFIX, swap_gap_file
    from ..models.memory import packaged_name_genders

    swapped_tsv = output_dir / f"{test.stem}.swapped.tsv"
    report = swap_gap_file(nlp, test, swapped_tsv, packaged_name_genders(), batch_size=batch_size)
    gold, probabilities, _, _ = pair_probabilities(nlp, swapped_tsv, batch_size, resolver)
    swapped_answers = decide(probabilities, threshold, resolver is not None and resolver.cfg.get("single_answer", False))
    scores = score_gap(gold, swapped_answers)
    unchanged = [answers[key[: -len(SWAPPED_SUFFIX)]] == answer for key, answer in swapped_answers.items()]
    intervals = bootstrap_intervals(gold, swapped_answers)
    return {"test_swapped": scores.as_dict(prefix=""), "test_swapped_row": scores.table_row(),
            "test_swapped_intervals": intervals, "test_swapped_interval_row": interval_row(intervals),
            "swapped_examples": report.swapped, "swap_left_out": report.left_out,
            "swap_answers_unchanged": sum(unchanged) / len(unchanged) if unchanged else None}


def evaluate_gap(nlp: Language, validation: Path, test: Path, output_dir: Path, batch_size: int = 64,
                 select_decisions: bool = False, select_finder: bool = False, memory_only: bool = False,
                 gender_swap: bool = False) -> Dict:
    """Score GAP validation and test (probability threshold chosen on validation); with ``select_finder``
    the span finder's threshold and cap are chosen on validation first (``select_gap_finder``), then with
    ``select_decisions`` the memory's decision settings (``select_gap_decisions``); both selections read the
    memory's own probabilities. The scores are the pipeline's pronoun resolver's where it has a trained one
    (``memory_only``: the memory's). With ``gender_swap`` test's gender-swapped copy is scored as well
    (``gender_swap_check``). Test's F1 and bias come with 95 % bootstrap intervals (``bootstrap_intervals``)."""
    output_dir.mkdir(parents=True, exist_ok=True)
    chosen = {}
    if select_finder:
        (threshold, cap), tried = select_gap_finder(nlp, validation, batch_size)
        chosen = {"finder_threshold": threshold, "finder_max_per_token": cap, "finder_selected_on": str(validation),
                  "finder_tried": _by_setting(tried)}
    if select_decisions:
        (threshold, bias), tried = select_gap_decisions(nlp, validation, batch_size)
        chosen.update({"entity_threshold": threshold, "new_entity_bias": bias,
                       "decisions_selected_on": str(validation), "decisions_tried": _by_setting(tried)})
    resolver = None if memory_only else pronoun_resolver_of(nlp)
    single = resolver is not None and resolver.cfg.get("single_answer", False)  # at most one "yes" per query
    val_gold, val_probs, _, _ = pair_probabilities(nlp, validation, batch_size, resolver)
    threshold, val_scores = select_threshold(val_gold, val_probs, single=single)
    test_gold, test_probs, seconds, words = pair_probabilities(nlp, test, batch_size, resolver)
    test_answers = decide(test_probs, threshold, single)
    test_scores = score_gap(test_gold, test_answers)
    test_intervals = bootstrap_intervals(test_gold, test_answers)
    write_system_tsv(output_dir / "gap-validation.system.tsv", decide(val_probs, threshold, single))
    write_system_tsv(output_dir / "gap-test.system.tsv", test_answers)
    result = {
        "threshold": threshold,
        "scored_by": "memory" if resolver is None else resolver.name,
        "validation": val_scores.as_dict(prefix=""),
        "test": test_scores.as_dict(prefix=""),
        "validation_row": val_scores.table_row(),
        "test_row": test_scores.table_row(),
        "test_intervals": test_intervals,
        "test_interval_row": interval_row(test_intervals),
        "test_words_per_second": words / seconds if seconds else None,
        **chosen,
    }
    if gender_swap:
        result.update(gender_swap_check(nlp, test, output_dir, threshold, test_answers, resolver, batch_size))
    (output_dir / "gap_scores.json").write_text(json.dumps(result, indent=2), encoding="utf8")
    return result
