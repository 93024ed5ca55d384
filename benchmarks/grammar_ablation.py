"""What each grammar rule of the shipped pipeline buys on dev: CoNLL F1 / LEA on LitBank dev and GUM dev with
the shipped settings, then with one rule off at a time, without the parse's places and time expressions in the
animacy rule, and without the parser and all of these (the pipeline as it was before them).

    python benchmarks/grammar_ablation.py corpus/litbank/dev.spacy corpus/gum/dev.spacy [--output rows.json]
"""
import argparse
import json
import tempfile
from pathlib import Path

import spacy_entmem
from spacy_entmem.evaluation.coref_evaluate import evaluate_corpus
from spacy_entmem.evaluation.grammar_variants import GRAMMAR_RULES, grammar_variant


def scores(nlp, corpus: Path) -> dict:
    result = evaluate_corpus(nlp, [corpus], Path(tempfile.mkdtemp()), "ablation", 4)
    return {"conll": round(100 * result["coref_conll_f"], 2), "lea": round(100 * result["coref_lea_f"], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    nlp = spacy_entmem.load_default()
    shipped = [rule for rule in GRAMMAR_RULES if nlp.get_pipe("entity_memory").cfg.get(rule)]
    variants = [("shipped", {})] + [(f"without {rule}", {"rules_off": [rule]}) for rule in shipped]
    variants.append(("person_agreement without the impersonal it", {"impersonal_it": False}))
    variants += [(f"binding: principle {principle} only", {"principles": [principle]})
                 for principle in ("A", "B", "C", "i-within-i")]
    variants.append(("without places and times in animacy", {"things": False}))
    variants.append(("without the parser and all of these", {"rules_off": GRAMMAR_RULES, "things": False,
                                                              "parser": False}))
    rows = []
    for name, variant in variants:
        with grammar_variant(nlp, **variant):
            row = {"variant": name, **{str(corpus): scores(nlp, corpus) for corpus in args.corpora}}
        rows.append(row)
        print(" | ".join([f"{name:38s}"] + [f"{corpus}: {row[str(corpus)]['conll']:.2f} / {row[str(corpus)]['lea']:.2f}"
                                            for corpus in args.corpora]), flush=True)
    if args.output:
        args.output.write_text(json.dumps(rows, indent=2), encoding="utf8")


if __name__ == "__main__":
    main()
