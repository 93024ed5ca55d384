"""Corpus annotation throughput: ``entmem annotate`` on one process, on two (spaCy's multiprocessing) and on
a local Dask cluster of two workers, the same corpus and the same output format, wall-clock from the
command's start (pipeline loading and cluster start-up included).

    python benchmarks/corpus_throughput.py [--texts ../shared/data/gap/gap-test.tsv] [--limit 2000]

Prints words/s per run, its ratio to the one-process run (the figure to compare across machines), and
whether each run's JSONL equals the one-process run's.
"""
import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = {
    "n_process=1": [],
    "n_process=2": ["--n-process", "2"],
    "dask, 2 workers": ["--engine", "dask", "--n-process", "2"],
}


def write_corpus(tsv: Path, limit: int, path: Path) -> int:
    with tsv.open(encoding="utf8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:][:limit]
    with path.open("w", encoding="utf8") as out:
        for row in rows:
            out.write(json.dumps({"id": row[0], "text": row[1]}) + "\n")
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", default="../shared/data/gap/gap-test.tsv")
    parser.add_argument("--limit", type=int, default=2000)
    parser.add_argument("--model", default="default")
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        n_docs = write_corpus(Path(args.texts), args.limit, corpus)
        results, reference = {}, None
        for name, options in RUNS.items():
            output = Path(tmp) / f"{name.replace(' ', '_').replace(',', '')}.jsonl"
            command = [sys.executable, "-m", "spacy_entmem", "annotate", str(corpus), "-o", str(output),
                       "--model", args.model, "--batch-size", str(args.batch_size), "--no-progress", *options]
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            seconds = time.perf_counter() - start
            records = [json.loads(line) for line in output.read_text(encoding="utf8").splitlines()]
            words = sum(r["n_tokens"] for r in records)
            reference = reference if reference is not None else records
            results[name] = {"docs": len(records), "seconds": round(seconds, 1),
                             "words_per_s": round(words / seconds), "same_output": records == reference}
        base = results["n_process=1"]["words_per_s"]
        for result in results.values():
            result["ratio_to_one_process"] = round(result["words_per_s"] / base, 2)
        print(json.dumps({"corpus": f"{args.texts} (first {n_docs} texts)", "runs": results}, indent=2))


if __name__ == "__main__":
    main()
