"""What ``max_batch_steps`` and the batch size do to speed and memory: the whole default pipeline over a corpus
with batches bounded by a document count alone (the CLI's former default, 16) and by a count and a padded-step
budget (the memory's ``max_batch_steps``), same process, alternating rounds; then the memory's own peak RSS per
setting, each in a fresh process (upstream components run first, the kernel's peak counter reset before the
memory runs).

    python benchmarks/memory_batching.py [--texts ../shared/data/gap/gap-test.tsv corpus/litbank/train.spacy]
                                         [--limit 1024] [--repeats 2]

A setting is ``BATCH_SIZE/MAX_BATCH_STEPS`` (``none``: no step budget), e.g. ``16/none`` and ``64/8192``.
Words/s are best of the repeats; the ratios to the first setting are what to compare across machines.
"""
import argparse
import json
import subprocess
import sys
import time

from long_documents import reset_peak, status_mb
from speed import read_texts

SETTINGS = ("16/none", "64/none", "16/8192", "64/8192")


def parse(setting: str):
    batch_size, steps = setting.split("/")
    return int(batch_size), None if steps == "none" else int(steps)


def load(steps):
    import spacy_entmem

    nlp = spacy_entmem.load_default()
    nlp.get_pipe("entity_memory").cfg["max_batch_steps"] = steps
    return nlp


def words_per_second(nlp, texts, batch_size: int) -> float:
    start = time.perf_counter()
    words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=batch_size))
    return words / (time.perf_counter() - start)


def memory_peak(texts_path: str, limit: int, setting: str) -> dict:
    """The entity memory's peak RSS above its start over the corpus (upstream components run beforehand)."""
    import torch

    torch.set_num_threads(1)
    batch_size, steps = parse(setting)
    nlp = load(steps)
    docs = [nlp.make_doc(text) for text in read_texts(texts_path)[:limit]]
    with nlp.select_pipes(disable=["entity_memory", "pronoun_resolver"]):
        for _name, proc in nlp.pipeline:
            docs = list(proc.pipe(docs, batch_size=batch_size))
    memory = nlp.get_pipe("entity_memory")
    batches = []
    predict = memory.predict
    memory.predict = lambda batch: batches.append(len(batch)) or predict(batch)
    reset_peak()
    before = status_mb("VmRSS")
    for _doc in memory.pipe(docs, batch_size=batch_size):
        pass
    return {"memory_peak_mb": status_mb("VmHWM") - before, "memory_batches": len(batches),
            "largest_batch": max(batches)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", nargs="+", default=["../shared/data/gap/gap-test.tsv", "corpus/litbank/train.spacy"])
    parser.add_argument("--limit", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS))
    parser.add_argument("--peak", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peak:
        print(json.dumps(memory_peak(args.peak[0], int(args.peak[1]), args.peak[2])))
        return
    import torch

    torch.set_num_threads(1)
    pipelines = {setting: load(parse(setting)[1]) for setting in args.settings}
    report = {}
    for path in args.texts:
        texts = read_texts(path)[: args.limit]
        for setting, nlp in pipelines.items():
            words_per_second(nlp, texts[:20], parse(setting)[0])  # warm up
        rounds = [{setting: words_per_second(nlp, texts, parse(setting)[0]) for setting, nlp in pipelines.items()}
                  for _ in range(args.repeats)]
        best = {setting: max(r[setting] for r in rounds) for setting in args.settings}
        first = args.settings[0]
        rows = {}
        for setting in args.settings:
            out = subprocess.run([sys.executable, __file__, "--peak", path, str(args.limit), setting],
                                 capture_output=True, text=True, check=True)
            rows[setting] = {"words_per_s": round(best[setting]), "ratio": round(best[setting] / best[first], 2),
                             "ratio_per_round": [round(r[setting] / r[first], 2) for r in rounds],
                             **json.loads(out.stdout.strip().splitlines()[-1])}
        report[path] = {"documents": len(texts), "settings": rows}
        print(json.dumps({path: report[path]}, indent=1), flush=True)


if __name__ == "__main__":
    main()
