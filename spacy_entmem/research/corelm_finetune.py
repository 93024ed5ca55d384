"""CoreLM fine-tuned as the paper does (its Appendix A), meant for a GPU: the base LM's transformer blocks
frozen, its input embeddings and LM head (tied in SmolLM2, as in GPT-2) trained *through* them together with the
Entity-Gating layer; against the base fine-tuned the same way without the layer, in one run, one tokenizer.

``corelm_experiment`` keeps the whole base frozen and caches its states, which a CPU can afford. Training the
embeddings needs the backward pass through every block of the base for every window; that is this module.

    python -m spacy_entmem.research.corelm_finetune export corpus/corelm/finetune.pt        # needs spaCy
    python -m spacy_entmem.research.corelm_finetune run corpus/corelm/finetune.pt metrics/corelm/finetune.jsonl
    python -m spacy_entmem.research.corelm_finetune table metrics/corelm/finetune.jsonl

``export`` packs what ``run`` reads from the caches of ``corelm_experiment states`` / ``entities`` (piece ids,
entity ids per piece, LAMBADA's target positions) into one small file. ``run`` needs torch and transformers
only (and ``gguf`` for a GGUF base), so it also runs where spaCy is not installed: with an empty
``spacy_entmem/__init__.py`` beside copies of ``spacy_entmem/nn`` and this file on ``PYTHONPATH``.

Systems, in this order (each result is one JSON line, written as soon as it is measured):
  ``base``: the base LM zero-shot; ``fine-tuned``: embeddings + head trained, no layer, no entities (the paper's
  "GPT2 + Fine-Tuning"); ``corelm``: embeddings + head + gating layer trained with gold clusters, evaluated with
  gold clusters, with our ``entity_memory``'s and with none; ``corelm-no-entities``: the same parameters trained
  without entities (a control: what the layer gains without reading any entity).
Optimiser as the paper: Rectified Adam, linear warm-up then linear decay; one step per document (the entity
store carries its gradient through the document's windows). The layer starts as the identity (its output norms'
gains at zero), which the paper's learning rate of 1e-5 would barely move in our few hundred steps, so the layer
has its own rate (``--gating-lr``). Each system keeps its epoch with the best dev piece perplexity.
"""
import argparse
import json
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

import numpy
import torch

from ..nn.lm.base_lm import SMOLLM2, load_base_lm
from ..nn.lm.corelm import EntityGatedLM, read_entities_of

# per corpus, the entity sources the run reads (train / dev: gold for the gated training)
EXPORTED_SOURCES = {"train": ("gold",), "dev": ("gold",), "test": ("gold", "model"), "wikitext": ("model",),
                    "lambada": ("model",)}
EVALUATED = ("test", "wikitext", "lambada")


@dataclass
class Text:
    """One document: piece ids, its number of words (the perplexity's denominator), entity ids per piece by
    source, and (LAMBADA) the first piece of the target word."""

    ids: torch.Tensor
    n_words: int
    entities: Dict[str, torch.Tensor]
    first_scored: int = 0

    def read_entities(self, source: str) -> torch.Tensor:
        """What the position predicting each piece has read (``none``: no entity anywhere)."""
        if source == "none":
            return torch.zeros(len(self.ids), dtype=torch.long)
        return read_entities_of(self.entities[source].long())


def cmd_export(args) -> None:
    """One file with every corpus's pieces, words, entity ids and LAMBADA targets, from the experiment's caches."""
    from .corelm_experiment import corpus_texts, load_states, read_cache, target_pieces  # spaCy side

    cache, out = Path(args.cache), {}
    _, tokenizer = load_base_lm(args.base, args.gguf_file)
    for corpus, sources in EXPORTED_SOURCES.items():
        texts = load_states(sorted(str(p) for p in cache.glob(f"{corpus}-[0-9]*.pt")))
        if not texts:
            raise ValueError(f"[spacy-entmem] no cached states of {corpus!r} in {cache}: run corelm-states first")
        entities = read_cache(cache / f"{corpus}-entities.pt")
        firsts = [0] * len(texts)
        if corpus == "lambada":
            raw, _ = corpus_texts("lambada", args.wikitext_articles, args.lambada, args.data_dir)
            firsts = target_pieces(texts, tokenizer, raw)
        packed = []
        for text, first in zip(texts, firsts):
            ids = text["ids"].numpy().astype(numpy.int32)
            ents = {s: numpy.asarray(entities[s][text["text_index"]], dtype=numpy.int32) for s in sources}
            for source, values in ents.items():
                if len(values) != len(ids):
                    raise ValueError(f"[spacy-entmem] {corpus} text {text['text_index']}: {len(values)} {source} "
                                     f"entity ids for {len(ids)} pieces")
            packed.append({"ids": ids, "n_words": text["n_words"], "entities": ents, "first_scored": first})
        out[corpus] = packed
        print(f"{corpus}: {len(packed)} texts, {sum(len(p['ids']) for p in packed)} pieces", flush=True)
    torch.save({"base": args.base, "gguf_file": args.gguf_file, "corpora": out}, args.output)


def load_export(path, limit: int = 0) -> Dict[str, List[Text]]:
    """The corpora of an ``export`` file (its own file: trusted, so not weights-only); ``limit`` texts each."""
    corpora = torch.load(path, weights_only=False)["corpora"]
    return {name: [Text(torch.from_numpy(t["ids"]).long(), t["n_words"],
                        {s: torch.from_numpy(v) for s, v in t["entities"].items()}, t["first_scored"])
                   for t in (texts[:limit] if limit else texts)]
            for name, texts in corpora.items()}


def set_trainable(lm: EntityGatedLM, trainable: str) -> List[dict]:
    """Freeze the base except its embeddings and LM head (``embeddings``, the paper) or nothing (``all``); the
    optimiser's parameter groups: the base's trainable tensors (once each: tied ones are one tensor), the layer's."""
    for p in lm.base.parameters():
        p.requires_grad_(trainable == "all")
    for module in (lm.base.get_input_embeddings(), lm.base.get_output_embeddings()):
        module.weight.requires_grad_(True)
    seen, base_params = set(), []
    for p in lm.base.parameters():
        if p.requires_grad and id(p) not in seen:
            seen.add(id(p))
            base_params.append(p)
    groups = [{"params": base_params, "name": "base"}]
    if lm.gating is not None:
        groups.append({"params": list(lm.gating.parameters()), "name": "gating"})
    return groups


def trainable_state(lm: EntityGatedLM) -> Dict[str, torch.Tensor]:
    """A CPU copy of the tensors that training changes (to restore the best epoch)."""
    return {name: p.detach().cpu().clone() for name, p in lm.named_parameters() if p.requires_grad}


def summarise(scored: Iterable[Tuple[torch.Tensor, int, int]], lambada: bool = False) -> Dict[str, float]:
    """From (log p of a text's scored pieces, how many of them are the argmax, its words) per text: word and
    piece perplexity; LAMBADA (``lambada``): the target word's perplexity and accuracy (the word counts as
    predicted when every piece of it is the argmax given the true pieces before it)."""
    total, n_pieces, n_words, correct, n_texts = 0.0, 0, 0, 0, 0
    for logp, n_argmax, words in scored:
        total, n_pieces, n_words = total + float(logp.sum()), n_pieces + len(logp), n_words + words
        correct, n_texts = correct + (n_argmax == len(logp)), n_texts + 1
    if lambada:
        return {"lambada_perplexity": math.exp(-total / n_texts), "lambada_accuracy": correct / n_texts,
                "passages": n_texts}
    return {"word_perplexity": math.exp(-total / n_words), "piece_perplexity": math.exp(-total / n_pieces),
            "pieces": n_pieces, "words": n_words}


def evaluate(lm: EntityGatedLM, texts: List[Text], source: str, lambada: bool = False) -> Dict[str, float]:
    """``summarise`` of ``texts`` read with the entities of ``source``."""
    lm.eval()
    with torch.no_grad():
        return summarise(((*lm.score(t.ids, t.read_entities(source), t.first_scored), t.n_words) for t in texts),
                         lambada)


def train(lm: EntityGatedLM, corpora: Dict[str, List[Text]], source: str, args, report) -> List[dict]:
    """Fine-tune ``lm``'s trainable parameters on ``train`` (entities of ``source``), keep the best dev epoch."""
    groups = set_trainable(lm, args.trainable)
    for group in groups:
        group["lr"] = args.gating_lr if group["name"] == "gating" else args.base_lr
    optimizer = torch.optim.RAdam(groups)
    texts = corpora["train"]
    total_steps = args.epochs * len(texts)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / args.warmup) * max(0.0, 1.0 - s / total_steps))
    params = [p for group in groups for p in group["params"]]
    rng, order, log = random.Random(args.seed), list(range(len(texts))), []
    best, best_state, start = math.inf, None, time.perf_counter()
    for epoch in range(args.epochs):
        rng.shuffle(order)
        lm.train()
        epoch_start, total, n = time.perf_counter(), 0.0, 0
        for i in order:
            text = texts[i]
            logp = lm.read_document(text.ids, text.read_entities(source))
            optimizer.zero_grad()
            (-logp.mean()).backward()
            torch.nn.utils.clip_grad_norm_(params, args.clip)
            optimizer.step()
            schedule.step()
            total, n = total + float(logp.detach().sum()), n + len(logp)
        dev = evaluate(lm, corpora["dev"], source)
        seconds = time.perf_counter() - epoch_start
        log.append({"epoch": epoch, "train_piece_ppl": math.exp(-total / n), "dev_piece_ppl": dev["piece_perplexity"],
                    "seconds": seconds, "train_pieces_per_s": n / seconds})
        report({"training": log[-1]})
        if dev["piece_perplexity"] < best:
            best, best_state = dev["piece_perplexity"], trainable_state(lm)
        if args.train_minutes and (time.perf_counter() - start + seconds) / 60 > args.train_minutes:
            break  # the next epoch would not end within the budget
    with torch.no_grad():
        named = dict(lm.named_parameters())
        for name, value in best_state.items():
            named[name].copy_(value.to(named[name].device))
    return log


def cmd_run(args) -> None:
    """Every system of the module docstring, trained and evaluated in one process."""
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = not args.no_tf32
    corpora = load_export(args.export, args.limit)
    base, tokenizer = load_base_lm.__wrapped__(args.base, args.gguf_file)  # its own copy: this run trains it
    base.to(args.device)
    initial = {k: v.detach().clone() for k, v in base.state_dict().items()}  # each system starts from the base
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    out = open(args.output, "a", encoding="utf8")

    def report(record: dict) -> None:
        line = json.dumps({**record, "run": args.run_name})
        print(line, flush=True)
        out.write(line + "\n")
        out.flush()

    def evaluated(system: str, lm: EntityGatedLM, sources: Tuple[str, ...]) -> None:
        for corpus in EVALUATED:
            for source in sources:
                if source != "none" and source not in corpora[corpus][0].entities:
                    continue
                start = time.perf_counter()
                result = evaluate(lm, corpora[corpus], source, lambada=corpus == "lambada")
                report({"system": system, "entities": source, "corpus": corpus, **result,
                        "seconds": time.perf_counter() - start, "device": args.device})

    plan = [("base", None, None, ("none",)), ("fine-tuned", False, "none", ("none",)),
            ("corelm", True, "gold", ("gold", "model", "none")), ("corelm-no-entities", True, "none", ("none",))]
    for system, gated, source, sources in plan:
        if args.systems and system not in args.systems:
            continue
        base.load_state_dict(initial)
        torch.manual_seed(args.seed)
        lm = EntityGatedLM(base, tokenizer.bos_token_id, n_heads=args.heads, delta=args.delta, dropout=args.dropout,
                           gated=bool(gated), freeze_base=False).to(args.device)
        if source is not None:
            log = train(lm, corpora, source, args, lambda r: report({"system": system, **r}))
            report({"system": system, "trained": {"epochs": len(log), "trainable": args.trainable,
                                                  "base_lr": args.base_lr, "gating_lr": args.gating_lr}})
        evaluated(system, lm, sources)
    out.close()


TITLES = {("base", "none"): "base LM zero-shot",
          ("fine-tuned", "none"): "base fine-tuned (embeddings + head), no entities",
          ("corelm", "gold"): "+ entity gating (embeddings + head + layer), gold clusters",
          ("corelm", "model"): "+ entity gating, clusters from our `entity_memory`",
          ("corelm", "none"): "+ entity gating, no clusters",
          ("corelm-no-entities", "none"): "+ entity gating trained without entities (control)"}


def cmd_table(args) -> None:
    from .corelm_experiment import write_table

    write_table(args.results, args.output, TITLES)


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export")
    export.add_argument("output")
    export.add_argument("--cache", default="corpus/corelm")
    export.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    export.add_argument("--wikitext-articles", type=int, default=15)
    export.add_argument("--lambada", type=int, default=1000)
    run = commands.add_parser("run")
    run.add_argument("export")
    run.add_argument("output")
    run.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    run.add_argument("--systems", nargs="*", help="a subset of: base fine-tuned corelm corelm-no-entities")
    run.add_argument("--trainable", choices=("embeddings", "all"), default="embeddings")
    run.add_argument("--epochs", type=int, default=3)
    run.add_argument("--train-minutes", type=float, default=0.0, help="per system; 0: no limit")
    run.add_argument("--base-lr", type=float, default=1e-5)
    run.add_argument("--gating-lr", type=float, default=3e-4)
    run.add_argument("--warmup", type=int, default=100)
    run.add_argument("--clip", type=float, default=1.0)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--limit", type=int, default=0, help="texts per corpus (0: all)")
    run.add_argument("--no-tf32", action="store_true")
    run.add_argument("--run-name", default="finetune")
    for sub in (export, run):
        sub.add_argument("--base", default=SMOLLM2[0])
        sub.add_argument("--gguf-file", default=SMOLLM2[1])
    run.add_argument("--heads", type=int, default=9)
    run.add_argument("--delta", type=float, default=0.5)
    run.add_argument("--dropout", type=float, default=0.1)
    table = commands.add_parser("table")
    table.add_argument("results")
    table.add_argument("--output", default="metrics/corelm/finetune_table.md")
    args = parser.parse_args(argv)
    {"export": cmd_export, "run": cmd_run, "table": cmd_table}[args.command](args)


if __name__ == "__main__":
    main()
