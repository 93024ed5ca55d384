"""What one decision rule changes, decision by decision: the shipped pipeline with the rule on and off over a
corpus; for every mention whose nearest earlier antecedent in its predicted cluster differs between the two runs,
whether that antecedent is in the mention's gold cluster with the rule (fixed), only without it (broken), or in
neither (other). Cluster metrics move with whole cascades of later decisions; this counts the decisions the
rule changes first-hand and after.

    python benchmarks/rule_decisions.py syntactic_binding corpus/litbank/dev.spacy corpus/gum/dev.spacy [--show]
"""
import argparse
from collections import Counter
from pathlib import Path

from spacy.tokens import DocBin

import spacy_entmem
from spacy_entmem.training.targets import gold_clusters


def antecedents(doc) -> dict:
    """(start, end) of each predicted mention → its nearest earlier mention in its cluster (None: first)."""
    out = {}
    for group in doc._.coref_clusters:
        spans = sorted((span.start, span.end) for span in group)
        for span in spans:
            earlier = [other for other in spans if other[1] <= span[0]]
            out[span] = max(earlier, key=lambda s: s[1]) if earlier else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rule")
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--show", action="store_true", help="print each changed decision")
    args = parser.parse_args()
    nlp = spacy_entmem.load_default()
    memory = nlp.get_pipe("entity_memory")
    shipped = memory.cfg.get(args.rule)
    if not isinstance(shipped, bool):
        raise SystemExit(f"entity_memory has no on / off rule {args.rule!r}")
    for corpus in args.corpora:
        golds = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
        texts = [gold.text for gold in golds]
        memory.cfg[args.rule] = False
        without = [antecedents(doc) for doc in nlp.pipe(texts)]
        memory.cfg[args.rule] = True
        docs = list(nlp.pipe(texts))
        counts = Counter()
        for gold, doc, before in zip(golds, docs, without):
            cluster_of = {span: k for k, cluster in enumerate(gold_clusters(gold)) for span in cluster}
            after = antecedents(doc)
            for span in sorted(set(before) | set(after), key=lambda s: s[1]):
                a, b = before.get(span), after.get(span)
                if a == b:
                    continue
                gold_of = cluster_of.get(span)
                right_before = gold_of is not None and a is not None and cluster_of.get(a) == gold_of
                right_after = gold_of is not None and b is not None and cluster_of.get(b) == gold_of
                verdict = "fixed" if right_after and not right_before else \
                    "broken" if right_before and not right_after else "other"
                counts[verdict] += 1
                if args.show:
                    show = lambda s: None if s is None else doc[s[0]:s[1]].text  # noqa: E731
                    print(f"{verdict:6s} {doc[span[0]:span[1]].text!r}: {show(a)!r} -> {show(b)!r} | "
                          f"{doc[max(span[0] - 10, 0):span[1] + 3].text}")
        memory.cfg[args.rule] = shipped
        print(f"{corpus}: {args.rule} changes {sum(counts.values())} antecedents: fixed {counts['fixed']}, "
              f"broken {counts['broken']}, other {counts['other']}")


if __name__ == "__main__":
    main()
