"""Score the peer's predicted DocBin with our metrics (exact mentions) and print the side-by-side table.

    python benchmarks/peer/score.py GOLD.spacy PEER_PREDICTED.spacy PEER_SPEED.json OURS.json PEER_100K.json
"""
import json
import sys

import spacy
from spacy.tokens import DocBin

from spacy_entmem.evaluation.coref_metrics import CorefScorer
from spacy_entmem.training.targets import gold_clusters


def main(gold_path, predicted_path, speed_path, ours_path, long_path) -> None:
    vocab = spacy.blank("en").vocab
    golds = list(DocBin().from_disk(gold_path).get_docs(vocab))
    predicted = list(DocBin().from_disk(predicted_path).get_docs(vocab))
    if [len(d) for d in golds] != [len(d) for d in predicted]:
        raise ValueError("[spacy-entmem] peer predictions do not have the gold documents' tokens")
    scores = {}
    for singletons in (True, False):
        scorer = CorefScorer(keep_singletons=singletons)
        for gold, pred in zip(golds, predicted):
            scorer.add(gold_clusters(gold), gold_clusters(pred))
        scores[singletons] = scorer.scores()
    speed = json.load(open(speed_path))
    ours = json.load(open(ours_path))
    long = json.load(open(long_path))
    rows = [
        ("spacy-entmem (litbank_sm)", ours["coref_conll_f"], ours["coref_lea_f"], ours["coref_nosingletons_conll_f"],
         ours["words_per_second"]),
        ("spacy-experimental coref + span resolver", scores[True]["conll_f"], scores[True]["lea_f"],
         scores[False]["conll_f"], speed["words_per_second"]),
    ]
    print("| system | CoNLL F1 | LEA F1 | CoNLL F1 w/o singletons | words/s |")
    print("|---|---:|---:|---:|---:|")
    for name, conll, lea, conll_ns, wps in rows:
        print(f"| {name} | {100 * conll:.1f} | {100 * lea:.1f} | {100 * conll_ns:.1f} | {wps:,.0f} |")
    print()
    print(f"peer on a 100,000-token document: {json.dumps(long)}")


if __name__ == "__main__":
    main(*sys.argv[1:6])
