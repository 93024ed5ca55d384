"""Documents of any length: time per token and peak memory for 1k, 10k, 100k and 1M-token documents.

    python benchmarks/long_documents.py --model training/litbank_sm/model-best [--sizes 1000,10000,100000,1000000]

Each size runs in a fresh subprocess (so its peak RSS is its own): the document is real LitBank text
(the fold-0 test documents, repeated to the length), tokenized by the pipeline and run through every
component in one left-to-right pass. Reported: seconds, microseconds per token and its ratio to the
smallest size (the figure to compare across machines), peak RSS growth over the loaded pipeline, and the
output (candidates, mentions, clusters). Writes a JSON list with --output.
"""
import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path


def litbank_words(data_dir: Path, n_tokens: int):
    from spacy_entmem.corpora.litbank import read_litbank

    words = [w for record in read_litbank(data_dir, 0)["test"] for w in record.words]
    return (words * (n_tokens // len(words) + 1))[:n_tokens]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_one(model: str, n_tokens: int, data_dir: Path) -> dict:
    import spacy
    import torch
    from spacy.tokens import Doc

    import spacy_entmem  # noqa: F401

    torch.set_num_threads(1)
    nlp = spacy.load(model) if model != "default" else spacy_entmem.load_default()
    words = litbank_words(data_dir, n_tokens)
    nlp(Doc(nlp.vocab, words=words[:200]))  # warm up
    before = peak_rss_mb()
    start = time.perf_counter()
    doc = Doc(nlp.vocab, words=words)
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    seconds = time.perf_counter() - start
    log = doc._.entity_memory_log
    return {
        "tokens": len(doc), "seconds": seconds, "us_per_token": 1e6 * seconds / len(doc),
        "peak_rss_growth_mb": peak_rss_mb() - before,
        "candidates": int(len(log["entity"])) if log is not None else None,
        "mentions": len(doc.spans.get("coref_mentions", [])), "clusters": len(doc._.coref_clusters),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="default")
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data/litbank"))
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run_one(args.model, args.one, args.data_dir)))
        return
    results = []
    for size in [int(s) for s in args.sizes.split(",")]:
        out = subprocess.run([sys.executable, __file__, "--model", args.model, "--data-dir", str(args.data_dir),
                              "--one", str(size)], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{size} tokens: failed\n{out.stderr[-2000:]}", file=sys.stderr)
            continue
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        base = results[0]["us_per_token"]
        r = results[-1]
        print(f"{r['tokens']:>9,} tokens  {r['seconds']:8.1f} s  {r['us_per_token']:7.1f} us/token "
              f"(x{r['us_per_token'] / base:.2f})  peak +{r['peak_rss_growth_mb']:8.1f} MB  "
              f"{r['candidates']} candidates, {r['mentions']} mentions, {r['clusters']} clusters", flush=True)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=2), encoding="utf8")


if __name__ == "__main__":
    main()
