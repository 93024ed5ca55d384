"""Standalone full-coreference evaluation: run a pipeline over a gold ``.spacy`` corpus (its own
tokenization), score MUC / B³ / CEAF-e / CoNLL F1 / LEA with and without singletons, and write gold and
predicted clusters in CoNLL-2012 format for the reference scorer."""
import json
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from ..corpora.conll2012 import write_document
from ..corpora.docs import DOC_ID, sentence_lengths_from_flags
from ..models.memory import is_teacher_forced
from .coref_metrics import CorefScorer
from ..pipeline.memory_log import decode_actions
from .rule_baseline import singleton_clusters, string_match_clusters
from .scorers import predicted_clusters, score_entity_memory
from ..pipeline.span_proposals import CANDIDATES_KEY
from ..training.targets import gold_clusters


def _sentence_lengths(doc: Doc) -> List[int]:
    if not len(doc):
        return []
    if doc.has_annotation("SENT_START"):
        return sentence_lengths_from_flags([bool(t.is_sent_start) for t in doc])
    return [len(doc)]


THRESHOLDS = tuple(round(0.1 * i, 1) for i in range(1, 10)) + (0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999)
BIASES = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
# a memory deciding in its loop runs again per setting: a smaller grid around the argmax (0.5, 1)
FORCED_THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)
FORCED_BIASES = (0.5, 0.7, 1.0, 1.4, 2.0)


def _read(nlp: Language, corpus) -> List[Doc]:
    """The gold docs of a ``.spacy`` file, or of several files in order (a list of paths)."""
    paths = [Path(p) for p in corpus] if isinstance(corpus, (list, tuple)) else [Path(corpus)]
    references = [doc for path in paths for doc in DocBin().from_disk(path).get_docs(nlp.vocab)]
    if not references:
        raise ValueError(f"[spacy-entmem] {', '.join(map(str, paths))} hold(s) no documents")
    return references


def reference_inputs(nlp: Language, references: List[Doc]) -> List[Doc]:
    """Unannotated docs on the references' own tokens (so predictions align with the gold token by token)."""
    return [Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d]) for d in references]


def _predict(nlp: Language, references: List[Doc], batch_size: int):
    """Predicted docs on the references' own tokens, and the seconds the pipeline took."""
    inputs = reference_inputs(nlp, references)
    start = time.perf_counter()
    predicted = list(nlp.pipe(inputs, batch_size=batch_size))
    return predicted, time.perf_counter() - start


def redecode(nlp: Language, docs: List[Doc], entity_threshold: float, new_entity_bias: float = 1.0,
             component: str = "entity_memory") -> None:
    """Decide again with other decision settings. A memory that decides inside its loop (teacher-forced)
    runs again over the docs (the upstream annotations are kept); otherwise only the stored memory logs
    are decoded again."""
    pipe = nlp.get_pipe(component)
    pipe.cfg.update(entity_threshold=entity_threshold, new_entity_bias=new_entity_bias)
    if is_teacher_forced(pipe.model):
        for _ in pipe.pipe(docs, batch_size=8):
            pass
        return
    logs = []
    for doc in docs:
        log = dict(doc._.entity_memory_log)
        log["action"], log["cell"] = decode_actions(log, entity_threshold, new_entity_bias)
        logs.append(log)
    pipe.set_annotations(docs, logs)


# a decision setting, by its name in a coref-evaluate JSON → (the component, its cfg key)
DECISION_SETTINGS = {
    "entity_threshold": ("entity_memory", "entity_threshold"),
    "new_entity_bias": ("entity_memory", "new_entity_bias"),
    "disabled_pair_features": ("entity_memory", "disabled_pair_features"),
    "name_genders": ("entity_memory", "name_genders"),
    "pronoun_agreement": ("entity_memory", "pronoun_agreement"),
    "name_agreement": ("entity_memory", "name_agreement"),
    "animacy_agreement": ("entity_memory", "animacy_agreement"),
    "noun_number_agreement": ("entity_memory", "noun_number_agreement"),
    "plural_noun_agreement": ("entity_memory", "plural_noun_agreement"),
    "titled_name_agreement": ("entity_memory", "titled_name_agreement"),
    "binding_agreement": ("entity_memory", "binding_agreement"),
    "name_continuity": ("entity_memory", "name_continuity"),
    "resolver_binding_agreement": ("pronoun_resolver", "binding_agreement"),
    "resolver_gender_agreement": ("pronoun_resolver", "gender_agreement"),
    "resolver_rule_conditioning": ("pronoun_resolver", "rule_conditioning"),
    "resolver_exclusive": ("pronoun_resolver", "exclusive"),
    "resolver_single_answer": ("pronoun_resolver", "single_answer"),
    "resolver_syntactic_binding": ("pronoun_resolver", "syntactic_binding"),
    "narrator_continuity": ("entity_memory", "narrator_continuity"),
    "speaker_continuity": ("entity_memory", "speaker_continuity"),
    "apposition_continuity": ("entity_memory", "apposition_continuity"),
    "syntactic_binding": ("entity_memory", "syntactic_binding"),
    "person_agreement": ("entity_memory", "person_agreement"),
    "singular_they": ("entity_memory", "singular_they"),
    "reader_you": ("entity_memory", "reader_you"),
    "pruning_bound": ("entity_memory", "pruning_bound"),
    "beam_width": ("entity_memory", "beam_width"),
    "finder_threshold": ("span_finder", "threshold"),
    "finder_max_per_token": ("span_finder", "max_per_token"),
    "finder_name_ends": ("span_finder", "propose_name_ends"),
    "finder_drop_pronoun_bounded": ("span_finder", "drop_pronoun_bounded"),
    "finder_cut_name_clauses": ("span_finder", "cut_name_clauses"),
    "finder_person_nouns": ("span_finder", "propose_person_nouns"),
    "finder_noun_phrases": ("span_finder", "propose_noun_phrases"),
}


def parse_settings(items: Sequence[str]) -> Dict[str, Any]:
    """``NAME=JSON`` strings → {name: value}, for the names of ``DECISION_SETTINGS``; a clear error otherwise."""
    return parse_assignments(items, DECISION_SETTINGS)


def parse_assignments(items: Sequence[str], names: Optional[Iterable[str]] = None) -> Dict[str, Any]:
    """``NAME=JSON`` strings → {name: value}, NAME one of ``names`` when given; a clear error otherwise."""
    parsed = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or (names is not None and name not in names):
            allowed = f" with NAME one of {sorted(names)}" if names is not None else ""
            raise ValueError(f"[spacy-entmem] setting {item!r}: expected NAME=VALUE{allowed}")
        try:
            parsed[name] = json.loads(value)
        except ValueError:
            raise ValueError(f"[spacy-entmem] setting {item!r}: the value must be JSON (true, 0.5, [\"gender\"])") \
                from None
    return parsed


def current_decisions(nlp: Language) -> Dict[str, Any]:
    """The decision settings the pipeline has now, by their JSON names (components it has)."""
    found = {}
    for name, (component, key) in DECISION_SETTINGS.items():
        if component in nlp.pipe_names and key in nlp.get_pipe(component).cfg:
            found[name] = nlp.get_pipe(component).cfg[key]
    return found


def decisions_by_component(chosen: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """The decision settings among ``chosen`` (e.g. a coref-evaluate JSON), grouped as component → cfg."""
    grouped: Dict[str, Dict[str, Any]] = {}
    for name, value in chosen.items():
        if name in DECISION_SETTINGS and value is not None:
            component, key = DECISION_SETTINGS[name]
            grouped.setdefault(component, {})[key] = value
    return grouped


def apply_decisions(nlp: Language, chosen: Dict[str, Any]) -> None:
    """Set the decision settings among ``chosen`` on the pipeline's components."""
    for component, settings in decisions_by_component(chosen).items():
        if component in nlp.pipe_names:
            nlp.get_pipe(component).cfg.update(settings)


SELECTION_METRICS = ("lea", "conll")


def select_decisions(nlp: Language, corpus: Path, batch_size: int = 4, thresholds: Optional[Sequence[float]] = None,
                     biases: Optional[Sequence[float]] = None, metric: str = "lea",
                     ) -> Tuple[Tuple[float, float], Dict[Tuple[float, float], float]]:
    """The (entity_threshold, new_entity_bias) with the best ``metric`` F1 (LEA by default: CoNLL F1's
    MUC part rewards merging) on ``corpus`` (ties: closest to (0.5, 1)), and the F1 of every pair tried.
    The pipeline runs once; then only the memory (or only its decoding) is repeated. The memory is left set
    to the best (as ``select_finder_settings`` leaves the finder)."""
    if metric not in SELECTION_METRICS:
        raise ValueError(f"[spacy-entmem] selection metric must be one of {SELECTION_METRICS}, got {metric!r}")
    forced = is_teacher_forced(nlp.get_pipe("entity_memory").model)
    thresholds = thresholds or (FORCED_THRESHOLDS if forced else THRESHOLDS)
    biases = biases or (FORCED_BIASES if forced else BIASES)
    references = _read(nlp, corpus)
    predicted, _ = _predict(nlp, references, batch_size)
    results = {}
    for threshold in thresholds:
        for bias in biases:
            redecode(nlp, predicted, threshold, bias)
            examples = [Example(p, r) for p, r in zip(predicted, references)]
            results[(threshold, bias)] = score_entity_memory(examples)[f"coref_{metric}_f"]
    best = best_decisions(results)
    nlp.get_pipe("entity_memory").cfg.update(entity_threshold=best[0], new_entity_bias=best[1])
    return best, results


def best_decisions(results: Dict[Tuple[float, float], float]) -> Tuple[float, float]:
    """The (entity_threshold, new_entity_bias) with the highest score; ties go to the one closest to (0.5, 1)."""
    return max(results, key=lambda k: (results[k], -abs(k[0] - 0.5) - abs(k[1] - 1.0)))


FINDER_THRESHOLDS = (0.3, 0.5, 0.7)
# the cap on candidates per token guards against runaway proposals (an untrained or low-threshold finder);
# it is not a precision setting: caps 0.5-1.5 tie on LitBank dev, and 0.5 cut names from short texts
FINDER_CAPS = (1.5,)


def select_finder_settings(nlp: Language, corpus: Path, batch_size: int = 4,
                           thresholds: Sequence[float] = FINDER_THRESHOLDS, caps: Sequence[float] = FINDER_CAPS,
                           metric: str = "lea", finder: str = "span_finder",
                           ) -> Tuple[Tuple[float, float], Dict[Tuple[float, float], float]]:
    """The span finder's (``threshold``, ``max_per_token``) with the best ``metric`` F1 on ``corpus`` (ties:
    the higher threshold and lower cap, fewer candidates), at the memory's current decision settings, and the
    F1 of every pair tried. The finder and the memory run again per setting; the token vectors are computed
    once. The finder is left set to the best."""
    finder_pipe, memory = nlp.get_pipe(finder), nlp.get_pipe("entity_memory")
    references = _read(nlp, corpus)
    with nlp.select_pipes(disable=[finder, "entity_memory"]):
        docs, _ = _predict(nlp, references, batch_size)

    def score() -> float:
        predicted = list(memory.pipe(finder_pipe.pipe(docs, batch_size=batch_size), batch_size=batch_size))
        return score_entity_memory([Example(p, r) for p, r in zip(predicted, references)])[f"coref_{metric}_f"]

    return search_finder_grid(finder_pipe, thresholds, caps, score)


def search_finder_grid(finder_pipe, thresholds: Sequence[float], caps: Sequence[float],
                       score: Callable[[], float]) -> Tuple[Tuple[float, float], Dict[Tuple[float, float], float]]:
    """Set the finder to every (``threshold``, ``max_per_token``) pair and call ``score`` for each; return the
    best pair (ties: the higher threshold and lower cap, fewer candidates) and every pair's score. The
    finder is left set to the best."""
    results = {}
    for threshold in thresholds:
        for cap in caps:
            finder_pipe.cfg.update(threshold=threshold, max_per_token=cap)
            results[(threshold, cap)] = score()
    best = max(results, key=lambda k: (results[k], k[0], -k[1]))
    finder_pipe.cfg.update(threshold=best[0], max_per_token=best[1])
    return best, results


def document_scorers(examples: Sequence[Example]) -> Dict[str, CorefScorer]:
    """Per-document scorers (with singletons) of the pipeline's clusters (``system``) and of the floors on the
    same documents: the string-match rule and all singletons on the pipeline's own predicted mentions, and the
    rule on the gold mentions."""
    scorers = {name: CorefScorer(True) for name in ("system", "rule_predicted_mentions",
                                                     "singletons_predicted_mentions", "rule_gold_mentions")}
    for eg in examples:
        ref = eg.reference
        key = gold_clusters(ref)
        words = [t.text for t in ref]
        response = predicted_clusters(eg)
        predicted_mentions = [span for cluster in response for span in cluster]
        gold_mentions = [span for cluster in key for span in cluster]
        scorers["system"].add(key, response)
        scorers["rule_predicted_mentions"].add(key, string_match_clusters(words, predicted_mentions))
        scorers["singletons_predicted_mentions"].add(key, singleton_clusters(predicted_mentions))
        scorers["rule_gold_mentions"].add(key, string_match_clusters(words, gold_mentions))
    return scorers


def baseline_scores(scorers: Dict[str, CorefScorer]) -> Dict[str, Dict[str, float]]:
    """The floors' scores from ``document_scorers``."""
    return {name: scorer.scores() for name, scorer in scorers.items() if name != "system"}


def document_intervals(scorers: Dict[str, CorefScorer]) -> Dict[str, List[float]]:
    """95 % bootstrap intervals over the documents (``CorefScorer.bootstrap``) of the pipeline's CoNLL F1 and
    LEA, and of each minus the string-match rule on the same predicted mentions (paired)."""
    intervals = scorers["system"].bootstrap(against=scorers["rule_predicted_mentions"])
    return {name.replace("_minus", "_minus_rule"): list(bounds) for name, bounds in intervals.items()}


def cluster_counts(examples: Sequence[Example], candidates_key: str = CANDIDATES_KEY) -> Dict[str, Any]:
    """Gold and predicted clusters of two or more mentions and mentions, summed over the documents;
    exact-match mention detection P / R / F of the predicted mentions (singletons included) and the recall
    of the candidates the memory chose from."""
    counts = dict.fromkeys(("gold_clusters", "predicted_clusters", "gold_mentions", "predicted_mentions",
                            "correct_mentions", "gold_mentions_proposed"), 0)
    for eg in examples:
        key, response = gold_clusters(eg.reference), predicted_clusters(eg)
        gold, predicted = {m for c in key for m in c}, {m for c in response for m in c}
        counts["gold_clusters"] += sum(len(c) > 1 for c in key)
        counts["predicted_clusters"] += sum(len(c) > 1 for c in response)
        counts["gold_mentions"] += len(gold)
        counts["predicted_mentions"] += len(predicted)
        counts["correct_mentions"] += len(gold & predicted)
        group = eg.predicted.spans.get(candidates_key)
        if group is not None:
            proposed = {(s.start, s.end) for s in eg.get_aligned_spans_x2y(list(group), allow_overlap=True)}
            counts["gold_mentions_proposed"] += len(gold & proposed)
    p = counts["correct_mentions"] / counts["predicted_mentions"] if counts["predicted_mentions"] else 0.0
    r = counts["correct_mentions"] / counts["gold_mentions"] if counts["gold_mentions"] else 0.0
    counts.update(mention_p=p, mention_r=r, mention_f=2 * p * r / (p + r) if p + r else 0.0,
                  candidate_r=counts["gold_mentions_proposed"] / counts["gold_mentions"] if counts["gold_mentions"] else 0.0)
    return counts


def evaluate_corpus(nlp: Language, corpus: Path, output_dir: Path, name: str, batch_size: int = 4) -> Dict[str, Any]:
    """Scores (keys as the component's scorer: ``coref_conll_f``, ``coref_lea_f``,
    ``coref_nosingletons_conll_f`` …) plus ``words_per_second``; writes ``{name}.gold.conll``,
    ``{name}.pred.conll`` and returns the dict (the caller saves it)."""
    references = _read(nlp, corpus)
    predicted, seconds = _predict(nlp, references, batch_size)
    examples = [Example(p, r) for p, r in zip(predicted, references)]
    scores = score_entity_memory(examples)
    scorers = document_scorers(examples)
    scores["baselines"] = baseline_scores(scorers)
    scores["intervals"] = document_intervals(scorers)
    scores.update(cluster_counts(examples))
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
