"""CoreLM's comparison (Table 1 and 2) with a frozen base LM: zero-shot base, base + gating layer fine-tuned
without entities, base + gating fine-tuned with gold clusters (evaluated with gold clusters, with our
``entity_memory``'s clusters, and with none), on LitBank + GUM test, WikiText-2 and LAMBADA.

The base is frozen, so its pre-norm states are computed once per text (``states``) and every system reads
them: the systems differ only in the gating layer and the entity ids, all in one run with one tokenizer.

    python -m spacy_entmem.research.corelm_experiment states train corpus/corelm/train.pt --shard 0/2
    python -m spacy_entmem.research.corelm_experiment entities test corpus/corelm/test-entities.pt
    python -m spacy_entmem.research.corelm_experiment train corpus/corelm/train*.pt --entities gold ...
    python -m spacy_entmem.research.corelm_experiment evaluate ...
"""
import argparse
import json
import math
import random
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy
import spacy
import torch
from spacy.tokens import Doc, DocBin

from ..corpora.zero_shot import lambada_passages, wikitext_articles
from ..nn.lm.base_lm import SMOLLM2, load_base_lm
from ..nn.lm.corelm import EntityGatedLM, base_states, block_windows, read_entities_of
from ..pipeline.lm_pieces import piece_document
from .corelm_finetune import summarise

CORPORA = {
    "train": ["corpus/litbank/train.spacy", "corpus/gum_rd/train.spacy"],
    "dev": ["corpus/litbank/dev.spacy", "corpus/gum_rd/dev.spacy"],
    "test": ["corpus/litbank/test.spacy", "corpus/gum_rd/test.spacy"],
}


def gold_docs(name: str) -> List[Doc]:
    """The docs (with their gold clusters) of one of ``CORPORA``."""
    vocab = spacy.blank("en").vocab
    return [doc for path in CORPORA[name] for doc in DocBin().from_disk(path).get_docs(vocab)]


def corpus_texts(name: str, wikitext_articles_limit: int, lambada_limit: int,
                 data_dir: Path = Path("../shared/data")) -> Tuple[List[str], List[dict]]:
    """(texts, per text what its scoring needs: n_words; for LAMBADA the target's first character)."""
    if name in CORPORA:
        docs = gold_docs(name)
        return [d.text for d in docs], [{"n_words": sum(not t.is_space for t in d)} for d in docs]
    if name == "wikitext":
        articles = wikitext_articles(data_dir / "wikitext-2" / "test.txt", wikitext_articles_limit)
        return [a.text for a in articles], [{"n_words": a.n_words} for a in articles]
    if name == "lambada":
        passages = lambada_passages(data_dir / "lambada" / "lambada_test.jsonl", lambada_limit)
        return ([p.context + " " + p.target for p in passages],
                [{"n_words": 1, "target_start": len(p.context) + 1} for p in passages])
    raise ValueError(f"[spacy-entmem] unknown corpus {name!r}: one of {', '.join([*CORPORA, 'wikitext', 'lambada'])}")


def cmd_states(args) -> None:
    """Pieces and the frozen base's pre-norm states (one tensor per scored block) of every text of a shard."""
    torch.set_num_threads(1)
    base, tokenizer = load_base_lm(args.base, args.gguf_file)
    texts, info = corpus_texts(args.corpus, args.wikitext_articles, args.lambada, args.data_dir)
    index, n_shards = (int(x) for x in args.shard.split("/"))
    out, start = [], time.perf_counter()
    with torch.no_grad():
        for i in range(index, len(texts), n_shards):
            ids = torch.tensor(tokenizer(texts[i], add_special_tokens=False)["input_ids"], dtype=torch.long)
            blocks = [b.clone() for _, _, b in base_states(base, ids, tokenizer.bos_token_id, args.window, args.stride)]
            out.append({"text_index": i, "ids": ids, "blocks": blocks, **info[i]})
            n = sum(len(o["ids"]) for o in out)
            print(f"text {i}: {len(ids)} pieces; {n} so far, {n / (time.perf_counter() - start):.0f} pieces/s", flush=True)
    torch.save({"corpus": args.corpus, "window": args.window, "stride": args.stride, "texts": out}, args.output)


def cmd_entities(args) -> None:
    """Per text the entity of each piece: gold clusters (DocBin corpora) and our entity_memory's clusters."""
    import spacy_entmem

    _, tokenizer = load_base_lm(args.base, args.gguf_file)
    out: Dict[str, List[numpy.ndarray]] = {}
    if args.corpus in CORPORA:
        gold = gold_docs(args.corpus)
        out["gold"] = [piece_document(doc, tokenizer, min_mentions=2).entities for doc in gold]
        texts = [doc.text for doc in gold]
    else:
        texts, _ = corpus_texts(args.corpus, args.wikitext_articles, args.lambada, args.data_dir)
    nlp = spacy_entmem.load_default()
    start = time.perf_counter()
    docs = list(nlp.pipe(texts, batch_size=16))
    print(f"entity_memory: {len(docs)} texts, {sum(len(d) for d in docs) / (time.perf_counter() - start):.0f} words/s")
    out["model"] = [piece_document(doc, tokenizer, min_mentions=2).entities for doc in docs]
    out["n_clusters_model"] = [len([k for k in d.spans if k.startswith("coref_clusters")]) for d in docs]
    torch.save(out, args.output)


def read_cache(path) -> dict:
    """A file this module wrote (states, entity ids as numpy arrays, checkpoints): trusted, so not weights-only."""
    return torch.load(path, weights_only=False)


def load_states(paths: List[str]) -> List[dict]:
    texts = [t for path in paths for t in read_cache(path)["texts"]]
    return sorted(texts, key=lambda t: t["text_index"])


def text_entities(text: dict, entities: Optional[List[numpy.ndarray]]) -> torch.Tensor:
    if entities is None:
        return torch.zeros(len(text["ids"]), dtype=torch.long)
    values = torch.from_numpy(entities[text["text_index"]])
    if len(values) != len(text["ids"]):
        raise ValueError(f"[spacy-entmem] text {text['text_index']}: {len(values)} entity ids for {len(text['ids'])} pieces")
    return values


def text_log_probs(lm: EntityGatedLM, text: dict, entities: torch.Tensor, train: bool = False, optimizer=None,
                   scored_from: int = 0) -> Tuple[torch.Tensor, int]:
    """(log p of the pieces from ``scored_from`` on, how many of them are the argmax) from a text's cached
    blocks. Training: one step per block, the entity store carried over without gradient."""
    ids = text["ids"]
    windows = block_windows(len(ids), 10 ** 9, len(text["blocks"][0]) if text["blocks"] else 1)
    blocks = ((first, end, states) for (_, first, end), states in zip(windows, text["blocks"]))

    def step(logp: torch.Tensor, store):
        optimizer.zero_grad()
        (-logp.mean()).backward()
        optimizer.step()
        return store.detached() if store is not None else None

    with torch.set_grad_enabled(train):
        return lm.score_blocks(blocks, ids, read_entities_of(entities), scored_from, step if train else None)


def build_lm(args, gated: bool) -> EntityGatedLM:
    base, tokenizer = load_base_lm(args.base, args.gguf_file)
    return EntityGatedLM(base, tokenizer.bos_token_id, n_heads=args.heads, delta=args.delta, dropout=args.dropout,
                         gated=gated)


def cmd_train(args) -> None:
    """Train the gating layer on cached states (gold entities, or none) and keep the best on dev."""
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    lm = build_lm(args, gated=True)
    train = load_states(args.train)
    train_entities = read_cache(args.train_entities)["gold"] if args.entities == "gold" else None
    dev_entities = read_cache(args.dev_entities)["gold"] if args.entities == "gold" else None
    optimizer = torch.optim.AdamW([p for p in lm.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    log, best, order = [], math.inf, list(range(len(train)))
    rng = random.Random(args.seed)
    for epoch in range(args.epochs):
        rng.shuffle(order)
        lm.train()
        start, total, n = time.perf_counter(), 0.0, 0
        for step, i in enumerate(order, start=1):
            if args.max_pieces and n >= args.max_pieces:
                break
            logp, _ = text_log_probs(lm, train[i], text_entities(train[i], train_entities), train=True,
                                     optimizer=optimizer)
            total, n = total + float(logp.sum()), n + len(logp)
            if step % 20 == 0:
                print(f"epoch {epoch} text {step}/{len(order)}: train piece ppl {math.exp(-total / n):.2f}, "
                      f"{n / (time.perf_counter() - start):.0f} pieces/s", flush=True)
        lm.eval()
        dev_ppl = corpus_perplexity(lm, load_states(args.dev), dev_entities)["piece_perplexity"]
        log.append({"epoch": epoch, "train_piece_ppl": math.exp(-total / n), "dev_piece_ppl": dev_ppl})
        print(json.dumps(log[-1]), flush=True)
        if dev_ppl < best:
            best = dev_ppl
            torch.save({"gating": lm.gating.state_dict(), "config": vars(args), "log": log}, args.output)


def corpus_perplexity(lm: EntityGatedLM, texts: List[dict], entities: Optional[List[numpy.ndarray]]) -> Dict[str, float]:
    with torch.no_grad():
        return summarise((*text_log_probs(lm, t, text_entities(t, entities)), t["n_words"]) for t in texts)


def target_pieces(texts: List[dict], tokenizer, raw: List[str]) -> List[int]:
    """Per LAMBADA text, the index of the first piece of its target word."""
    firsts = []
    for text in texts:
        offsets = tokenizer(raw[text["text_index"]], add_special_tokens=False,
                            return_offsets_mapping=True)["offset_mapping"]
        firsts.append(next(i for i, (_, end) in enumerate(offsets) if end > text["target_start"]))
    return firsts


def lambada_scores(lm: EntityGatedLM, texts: List[dict], entities, firsts: List[int]) -> Dict[str, float]:
    """Perplexity and accuracy of the target word (``summarise``; ``firsts``: ``target_pieces``)."""
    with torch.no_grad():
        return summarise(((*text_log_probs(lm, t, text_entities(t, entities), scored_from=first), 1)
                          for t, first in zip(texts, firsts)), lambada=True)


def cmd_evaluate(args) -> None:
    """Every ``--system NAME CHECKPOINT ENTITIES`` (CHECKPOINT "-": the base LM alone; ENTITIES none, gold or
    model) on every corpus of ``--corpora``; one JSON line per system and corpus."""
    torch.set_num_threads(1)
    _, tokenizer = load_base_lm(args.base, args.gguf_file)
    states = {corpus: load_states(sorted(str(p) for p in Path(args.cache).glob(f"{corpus}-[0-9]*.pt")))
              for corpus in args.corpora}
    entities = {corpus: read_cache(Path(args.cache) / f"{corpus}-entities.pt") for corpus in args.corpora}
    firsts = None
    if "lambada" in args.corpora:  # where each target starts: the same for every system
        raw, _ = corpus_texts("lambada", args.wikitext_articles, args.lambada, args.data_dir)
        firsts = target_pieces(states["lambada"], tokenizer, raw)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    with open(args.output, "a", encoding="utf8") as out:
        for name, checkpoint, source in args.system:
            lm = build_lm(args, gated=checkpoint != "-")
            if checkpoint != "-":
                lm.gating.load_state_dict(read_cache(checkpoint)["gating"])
            lm.eval()
            for corpus in args.corpora:
                if source != "none" and source not in entities[corpus]:
                    continue  # no gold clusters for this corpus
                ents = entities[corpus].get(source)
                start = time.perf_counter()
                if corpus == "lambada":
                    result = lambada_scores(lm, states[corpus], ents, firsts)
                else:
                    result = corpus_perplexity(lm, states[corpus], ents)
                record = {"system": name, "checkpoint": checkpoint, "entities": source, "corpus": corpus, **result,
                          "seconds": time.perf_counter() - start}
                print(json.dumps(record), flush=True)
                out.write(json.dumps(record) + "\n")


SYSTEM_TITLES = {("base", "none"): "base LM zero-shot",
                 ("fine-tuned", "none"): "base + gating fine-tuned without entities",
                 ("corelm", "gold"): "+ entity gating, gold clusters",
                 ("corelm", "model"): "+ entity gating, clusters from our `entity_memory`",
                 ("corelm", "none"): "+ entity gating, no clusters"}
PAPER_ROWS = ["| GPT-2 small zero-shot (paper) | 66.19 (GUMBY) | 30.63 | 26.49 / 46.67 % |",
              "| GPT-2 + fine-tuning (paper) | 52.60 (GUMBY) | 32.36 | 28.93 / 46.63 % |",
              "| GPT-2 + CoreLM + fine-tuning (paper) | 46.97 (GUMBY) | 31.80 | 26.21 / 48.11 % |",
              "| … + coreference from a model (paper) | | | — / 48.39 % |"]


def results_table(records: List[dict], titles: Optional[Dict[Tuple[str, str], str]] = None) -> str:
    """Markdown: one row per (system, entities) of ``records`` (lines without a corpus, such as training logs,
    are skipped), titled by ``titles`` (default ``SYSTEM_TITLES``); per-word perplexities and LAMBADA target
    perplexity / accuracy."""
    titles = SYSTEM_TITLES if titles is None else titles
    cells: Dict[Tuple[str, str], Dict[str, str]] = {}
    for r in (r for r in records if "corpus" in r):
        row = cells.setdefault((r["system"], r["entities"]), {})
        if r["corpus"] == "lambada":
            row["lambada"] = f"{r['lambada_perplexity']:.2f} / {100 * r['lambada_accuracy']:.2f} %"
        else:
            row[r["corpus"]] = f"{r['word_perplexity']:.2f}"
    lines = ["| system | LitBank+GUM test ppl | WikiText-2 test ppl | LAMBADA ppl / acc |", "|---|---:|---:|---:|"]
    for key, row in cells.items():
        title = titles.get(key, f"{key[0]} ({key[1]})")
        lines.append(f"| {title} | {row.get('test', '')} | {row.get('wikitext', '')} | {row.get('lambada', '')} |")
    return "\n".join(lines + PAPER_ROWS) + "\n"


def write_table(results: Path, output: Path, titles: Optional[Dict[Tuple[str, str], str]] = None) -> None:
    """The markdown table of a results file (one JSON object per line), printed and written to ``output``."""
    records = [json.loads(line) for line in Path(results).read_text(encoding="utf8").splitlines() if line.strip()]
    table = results_table(records, titles)
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    Path(output).write_text(table, encoding="utf8")
    print(table)


def cmd_table(args) -> None:
    write_table(args.results, args.output)


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub):
        sub.add_argument("--base", default=SMOLLM2[0])
        sub.add_argument("--gguf-file", default=SMOLLM2[1])
        sub.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
        sub.add_argument("--wikitext-articles", type=int, default=15)
        sub.add_argument("--lambada", type=int, default=1000)
        sub.add_argument("--heads", type=int, default=9)
        sub.add_argument("--delta", type=float, default=0.5)
        sub.add_argument("--dropout", type=float, default=0.1)
        return sub

    states = common(commands.add_parser("states"))
    states.add_argument("corpus")
    states.add_argument("output")
    states.add_argument("--shard", default="0/1")
    states.add_argument("--window", type=int, default=512)
    states.add_argument("--stride", type=int, default=384)
    entities = common(commands.add_parser("entities"))
    entities.add_argument("corpus")
    entities.add_argument("output")
    train = common(commands.add_parser("train"))
    train.add_argument("output")
    train.add_argument("--train", nargs="+", required=True)
    train.add_argument("--dev", nargs="+", required=True)
    train.add_argument("--train-entities")
    train.add_argument("--dev-entities")
    train.add_argument("--entities", choices=("gold", "none"), default="gold")
    train.add_argument("--epochs", type=int, default=1)
    train.add_argument("--lr", type=float, default=1e-4)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--max-pieces", type=int, default=0, help="per epoch (0: every text)")
    evaluate = common(commands.add_parser("evaluate"))
    evaluate.add_argument("output")
    evaluate.add_argument("--cache", default="corpus/corelm")
    evaluate.add_argument("--corpora", nargs="+", default=["test", "wikitext", "lambada"])
    evaluate.add_argument("--system", nargs=3, action="append", required=True, metavar=("NAME", "CHECKPOINT", "ENTITIES"))
    table = commands.add_parser("table")
    table.add_argument("results")
    table.add_argument("--output", default="metrics/corelm/table.md")
    args = parser.parse_args(argv)
    {"states": cmd_states, "entities": cmd_entities, "train": cmd_train, "evaluate": cmd_evaluate, "table": cmd_table}[args.command](args)


if __name__ == "__main__":
    main()
