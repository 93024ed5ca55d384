"""How good is the entity table (``Doc._.entities``)? Against LitBank's entity types: the number of people per
document (PeTra's counting task, on LitBank's PER entities) and the kind of each entity.

    python benchmarks/entity_table.py --data-dir ../shared/data/litbank --output metrics/entity_table.json

Gold: each LitBank COREF chain (``coref/tsv/*.ann``; mentions only in COP / APPOS links are left out) is an
entity whose type is its mentions' most common type; PER → person, LOC / GPE / FAC → place, ORG → organisation,
VEH → other. Predicted: the shipped pipeline on each fold-0 document's own tokens.

- People: per document |predicted − gold| of the number of person entities, (a) from the entity table and
  (b) as PeTra counts, Σ 1[overwrite ≥ α] with α chosen on the dev documents; also the best constant count
  (the dev median). Singletons count on both sides (LitBank annotates them).
- Kind: each predicted entity whose mentions share at least one exact span with a gold entity is matched to the
  gold entity sharing the most; accuracy of its kind and the confusion table.
"""
import argparse
from collections import Counter, defaultdict
from pathlib import Path

from spacy.tokens import Doc

import spacy_entmem
from spacy_entmem.corpora.head_kinds import KIND_OF_TYPE
from spacy_entmem.corpora.litbank import read_litbank
from spacy_entmem.evaluation.counting import count_people, select_alpha
from spacy_entmem.evaluation.reporting import report
from spacy_entmem.pipeline.memory_log import count_entities



def gold_entities(ann: Path, sentence_starts):
    """{chain: (type, {(start, end)})} from a LitBank .ann file (token offsets in the document)."""
    mentions, chains = {}, {}
    for line in ann.read_text(encoding="utf8").splitlines():
        fields = line.split("\t")
        if fields[0] == "MENTION":
            _, mid, s_sent, s_tok, e_sent, e_tok, _, kind, _ = fields
            start = sentence_starts[int(s_sent)] + int(s_tok)
            end = sentence_starts[int(e_sent)] + int(e_tok) + 1
            mentions[mid] = ((start, end), kind)
        elif fields[0] == "COREF":
            chains.setdefault(fields[2], []).append(fields[1])
    result = {}
    for chain, ids in chains.items():
        kinds = Counter(mentions[i][1] for i in ids)
        result[chain] = (kinds.most_common(1)[0][0], {mentions[i][0] for i in ids})
    return result


def read_split(nlp, data_dir: Path, records):
    """Per document: gold entities, predicted entity table, overwrite probabilities."""
    out = []
    for record in records:
        starts = [0]
        for length in record.sentence_lengths:
            starts.append(starts[-1] + length)
        gold = gold_entities(data_dir / "coref" / "tsv" / f"{record.doc_id.split(';')[0].strip()}.ann", starts)
        doc = nlp(Doc(nlp.vocab, words=record.words))
        out.append((record.doc_id, gold, doc._.entities, doc._.entity_memory_log["overwrite"], count_people(doc)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data/litbank"))
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    nlp = spacy_entmem.load_default()
    splits = read_litbank(args.data_dir, 0)
    dev = read_split(nlp, args.data_dir, splits["dev"])
    test = read_split(nlp, args.data_dir, splits["test"])

    def people(rows):
        return {doc_id: sum(kind == "PER" for kind, _ in gold.values()) for doc_id, gold, *_ in rows}

    chosen = select_alpha({doc_id: o for doc_id, _, _, o, _ in dev}, people(dev))
    gold_test = people(test)
    constant = chosen.baseline_count
    gold_dev = people(dev)
    dev_table_errors = [abs(n - gold_dev[d]) for d, _, _, _, n in dev]  # what choices read; test is read once
    table_errors = [abs(n - gold_test[d]) for d, _, _, _, n in test]
    overwrite_errors = [abs(count_entities(o, chosen.alpha) - gold_test[d]) for d, _, _, o, _ in test]
    constant_errors = [abs(constant - gold_test[d]) for d, *_ in test]

    confusion, matched, unmatched = defaultdict(Counter), 0, 0
    for _, gold, entities, _, _ in test:
        for entity in entities:
            spans = {(m.start, m.end) for m in entity.mentions}
            best = max(gold.values(), key=lambda g: len(g[1] & spans), default=None)
            if best is None or not best[1] & spans:
                unmatched += 1
                continue
            matched += 1
            confusion[KIND_OF_TYPE[best[0]]][entity.kind] += 1
    correct = sum(row[kind] for kind, row in confusion.items())
    result = {
        "documents": len(test), "gold_people": gold_test,
        "people_mean_abs_error": {"entity_table": sum(table_errors) / len(test),
                                  "overwrites": sum(overwrite_errors) / len(test),
                                  "constant": sum(constant_errors) / len(test)},
        "dev_people_mean_abs_error": {"entity_table": sum(dev_table_errors) / len(dev),
                                      "constant": sum(abs(constant - gold_dev[d]) for d in gold_dev) / len(dev)},
        "dev_people": {d: (gold_dev[d], n) for d, *_, n in dev},
        "alpha": chosen.alpha, "constant_count": constant,
        "predicted_people": {"entity_table": {d: n for d, *_, n in test},
                             "overwrites": {d: count_entities(o, chosen.alpha) for d, _, _, o, _ in test}},
        "kind_accuracy": correct / matched if matched else None, "matched_entities": matched,
        "unmatched_entities": unmatched, "confusion": {g: dict(row) for g, row in confusion.items()},
    }
    report(result, args.output)


if __name__ == "__main__":
    main()
