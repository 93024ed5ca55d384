"""Documents of any length: time per token and peak memory for 1k, 10k, 100k and 1M-token documents.

    python benchmarks/long_documents.py --model training/litbank_sm/model-best [--sizes 1000,10000,100000,1000000]
    python benchmarks/long_documents.py --model default --add-lm training/dntm/both-s0/model-best

``--add-lm`` appends the entity_lm_scorer of a trained pipeline, which then scores the document with the
clusters the memory predicted (reported like every other component).

Each size runs in a fresh subprocess: the document is real LitBank text (the fold-0 test documents,
repeated to the length) built from its words and run through every component in one left-to-right pass.
Reported: seconds, microseconds per token and its ratio to the smallest size (the figure to compare across
machines), and per component its seconds and its own peak memory: the kernel's peak-RSS counter is reset
before each component (/proc/self/clear_refs, Linux) and read after it, minus the RSS before it. Also the
output (candidates, mentions, clusters) and the size of the memory log. Writes a JSON list with --output.
"""
import argparse
import ctypes
import gc
import json
import subprocess
import sys
import time
from pathlib import Path


def litbank_words(data_dir: Path, n_tokens: int):
    from spacy_entmem.corpora.litbank import read_litbank

    words = [w for record in read_litbank(data_dir, 0)["test"] for w in record.words]
    return (words * (n_tokens // len(words) + 1))[:n_tokens]


def status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def reset_peak() -> None:
    """Give freed heap memory back to the system, then reset the peak-RSS counter."""
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    Path("/proc/self/clear_refs").write_text("5")


def run_one(model: str, n_tokens: int, data_dir: Path, lm: str = "") -> dict:
    import spacy
    import torch
    from spacy.tokens import Doc

    import spacy_entmem  # noqa: F401

    torch.set_num_threads(1)
    nlp = spacy.load(model) if model != "default" else spacy_entmem.load_default()
    if lm:
        nlp.add_pipe("entity_lm_scorer", source=spacy.load(lm))
    words = litbank_words(data_dir, n_tokens)
    nlp(Doc(nlp.vocab, words=words[:200]))  # warm up
    doc = Doc(nlp.vocab, words=words)
    components, process_peak = {}, status_mb("VmRSS")
    for name, proc in nlp.pipeline:
        reset_peak()
        before = status_mb("VmRSS")
        start = time.perf_counter()
        doc = proc(doc)
        components[name] = {"seconds": time.perf_counter() - start, "peak_mb": status_mb("VmHWM") - before}
        process_peak = max(process_peak, status_mb("VmHWM"))
    seconds = sum(c["seconds"] for c in components.values())
    log = doc._.entity_memory_log
    return {
        "tokens": len(doc), "seconds": seconds, "us_per_token": 1e6 * seconds / len(doc),
        "process_peak_rss_mb": process_peak,
        "components": components,
        "log_mb": sum(a.nbytes for a in log.values()) / 2 ** 20 if log is not None else None,
        "candidates": int(len(log["entity"])) if log is not None else None,
        "mentions": len(doc.spans.get("coref_mentions", [])), "clusters": len(doc._.coref_clusters),
        "perplexity": doc._.perplexity if lm else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="default")
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data/litbank"))
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--add-lm", default="", help="A trained pipeline whose entity_lm_scorer is appended")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run_one(args.model, args.one, args.data_dir, args.add_lm)))
        return
    results = []
    for size in [int(s) for s in args.sizes.split(",")]:
        out = subprocess.run([sys.executable, __file__, "--model", args.model, "--data-dir", str(args.data_dir),
                              "--add-lm", args.add_lm, "--one", str(size)], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{size} tokens: failed\n{out.stderr[-2000:]}", file=sys.stderr)
            continue
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        base = results[0]["us_per_token"]
        r = results[-1]
        parts = "  ".join(f"{name} {c['seconds']:.1f} s +{c['peak_mb']:.0f} MB" for name, c in r["components"].items())
        print(f"{r['tokens']:>9,} tokens  {r['seconds']:8.1f} s  {r['us_per_token']:7.1f} us/token  "
              f"process peak {r['process_peak_rss_mb']:,.0f} MB  "
              f"(x{r['us_per_token'] / base:.2f})  [{parts}]  log {r['log_mb']:.1f} MB  "
              f"{r['candidates']} candidates, {r['mentions']} mentions, {r['clusters']} clusters", flush=True)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=2), encoding="utf8")


if __name__ == "__main__":
    main()
