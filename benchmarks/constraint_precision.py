"""How often the gold clusters of a corpus agree with the constraints the memory applies as hard rules: the
parse-based ones (``linguistics.syntax``, ``linguistics.turns``) and, pairwise on the attribute rows the memory computes
for the mentions, gender, number, animacy, name gender, title and time rules: for each gold mention, the earlier
gold mentions the constraint rules out, and how many of those pairs the gold nonetheless puts in one cluster (the
constraint's errors), per constraint kind; and for reflexives, how often the binder the parse names is in the
reflexive's gold cluster. (The memory applies the attribute rules to cells, which pool their mentions'
attributes; the pairwise reading counts each pair once.)

    python benchmarks/constraint_precision.py corpus/litbank/dev.spacy corpus/gum/dev.spacy
    python benchmarks/constraint_precision.py --predicted corpus/litbank/test.spacy corpus/gum/test.spacy
    python benchmarks/constraint_precision.py --predicted --rules-off corpus/litbank/test.spacy corpus/gum/test.spacy

The docs are parsed with the shipped pipeline's parser (its tok2vec, tagger and parser only). With
``--predicted`` the clusters are the pipeline's own output instead of the gold: a ruled-out pair in one predicted
cluster is a violation of the constraint in what users see; with ``--rules-off`` as well, the clusters are those of
the pipeline before the grammar work (``grammar_variants.PREVIOUS_DEFAULT``, but the parser kept for the count).
"""
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List

import numpy

import spacy
from spacy.tokens import DocBin

import spacy_entmem
from spacy_entmem.evaluation.grammar_variants import PREVIOUS_DEFAULT, grammar_variant
from spacy_entmem.models.memory import packaged_inanimate_nouns, packaged_name_genders, packaged_person_nouns
from spacy_entmem.linguistics.cell_rules import (PERSONAL_GENDERS, TIME_EXPRESSION, complement_keys, complements_clash,
                                                 is_name, narrated_names, unnamed_narrator_pronouns)
from spacy_entmem.linguistics.columns import (GENDER, INANIMATE, NAME_WORDS, NOUN_NUMBER, NUMBER, PRONOUN, TITLE,
                                              TITLED)
from spacy_entmem.linguistics.values import PRONOUNS
from spacy_entmem.linguistics.lexicon import StringIds
from spacy_entmem.linguistics.mentions import mention_attributes
from spacy_entmem.linguistics.speakers import read_quotations
from spacy_entmem.linguistics.syntax import (forbidden_antecedents, misread_small_clause, parse_arrays,
                                             reflexive_binder, small_clause_matrix, span_root)
from spacy_entmem.linguistics.turns import read_turns
from spacy_entmem.training.targets import gold_clusters

SMALL_CLAUSE_KIND = "pronoun, the subject of a small clause (principle B, exceptional case)"
MISREAD_SMALL_CLAUSE_KIND = "pronoun parsed a possessor, the subject of a small clause (principle B)"


def kind(doc, start: int, end: int) -> str:
    word = doc[start].lower_
    if end - start == 1 and word in PRONOUNS:
        if small_clause_matrix(doc[start]) is not None:
            return SMALL_CLAUSE_KIND
        if misread_small_clause(doc[start]) is not None:
            return MISREAD_SMALL_CLAUSE_KIND
        return "pronoun (principle B)"
    return "name or nominal (principle C, i-within-i)"


ATTRIBUTE_RULES = ("gender agreement (pronoun)", "number agreement (pronoun with a noun phrase)", "animacy (he / she with a thing)",
                   "gender agreement (two named or titled mentions)", "title clash (Mr. / Mrs. / Miss … with a shared name)",
                   "a time expression with a person",
                   "of complements (two names of one head whose \"of\" complements share no word)",
                   "an unquoted name with an unnamed narrator's unquoted I / me / my")
# cluster-wise, as the memory reads its cells: a singular name and a cluster of plurals only
NAME_PLURAL_RULE = "a singular name with a cluster of plural mentions only (of the 60 before)"
# cluster-wise too: an untitled name of two or more name words and a cluster whose name words share none of them
FULL_NAME_RULE = "a name of two or more name words with a cluster whose names share none of them (of the 60 before)"


def shared_name_words(a, b) -> bool:
    return bool({w for w in a[NAME_WORDS].tolist() if w >= 0} & {w for w in b[NAME_WORDS].tolist() if w >= 0})


def attribute_rules(rows, i: int, j: int, narration=None):
    """The attribute rules that would keep mention ``i`` (later) from mention ``j`` (earlier): pairwise
    versions of the memory's agreement rules, read off the attribute rows the memory computes; ``narration``: per
    row, whether it is a name outside quotation marks and whether an unnamed narrator's I (``cell_rules``'
    ``narrated_names`` and ``unnamed_narrator_pronouns``, read once per document)."""
    a, b = rows[i], rows[j]
    found = []
    pronoun = a[PRONOUN] > 0
    if pronoun and a[GENDER] and b[GENDER] and a[GENDER] != b[GENDER]:
        found.append(ATTRIBUTE_RULES[0])
    if pronoun and a[NUMBER] and b[NOUN_NUMBER] and a[NUMBER] != b[NOUN_NUMBER] and b[PRONOUN] == 0:
        found.append(ATTRIBUTE_RULES[1])
    if pronoun and a[GENDER] in PERSONAL_GENDERS and b[PRONOUN] == 0 and b[INANIMATE] > 0:
        found.append(ATTRIBUTE_RULES[2])
    if not pronoun and b[PRONOUN] == 0 and a[GENDER] in PERSONAL_GENDERS and b[GENDER] in PERSONAL_GENDERS \
            and a[GENDER] != b[GENDER]:
        found.append(ATTRIBUTE_RULES[3])
    if a[TITLE] > 0 and b[TITLE] > 0 and a[TITLE] != b[TITLE] and shared_name_words(a, b):
        found.append(ATTRIBUTE_RULES[4])
    if (a[INANIMATE] == TIME_EXPRESSION) != (b[INANIMATE] == TIME_EXPRESSION) and (
            a[GENDER] in PERSONAL_GENDERS or b[GENDER] in PERSONAL_GENDERS):
        found.append(ATTRIBUTE_RULES[5])
    if complements_clash(a, set(complement_keys(b))):  # (as the memory reads it, with b's keys as a cell's)
        found.append(ATTRIBUTE_RULES[6])
    if narration is not None and ((narration[0][i] and narration[1][j]) or (narration[0][j] and narration[1][i])):
        found.append(ATTRIBUTE_RULES[7])
    return found


def plural_only(rows, earlier) -> bool:
    """Whether a cell holding the mentions ``earlier`` (row indices, in order) is one the memory keeps a singular
    name out of (``CellRules.plural_clash``, ``names_not_plural``): its last pronoun number or a noun plural, no
    singular noun, no masculine or feminine mention."""
    numbers = [int(rows[j][NUMBER]) for j in earlier if rows[j][NUMBER]]
    nouns = 0
    for j in earlier:
        nouns |= int(rows[j][NOUN_NUMBER])
    gendered = any(int(rows[j][GENDER]) in PERSONAL_GENDERS for j in earlier)
    return ((numbers and numbers[-1] == 2) or nouns & 2) and not nouns & 1 and not gendered


def clusters_before(cluster_of, mentions, i: int, window: int = 60) -> Dict[int, List[int]]:
    """Cluster → the indices of its mentions among the ``window`` before mention ``i`` (what the memory's cells
    hold at most), in order."""
    earlier: Dict[int, List[int]] = {}
    for j in range(max(0, i - window), i):
        earlier.setdefault(cluster_of[mentions[j]], []).append(j)
    return earlier


def predicted_clusters(doc):
    return [[(span.start, span.end) for span in group] for group in doc._.coref_clusters]


def main(paths, pipeline=None, predicted: bool = False, rules_off: bool = False) -> None:
    nlp = spacy.load(pipeline) if pipeline else spacy_entmem.load_default()
    parse = [name for name in nlp.pipe_names if name in ("tok2vec", "tagger", "parser")]
    if "parser" not in parse:
        sys.exit(f"{pipeline or 'the default pipeline'} has no parser")
    counts, person_counts, reflexive, attribute_counts = Counter(), Counter(), Counter(), Counter()
    lexicons = (packaged_name_genders(), packaged_inanimate_nouns(), packaged_person_nouns())
    for path in paths:
        gold_docs = list(DocBin().from_disk(path).get_docs(nlp.vocab))
        docs = (spacy.tokens.Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d])
                for d in gold_docs)
        if predicted and rules_off:
            with grammar_variant(nlp, **{**PREVIOUS_DEFAULT, "parser": True}):
                parsed = list(nlp.pipe(docs))
        elif predicted:
            parsed = list(nlp.pipe(docs))
        else:
            with nlp.select_pipes(enable=parse):
                parsed = list(nlp.pipe(docs))
        for gold, doc in zip(gold_docs, parsed):
            clusters = predicted_clusters(doc) if predicted else gold_clusters(gold)
            cluster_of = {span: k for k, cluster in enumerate(clusters) for span in cluster}
            mentions = sorted(cluster_of, key=lambda s: (s[1], s[0]))
            by_root = {}
            for start, end in mentions:
                by_root.setdefault(span_root(doc, start, end), []).append((start, end))
            texts = [t.text for t in doc]
            quoted, quotes = read_quotations([t.lower() for t in texts])
            turns, persons = read_turns(texts, quoted, quotes, mentions)
            parse = parse_arrays(doc)  # (read once per document)
            for (start, end), person in zip(mentions, persons):
                for root in forbidden_antecedents(doc, start, end, parse=parse):
                    for other in by_root.get(root, []):
                        if other[1] <= start or (other[1] <= end and other != (start, end) and root < start):
                            same = cluster_of[other] == cluster_of[(start, end)]
                            counts[kind(doc, start, end), same] += 1
                binder = reflexive_binder(doc, start, end)
                if binder >= 0:
                    joined = any(cluster_of[o] == cluster_of[(start, end)] for o in by_root.get(binder, []))
                    reflexive[joined] += 1
            rows = mention_attributes(doc, mentions, StringIds(), *lexicons)
            narration = (narrated_names(rows), unnamed_narrator_pronouns(rows))
            for i in range(len(mentions)):
                for j in range(max(0, i - 60), i):  # the 60 mentions before: what the memory's cells hold at most
                    for rule in attribute_rules(rows, i, j, narration):
                        attribute_counts[rule, cluster_of[mentions[i]] == cluster_of[mentions[j]]] += 1
            # a singular name and each cluster whose earlier mentions (of the 60 before) are plural only
            singular_names = is_name(rows) & (rows[:, NOUN_NUMBER] == 1)
            for i in numpy.flatnonzero(singular_names).tolist():
                for cluster, members in clusters_before(cluster_of, mentions, i).items():
                    if plural_only(rows, members):
                        attribute_counts[NAME_PLURAL_RULE, cluster == cluster_of[mentions[i]]] += 1
            # an untitled name of two or more name words and each cluster whose earlier name words share none
            names = [{w for w in row[NAME_WORDS].tolist() if w >= 0} for row in rows]
            for i in range(len(mentions)):
                if rows[i][PRONOUN] > 0 or rows[i][TITLED] > 0 or len(names[i]) < 2:
                    continue
                for cluster, members in clusters_before(cluster_of, mentions, i).items():
                    words = set().union(*(names[j] for j in members))
                    if words and words.isdisjoint(names[i]):
                        attribute_counts[FULL_NAME_RULE, cluster == cluster_of[mentions[i]]] += 1
            # person: pairs of gold mentions with a person, in one turn
            with_person = [(m, p) for m, p in zip(mentions, persons) if p]
            for i, (m, p) in enumerate(with_person):
                for other, q in with_person[:i]:
                    if turns[other[0]] == turns[m[0]] and q != p:
                        person_counts[cluster_of[other] == cluster_of[m]] += 1
    source = "predicted" if predicted else "gold"
    for what in ("pronoun (principle B)", SMALL_CLAUSE_KIND, MISREAD_SMALL_CLAUSE_KIND,
                 "name or nominal (principle C, i-within-i)"):
        wrong, right = counts[what, True], counts[what, False]
        print(f"{what}: {right + wrong} ruled-out pairs among {source} mentions, {wrong} in one {source} cluster "
              f"(kept apart {100 * right / max(right + wrong, 1):.1f} %)")
    print(f"person within a turn: {sum(person_counts.values())} pairs of different persons, {person_counts[True]} "
          f"in one {source} cluster (kept apart {100 * person_counts[False] / max(sum(person_counts.values()), 1):.1f} %)")
    for rule in ATTRIBUTE_RULES + (NAME_PLURAL_RULE, FULL_NAME_RULE):
        wrong, right = attribute_counts[rule, True], attribute_counts[rule, False]
        print(f"{rule}: {right + wrong} ruled-out pairs among {source} mentions (each with the 60 before it), "
              f"{wrong} in one {source} cluster (kept apart {100 * right / max(right + wrong, 1):.1f} %)")
    print(f"reflexives with a binder: {sum(reflexive.values())}, binder in the reflexive's {source} cluster "
          f"{reflexive[True]} ({100 * reflexive[True] / max(sum(reflexive.values()), 1):.1f} %)")


if __name__ == "__main__":
    args = sys.argv[1:]
    pipeline = None
    predicted, rules_off = "--predicted" in args, "--rules-off" in args
    args = [arg for arg in args if arg not in ("--predicted", "--rules-off")]
    if "--pipeline" in args:
        at = args.index("--pipeline")
        pipeline = args[at + 1]
        del args[at:at + 2]
    main([Path(p) for p in args], pipeline, predicted, rules_off)
