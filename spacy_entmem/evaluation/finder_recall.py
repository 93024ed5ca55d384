"""Which gold mentions the mention finder proposes, by kind: the share of a corpus's gold mentions that are
among the candidates the memory chooses from, split by the mention's form (a pronoun, a name, a nominal headed
by a noun for people, another nominal) and, where the corpus types its mentions (GUM), by entity type."""
from collections import Counter
from typing import AbstractSet, Dict, Iterable, List, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..pipeline.span_proposals import CANDIDATES_KEY
from ..linguistics.syntax import mention_form
from ..training.targets import gold_clusters
from .coref_evaluate import reference_inputs


def gold_types(doc: Doc) -> Dict[Tuple[int, int], str]:
    """(start, end) → the entity type the gold spans carry (their label), where they carry one."""
    return {(span.start, span.end): span.label_ for key, group in doc.spans.items()
            if key.startswith("coref_clusters") for span in group if span.label_}


def finder_recall(nlp: Language, references: List[Doc], person_nouns: AbstractSet[str],
                  batch_size: int = 8) -> Dict[str, Dict[str, Dict[str, float]]]:
    """{"form": {kind: {"gold", "proposed", "recall"}}, "type": {...}} of ``references``' gold mentions, with
    the pipeline run up to and including its mention finder on the references' own tokens."""
    last = nlp.pipe_names.index(finder_name(nlp)) + 1
    with nlp.select_pipes(enable=nlp.pipe_names[:last]):
        predicted = list(nlp.pipe(reference_inputs(nlp, references), batch_size=batch_size))
    totals: Dict[str, Counter] = {"form": Counter(), "type": Counter()}
    found: Dict[str, Counter] = {"form": Counter(), "type": Counter()}
    for reference, doc in zip(references, predicted):
        proposed = {(span.start, span.end) for span in doc.spans.get(CANDIDATES_KEY, [])}
        types = gold_types(reference)
        for start, end in {mention for cluster in gold_clusters(reference) for mention in cluster}:
            kinds = {"form": mention_form(doc, start, end, person_nouns)}
            if (start, end) in types:
                kinds["type"] = types[start, end]
            for axis, kind in kinds.items():
                totals[axis][kind] += 1
                found[axis][kind] += (start, end) in proposed
    return {axis: {kind: {"gold": totals[axis][kind], "proposed": found[axis][kind],
                          "recall": round(found[axis][kind] / totals[axis][kind], 3)}
                   for kind in sorted(totals[axis], key=lambda k: -totals[axis][k])}
            for axis in totals if totals[axis]}


def finder_name(nlp: Language) -> str:
    """The name of the pipeline's mention finder (the component that writes the candidates)."""
    for name, pipe in nlp.pipeline:
        if getattr(pipe, "cfg", {}).get("spans_key") == CANDIDATES_KEY:
            return name
    raise ValueError(f"[spacy-entmem] the pipeline has no mention finder writing doc.spans[{CANDIDATES_KEY!r}] "
                     f"(its components: {nlp.pipe_names})")


def recall_rows(results: Dict[str, Dict[str, Dict[str, float]]]) -> Iterable[Tuple[str, str, int, float]]:
    """(axis, kind, gold mentions, recall) rows for printing."""
    for axis, kinds in results.items():
        for kind, counts in kinds.items():
            yield axis, kind, counts["gold"], counts["recall"]
