"""How much ``entity_memory.pipe``'s regrouping by length saves: the memory alone (the upstream components run
once beforehand) over GAP paragraphs, spaCy's plain ``TrainablePipe.pipe`` (window 0) against windows of
1, 4, 8, 16 batches, best of the repeats, same process.

    python benchmarks/sort_window.py [--texts ../shared/data/gap/gap-test.tsv] [--limit 1024] [--batch-size 64]
"""
import argparse
import json
import time

from spacy.pipeline import TrainablePipe

import spacy_entmem
from spacy_entmem.pipeline import entity_memory

from speed import read_texts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", default="../shared/data/gap/gap-test.tsv")
    parser.add_argument("--limit", type=int, default=1024)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    nlp = spacy_entmem.load_default()
    docs = [nlp.make_doc(text) for text in read_texts(args.texts)[: args.limit]]
    with nlp.select_pipes(disable=["entity_memory"]):
        for _name, proc in nlp.pipeline:
            docs = list(proc.pipe(docs, batch_size=args.batch_size))
    memory = nlp.get_pipe("entity_memory")

    def seconds(window: int) -> float:
        copies = [doc.copy() for doc in docs]
        start = time.perf_counter()
        if window == 0:
            list(TrainablePipe.pipe(memory, copies, batch_size=args.batch_size))
        else:
            entity_memory.SORT_WINDOW = window
            list(memory.pipe(copies, batch_size=args.batch_size))
        return time.perf_counter() - start

    seconds(1)  # warm up
    windows = (0, 1, 4, 8, 16)
    best = {w: min(seconds(w) for _ in range(args.repeats)) for w in windows}
    print(json.dumps({"docs": len(docs), "batch_size": args.batch_size,
                      "seconds": {w: round(s, 2) for w, s in best.items()},
                      "speed_up_vs_unsorted": {w: round(best[0] / s, 2) for w, s in best.items()}}, indent=2))


if __name__ == "__main__":
    main()
