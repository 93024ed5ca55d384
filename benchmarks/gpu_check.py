"""The shipped pipeline on a CUDA device against the CPU, same process: identical clusters? how fast?

    python benchmarks/gpu_check.py [--docs corpus/litbank/test.spacy] [--limit 20] [--output gpu.json]

Annotates the sample texts and the first ``--limit`` documents of ``--docs`` (their text only) with the shipped
default pipeline on the CPU, then again after ``spacy.require_gpu()`` (thinc's ops on cupy, the torch modules on
CUDA), and reports per document whether the clusters are the same, the words/s of both runs and their ratio.
Needs a machine where torch and cupy see a GPU.
"""
import argparse
import json
import time
from pathlib import Path
from typing import Dict, List, Tuple

import spacy
from spacy.tokens import DocBin

import spacy_entmem
from spacy_entmem.models.memory import torch_memory

SAMPLES = Path(spacy_entmem.__file__).parent / "samples"


def clusters_of(doc) -> List[List[Tuple[int, int]]]:
    """The doc's clusters as sorted token offsets, in a canonical order."""
    found = [sorted((s.start, s.end) for s in group) for key, group in doc.spans.items()
             if key.startswith("coref_clusters")]
    return sorted(found)


def annotate(nlp, texts: List[str]) -> Tuple[List[List[List[Tuple[int, int]]]], float]:
    """Clusters per text and words per second (one warm-up text first)."""
    list(nlp.pipe(texts[:1]))
    start = time.perf_counter()
    docs = list(nlp.pipe(texts, batch_size=8))
    seconds = time.perf_counter() - start
    return [clusters_of(doc) for doc in docs], sum(len(doc) for doc in docs) / seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", default="corpus/litbank/test.spacy")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--output", default=None)
    args = parser.parse_args()
    texts = [p.read_text(encoding="utf8") for p in sorted(SAMPLES.glob("*.txt"))]
    if Path(args.docs).exists():
        vocab = spacy.blank("en").vocab
        texts += [doc.text for doc in DocBin().from_disk(args.docs).get_docs(vocab)][: args.limit]
    cpu_clusters, cpu_wps = annotate(spacy_entmem.load_default(), texts)
    spacy.require_gpu()
    gpu_nlp = spacy_entmem.load_default()
    memory = torch_memory(gpu_nlp.get_pipe("entity_memory").model)
    gpu_clusters, gpu_wps = annotate(gpu_nlp, texts)
    same = [a == b for a, b in zip(cpu_clusters, gpu_clusters)]
    result: Dict[str, object] = {
        "texts": len(texts),
        "words": sum(len(t.split()) for t in texts),
        "memory_device": str(next(memory.parameters()).device),
        "identical_clusters": sum(same),
        "different_docs": [i for i, s in enumerate(same) if not s],
        "clusters_cpu": sum(len(c) for c in cpu_clusters),
        "clusters_gpu": sum(len(c) for c in gpu_clusters),
        "cpu_words_per_s": round(cpu_wps),
        "gpu_words_per_s": round(gpu_wps),
        "ratio_gpu_to_cpu": round(gpu_wps / cpu_wps, 2),
    }
    print(json.dumps(result, indent=2))
    if args.output:
        Path(args.output).write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
