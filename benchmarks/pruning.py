"""Candidate pruning (the entity_memory setting ``pruning_bound``): for each bound, the memory's decisions and
scores on dev corpora against the unpruned pipeline, the share of candidates skipped and the memory's CPU time.

    python benchmarks/pruning.py [--model default] [--bounds none,0,1,2,4]
                                 [--corpus corpus/litbank/dev.spacy --corpus corpus/gum_rd/dev.spacy]
                                 [--decisions-from metrics/.../litbank_test.json]

The tok2vec and span finder run once per corpus; the memory then runs once per bound over the same
candidates, in alternating rounds (best process CPU time of ``--rounds``; the last round's output is scored).
A bound is safe where every candidate it skips was ignored by the unpruned memory, so the clusters are
identical ("same clusters").
"""
import argparse
import json
import time
from pathlib import Path
from typing import List, Optional

import numpy
from spacy.training import Example

from speed import upstream_components

from spacy_entmem.cli import load_pipeline
from spacy_entmem.evaluation.coref_evaluate import _read, apply_decisions, reference_inputs
from spacy_entmem.evaluation.scorers import score_entity_memory


def parse_bounds(text: str) -> List[Optional[float]]:
    return [None if item == "none" else float(item) for item in text.split(",")]


def clusters(doc) -> list:
    return sorted(sorted((s.start, s.end) for s in group) for group in doc._.coref_clusters)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="default")
    parser.add_argument("--bounds", type=parse_bounds, default=parse_bounds("none,0,1,2,4"))
    parser.add_argument("--corpus", type=Path, action="append")
    parser.add_argument("--decisions-from", type=Path, default=None, help="a coref-evaluate JSON")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    corpora = args.corpus or [Path("corpus/litbank/dev.spacy"), Path("corpus/gum_rd/dev.spacy")]
    nlp = load_pipeline(args.model)
    if args.decisions_from:
        apply_decisions(nlp, json.loads(args.decisions_from.read_text()))
    memory = nlp.get_pipe("entity_memory")
    for corpus in corpora:
        references = _read(nlp, corpus)
        docs = reference_inputs(nlp, references)
        for _name, component in upstream_components(nlp):
            docs = list(component.pipe(docs, batch_size=4))
        seconds = {bound: float("inf") for bound in args.bounds}
        found = {}
        for round_index in range(args.rounds):
            for bound in args.bounds:
                memory.cfg["pruning_bound"] = bound
                start = time.process_time()
                predicted = list(memory.pipe(docs, batch_size=4))
                seconds[bound] = min(seconds[bound], time.process_time() - start)
                if round_index == args.rounds - 1:  # the docs are rewritten by the next bound: read them now
                    found[bound] = outcome(predicted, references)
        print(f"{corpus} ({len(docs)} documents, {sum(len(d) for d in docs)} words)")
        unpruned = found[args.bounds[0]][1]
        for bound in args.bounds:
            scores, clusters_found, share = found[bound]
            same = sum(a == b for a, b in zip(clusters_found, unpruned))
            print(f"  bound {str(bound):>5}: CoNLL F1 {100 * scores['coref_conll_f']:.2f}  LEA "
                  f"{100 * scores['coref_lea_f']:.2f}  skipped {100 * share:.1f} % of candidates  same clusters "
                  f"{same}/{len(clusters_found)}  memory {seconds[bound]:.2f} CPU s "
                  f"({seconds[bound] / seconds[args.bounds[0]]:.2f}x)")


def outcome(predicted, references):
    """The scores, each document's clusters and the share of candidates skipped."""
    scores = score_entity_memory([Example(p, r) for p, r in zip(predicted, references)])
    pruned = [doc._.entity_memory_log.get("pruned") for doc in predicted]
    share = float(numpy.concatenate(pruned).mean()) if pruned[0] is not None else 0.0
    return scores, [clusters(doc) for doc in predicted], share

if __name__ == "__main__":
    main()
