"""What the book-length settings of the entity memory do to short documents: CoNLL F1 / LEA on each corpus with
the pipeline as loaded, then with each setting alone and all of them (the values ``--all`` gives), one row each.

    python benchmarks/book_settings.py corpus/litbank/dev.spacy corpus/gum_rd/dev.spacy --output rows.json

The settings (``entity_memory``): ``archive_size`` (evicted entities kept for a returning name),
``protected_cells`` (the most mentioned cells kept from eviction), ``title_agreement``, ``names_from_name_heads``
``name_ties_to_most_mentioned`` and ``eviction`` (least_used, or the learnt policy of ``training.eviction``). Each row loads the default pipeline with those settings over its own.
"""
import argparse
import json
import sys
from pathlib import Path

import spacy_entmem

sys.path.insert(0, str(Path(__file__).parent))
from grammar_ablation import scores as corpus_scores  # noqa: E402

BOOK_SETTINGS = {"archive_size": 5000, "protected_cells": 6, "title_agreement": True, "names_from_name_heads": True,
                 "name_ties_to_most_mentioned": True, "eviction": "least_used"}
OFF = {"archive_size": 0, "protected_cells": 0, "title_agreement": False, "names_from_name_heads": False,
       "name_ties_to_most_mentioned": False, "eviction": "least_used"}


def scores(settings: dict, corpus: Path) -> dict:
    """CoNLL F1 / LEA on ``corpus`` of the default pipeline with these entity_memory settings."""
    return corpus_scores(spacy_entmem.load_default(config={"components": {"entity_memory": settings}}), corpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--all", default=json.dumps(BOOK_SETTINGS), help="the values of all settings on (JSON)")
    parser.add_argument("--only", action="append", default=[], help="run only the rows whose name starts so")
    args = parser.parse_args()
    chosen = json.loads(args.all)
    variants = [("none", dict(OFF))] + [(f"only {name}", {**OFF, name: value}) for name, value in chosen.items()
                                        if value != OFF[name]]
    variants += [("all", chosen)] + [(f"all without {name}", {**chosen, name: OFF[name]}) for name in chosen
                                     if chosen[name] != OFF[name]]
    variants += [(f"all, {name} = {value}", {**chosen, **{name: value}}) for name, value in
                 (("eviction", "learnt"), ("protected_cells", 0)) if chosen.get(name) != value]
    variants += [("all, eviction = learnt, protected_cells = 0", {**chosen, "eviction": "learnt", "protected_cells": 0})]
    rows = []
    for name, settings in variants:
        if args.only and not any(name.startswith(prefix) for prefix in args.only):
            continue
        row = {"variant": name, **{corpus.parent.name + "/" + corpus.stem: scores(settings, corpus)
                                   for corpus in args.corpora}}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.output is not None:
        args.output.write_text(json.dumps(rows, indent=2), encoding="utf8")


if __name__ == "__main__":
    main()
