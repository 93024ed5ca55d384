"""Scoring speed of CoreLM with and without the Entity-Gating layer, same process, same texts, interleaved.

    python benchmarks/corelm_speed.py [--docs corpus/litbank/test.spacy] [--limit 3] [--repeats 2]

Reads each doc's pieces in the base's strided windows (the component's path: base + gating + LM head) with
an untrained gating layer (its cost does not depend on its weights) and with the base LM alone, alternating
the two ``--repeats`` times, and reports words/s of each and their ratio.
"""
import argparse
import json
import time

import spacy
import torch
from spacy.tokens import DocBin

from spacy_entmem.nn.lm.base_lm import SMOLLM2, load_base_lm
from spacy_entmem.nn.lm.corelm import EntityGatedLM, read_entities_of
from spacy_entmem.pipeline.lm_pieces import piece_document


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", default="corpus/litbank/test.spacy")
    parser.add_argument("--limit", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--base", default=SMOLLM2[0])
    parser.add_argument("--gguf-file", default=SMOLLM2[1])
    args = parser.parse_args()
    torch.set_num_threads(1)
    base, tokenizer = load_base_lm(args.base, args.gguf_file)
    docs = list(DocBin().from_disk(args.docs).get_docs(spacy.blank("en").vocab))[: args.limit]
    pieces = [piece_document(doc, tokenizer, min_mentions=2) for doc in docs]
    inputs = [(torch.from_numpy(p.ids), read_entities_of(torch.from_numpy(p.entities))) for p in pieces]
    words = sum(p.n_words for p in pieces)
    systems = {"gated": EntityGatedLM(base, tokenizer.bos_token_id).eval(),
               "base": EntityGatedLM(base, tokenizer.bos_token_id, gated=False).eval()}
    seconds = {name: 0.0 for name in systems}
    with torch.no_grad():
        for _ in range(args.repeats):
            for name, lm in systems.items():
                start = time.perf_counter()
                for ids, read in inputs:
                    lm.read_document(ids, read)
                seconds[name] += time.perf_counter() - start
    result = {"docs": len(docs), "words": words, "pieces": int(sum(len(p.ids) for p in pieces)),
              **{f"{name}_words_per_s": round(words * args.repeats / s) for name, s in seconds.items()},
              "gated_to_base": round(seconds["base"] / seconds["gated"], 3)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
