"""Corpus records → spaCy docs with gold clusters, and the counts a SOURCE.md reports."""
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Sequence

from spacy.tokens import Doc, SpanGroup
from spacy.vocab import Vocab

from .brackets import Mention

CLUSTER_PREFIX = "coref_clusters"
GOLD_MENTIONS_KEY = "mention_candidates"  # the span_finder's training target: every gold mention
DOC_ID = "doc_id"


@dataclass
class CorefDocument:
    doc_id: str
    words: List[str]
    sentence_lengths: List[int]
    mentions: List[Mention]
    meta: Dict[str, str] = field(default_factory=dict)

    def clusters(self) -> List[List[Mention]]:
        """Clusters ordered by their first mention, mentions in document order."""
        by_cluster: Dict[str, List[Mention]] = {}
        for mention in sorted(self.mentions, key=lambda m: (m.start, m.end)):
            by_cluster.setdefault(mention.cluster, []).append(mention)
        return sorted(by_cluster.values(), key=lambda ms: (ms[0].start, ms[0].end))


def to_doc(vocab: Vocab, record: CorefDocument, prefix: str = CLUSTER_PREFIX,
           mentions_key: str = GOLD_MENTIONS_KEY) -> Doc:
    """A Doc with sentence starts, ``{prefix}_N`` span groups (N from 1, singletons included) and every
    distinct mention span in ``mentions_key``. The doc id is in ``doc.user_data["doc_id"]``."""
    if sum(record.sentence_lengths) != len(record.words):
        raise ValueError(
            f"[spacy-entmem] document {record.doc_id}: sentence lengths sum to {sum(record.sentence_lengths)} "
            f"but the document has {len(record.words)} tokens"
        )
    starts: List[bool] = []
    for length in record.sentence_lengths:
        starts.extend([True] + [False] * (length - 1))
    doc = Doc(vocab, words=record.words, sent_starts=starts or None)
    doc.user_data[DOC_ID] = record.doc_id
    for index, cluster in enumerate(record.clusters(), start=1):
        key = f"{prefix}_{index}"
        spans = [doc.char_span(doc[m.start].idx, doc[m.end - 1].idx + len(doc[m.end - 1]), label=m.label)
                 for m in cluster]
        doc.spans[key] = SpanGroup(doc, name=key, spans=spans, attrs={"cluster_id": cluster[0].cluster})
    distinct = sorted({(m.start, m.end) for m in record.mentions})
    doc.spans[mentions_key] = SpanGroup(doc, name=mentions_key, spans=[doc[s:e] for s, e in distinct])
    return doc


def corpus_counts(records: Iterable[CorefDocument]) -> Dict[str, int]:
    """documents, tokens, sentences, mentions, clusters, singletons (clusters of one mention)."""
    counts = dict.fromkeys(("documents", "tokens", "sentences", "mentions", "clusters", "singletons"), 0)
    for record in records:
        clusters = record.clusters()
        counts["documents"] += 1
        counts["tokens"] += len(record.words)
        counts["sentences"] += len(record.sentence_lengths)
        counts["mentions"] += len(record.mentions)
        counts["clusters"] += len(clusters)
        counts["singletons"] += sum(len(c) == 1 for c in clusters)
    return counts


def sentence_lengths_from_flags(flags: Sequence[bool]) -> List[int]:
    """Lengths of the sentences given a sentence-start flag per token."""
    lengths: List[int] = []
    for flag in flags:
        if flag or not lengths:
            lengths.append(0)
        lengths[-1] += 1
    return lengths
