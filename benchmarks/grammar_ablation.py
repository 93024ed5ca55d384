"""What each grammar rule of the shipped pipeline buys on dev: CoNLL F1 / LEA on LitBank dev and GUM dev with
the shipped settings, then with one rule off at a time, without the parse's places and time expressions in the
animacy rule, and without the parser and all of these (the pipeline as it was before them).

    python benchmarks/grammar_ablation.py corpus/litbank/dev.spacy corpus/gum/dev.spacy [--output rows.json]
    python benchmarks/grammar_ablation.py ... --pipeline training/parse_features/pipeline --only "without syntactic"
"""
import argparse
import json
import tempfile
from pathlib import Path

import spacy

import spacy_entmem
from spacy_entmem.evaluation.coref_evaluate import evaluate_corpus
from spacy_entmem.evaluation.grammar_variants import GRAMMAR_RULES, PREVIOUS_DEFAULT, grammar_variant


def scores(nlp, corpus: Path) -> dict:
    result = evaluate_corpus(nlp, [corpus], Path(tempfile.mkdtemp()), "ablation", 4)
    return {"conll": round(100 * result["coref_conll_f"], 2), "lea": round(100 * result["coref_lea_f"], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--only", action="append", default=[], help="run only the variants whose name starts so")
    parser.add_argument("--pipeline", default=None, help="a pipeline directory (default: the shipped one)")
    args = parser.parse_args()
    nlp = spacy.load(args.pipeline) if args.pipeline else spacy_entmem.load_default()
    shipped = [rule for rule in GRAMMAR_RULES if nlp.get_pipe("entity_memory").cfg.get(rule)]
    variants = [("shipped", {})] + [(f"without {rule}", {"rules_off": [rule]}) for rule in shipped]
    switched_off = [("person_agreement without the impersonal it", "impersonal_it"),
                    ("person_agreement without we as a person", "we_person"),
                    ("person_agreement without possessed nominals as third persons", "possessed_third"),
                    ("person_agreement without the signature as the writer", "signature"),
                    ("without a new they joining the plural people near", "plural_they"),
                    ("nouns for people without the plurals of listed singulars", "person_noun_plurals"),
                    ("without the speaker labels' voices", "labelled_voices"),
                    ("animacy with times joining people", "times_are_nobody"),
                    ("finder: fragments cover nouns for people", "fragments_cover_nothing"),
                    ("binding without the dative repair", "datives"),
                    ("binding with bracketed clauses sharing their subject", "brackets"),
                    ("binding without small-clause subjects as the main verb's", "small_clause_subjects"),
                    ("singular_they counting only the genderless nominals near", "they_among_all_people"),
                    ("singular_they with any genderless singular nominal", "they_person_nouns"),
                    ("singular_they without the learnt nouns for people", "learnt_person_nouns"),
                    ("singular_they without reported clauses", "reported_they"),
                    ("singular_they without joining its one person", "they_joins"),
                    ("speakers without the verbs of telling", "telling"),
                    ("speaker_continuity without addressees", "addressees"),
                    ("speaker_continuity without speakers named after the quotation", "later_leaders"),
                    ("quoted I / you without their speaker's / addressee's gender", "speaker_genders"),
                    ("plural agreement with singular names joining plurals", "names_not_plural"),
                    ("names with other \"of\" complements joining (the Witch of the North, of the West)",
                     "of_names_apart"),
                    ("titles of office read as given names (Mayor Elena Ortiz: neuter)", "office_titles"),
                    ("person_agreement with narrated names joining the narrator", "narrator_unnamed"),
                    ("speaker_continuity without vocatives joining their addressee", "vocatives"),
                    ("speakers without alternating turns", "alternating_turns")]
    variants += [(name, {"switches": {switch: False}}) for name, switch in switched_off]
    variants += [(f"binding: principle {principle} only", {"principles": [principle]})
                 for principle in ("A", "B", "C", "i-within-i")]
    variants.append(("without places and times in animacy", {"things": False}))
    variants.append(("without the parser and all of these", PREVIOUS_DEFAULT))
    if args.only:
        variants = [(name, variant) for name, variant in variants if any(name.startswith(o) for o in args.only)]
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
