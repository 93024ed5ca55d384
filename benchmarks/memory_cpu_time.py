"""CPU time of a pipeline's ``entity_memory`` alone (best of 3 passes), on GAP paragraphs whose tok2vec and
span finder ran first.

    python benchmarks/memory_cpu_time.py [--model default] [--model training/width/w100/model-best]
                                         [--texts ../shared/data/gap/gap-test.tsv] [--limit 800]

Process CPU time, not wall time: on a shared machine it varies less. With several ``--model``s (pipelines
whose tok2vec and span finder are the default's, e.g. those of configs/memory_width.cfg) every memory reads
the same candidates, the memories run in alternating rounds, and each is reported as a ratio to the first. To
compare two versions of the code, run it alternately in each checkout (``git worktree add ../old <commit>``,
then ``cd ../old && PYTHONPATH=. python benchmarks/memory_cpu_time.py``) and compare rounds, not single runs.
"""
import argparse
import time

from speed import read_texts, upstream_components

from spacy_entmem.cli import load_pipeline


def memory_cpu_seconds(memory, docs, batch_size: int) -> float:
    """Process CPU seconds of one pass of ``memory`` over ``docs``."""
    start = time.process_time()
    list(memory.pipe(docs, batch_size=batch_size))
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", action="append", help="pipeline ('default' or a directory); repeatable")
    parser.add_argument("--texts", default="../shared/data/gap/gap-test.tsv")
    parser.add_argument("--limit", type=int, default=800)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    models = args.model or ["default"]
    pipelines = [load_pipeline(model) for model in models]
    first = pipelines[0]
    docs = [first.make_doc(text) for text in read_texts(args.texts)[: args.limit]]
    for _name, component in upstream_components(first):  # the candidates, from the first pipeline
        docs = list(component.pipe(docs, batch_size=args.batch_size))
    memories = [nlp.get_pipe("entity_memory") for nlp in pipelines]
    for memory in memories:
        list(memory.pipe(docs[: args.batch_size], batch_size=args.batch_size))  # warm up
    best = [float("inf")] * len(memories)
    for _ in range(3):
        for i, memory in enumerate(memories):
            best[i] = min(best[i], memory_cpu_seconds(memory, docs, args.batch_size))
    for model, seconds in zip(models, best):
        print(f"{model}: entity_memory {seconds:.3f} CPU s for {len(docs)} documents ({seconds / best[0]:.2f}x the first)")


if __name__ == "__main__":
    main()
