"""CPU time of the default pipeline's ``entity_memory`` alone (best of 3 passes), on GAP paragraphs whose
tok2vec and span finder ran first.

    python benchmarks/memory_cpu_time.py [--texts ../shared/data/gap/gap-test.tsv] [--limit 800]

Process CPU time, not wall time: on a shared machine it varies less. To compare two versions of the code, run
it alternately in each checkout (``git worktree add ../old <commit>``, then ``cd ../old && PYTHONPATH=.
python benchmarks/memory_cpu_time.py``) and compare rounds, not single runs.
"""
import argparse
import time

import spacy_entmem
from speed import read_texts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", default="../shared/data/gap/gap-test.tsv")
    parser.add_argument("--limit", type=int, default=800)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    nlp = spacy_entmem.load_default()
    docs = [nlp.make_doc(text) for text in read_texts(args.texts)[: args.limit]]
    for _name, component in nlp.pipeline[:-1]:
        docs = list(component.pipe(docs, batch_size=args.batch_size))
    memory = nlp.get_pipe("entity_memory")
    list(memory.pipe(docs[: args.batch_size], batch_size=args.batch_size))  # warm up
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        list(memory.pipe(docs, batch_size=args.batch_size))
        best = min(best, time.process_time() - start)
    print(f"{spacy_entmem.__file__}: entity_memory {best:.3f} CPU s for {len(docs)} documents")


if __name__ == "__main__":
    main()
