"""How much a salience cue could add to the pronoun decisions of a pipeline: for every third-person personal
pronoun that is a gold mention with an earlier mention of its entity, whether the pipeline's antecedent (the
mention before it in its predicted cluster) belongs to the gold entity, and whether the *salient* entity would
have: the entity of the first gold mention of the pronoun's sentence when that mention comes before the pronoun,
else of the previous sentence's first gold mention (sentences end at '.', '!', '?' and line breaks).

    python benchmarks/pronoun_salience.py [--model default] [--openers-only] \
        corpus/litbank/dev.spacy corpus/gum_rd/dev.spacy

The counts bound what a learned salience feature could fix (errors whose gold entity is the salient one) and
show what it could break (right answers whose gold entity is not). ``--openers-only`` counts only the pronouns
where the cue is strongest in theory (centering: a new sentence's subject continues the last one's): those that
open their sentence ("She arrived") or a subordinate clause that opens it ("When she arrived"), so that the
salient entity is the previous sentence's first.
"""
import argparse
import json
from collections import Counter
from typing import Dict, List, Tuple

from spacy.tokens import Doc

from spacy_entmem.cli import load_pipeline
from spacy_entmem.evaluation.coref_evaluate import _read, gold_clusters, reference_inputs
from spacy_entmem.linguistics.values import NEUTER, PRONOUNS
from spacy_entmem.linguistics.sentences import SENTENCE_FINAL

# he / she / they and their forms (not "it")
THIRD_PERSON = frozenset(word for word, (person, _number, gender) in PRONOUNS.items()
                         if person == 3 and gender != NEUTER)
Mention = Tuple[int, int]
# a sentence's first word that makes the pronoun after it the subject of a subordinate clause opening it (not
# pronoun_features.CLAUSE_OPENERS, which also holds punctuation and conjunctions anywhere in a sentence)
SUBORDINATORS = frozenset({"when", "as", "after", "before", "while", "though", "although", "if", "once", "until",
                            "since", "because", "then"})


def sentence_ids(doc: Doc) -> List[int]:
    ids, current = [], 0
    for token in doc:
        ids.append(current)
        if token.text in SENTENCE_FINAL or "\n" in token.text:
            current += 1
    return ids


def entity_of(doc: Doc) -> Dict[Mention, int]:
    return {mention: i for i, cluster in enumerate(gold_clusters(doc)) for mention in cluster}


def salient_entity(mention: Mention, gold: Dict[Mention, int], sentence: List[int]):
    """The entity of the first gold mention of the pronoun's sentence if it comes before the pronoun, else
    that of the previous sentence's first gold mention (None if there is none)."""
    own = [m for m in gold if sentence[m[0]] == sentence[mention[0]] and m[0] < mention[0]]
    if own:
        return gold[min(own)]
    previous = [m for m in gold if sentence[m[0]] == sentence[mention[0]] - 1]
    return gold[min(previous)] if previous else None


def opens_sentence(doc: Doc, start: int, sentence: List[int]) -> bool:
    """Whether the token at ``start`` is its sentence's first, or its second after a clause opener."""
    if start == 0 or sentence[start - 1] != sentence[start]:
        return True
    return doc[start - 1].lower_ in SUBORDINATORS and (start == 1 or sentence[start - 2] != sentence[start])


def count(reference: Doc, predicted: Doc, counts: Counter, openers_only: bool = False) -> None:
    gold, system = entity_of(reference), entity_of(predicted)
    sentence = sentence_ids(reference)
    for mention in sorted(gold):
        if mention[1] - mention[0] != 1 or reference[mention[0]].lower_ not in THIRD_PERSON:
            continue
        if openers_only and not opens_sentence(reference, mention[0], sentence):
            continue
        if not any(m[1] <= mention[0] and gold[m] == gold[mention] for m in gold):
            continue
        antecedents = [m for m in sorted(system) if mention in system and system[m] == system[mention]
                       and m[1] <= mention[0]]
        right = bool(antecedents) and gold.get(antecedents[-1]) == gold[mention]
        salient = salient_entity(mention, gold, sentence) == gold[mention]
        counts["pronouns"] += 1
        counts["right"] += right
        counts["salient_is_gold"] += salient
        counts["wrong_and_salient_is_gold"] += (not right) and salient
        counts["right_and_salient_is_not_gold"] += right and not salient


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpora", nargs="+")
    parser.add_argument("--model", default="default")
    parser.add_argument("--openers-only", action="store_true",
                        help="only pronouns that open their sentence or a subordinate clause opening it")
    args = parser.parse_args()
    nlp = load_pipeline(args.model)
    for corpus in args.corpora:
        references = _read(nlp, corpus)
        counts: Counter = Counter()
        for reference, predicted in zip(references, nlp.pipe(reference_inputs(nlp, references), batch_size=4)):
            count(reference, predicted, counts, args.openers_only)
        print(corpus, json.dumps(dict(counts)))


if __name__ == "__main__":
    main()
