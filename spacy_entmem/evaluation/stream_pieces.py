"""Whole documents against pieces: each gold document cut into k consecutive pieces (at the sentence boundaries
nearest to k equal shares) and read (a) whole, (b) as k independent documents, (c) as one stream with a
``spacy_entmem.Reader``. The predicted mentions of every reading are put back on the whole document's tokens
and grouped by entity: for (a) and (c) by the memory's entity id (in a stream stable across the pieces), for
(b) by (piece, entity id), since independent pieces share nothing. Each reading is scored against the whole
document's gold with CoNLL F1 and LEA (singletons kept, as the corpus evaluation scores them).
"""
from typing import Dict, Hashable, List, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..reader import Reader
from ..training.targets import gold_clusters
from .coref_metrics import CorefScorer

READINGS = ("whole", "independent", "stream")


def cut_points(doc: Doc, pieces: int) -> List[int]:
    """The token offsets [0, c1, …, len(doc)] cutting ``doc`` into ``pieces`` consecutive pieces, each cut at the
    sentence start nearest to its equal share (any token where the doc has no sentence starts); empty pieces are
    never made (fewer pieces where the doc has fewer sentences)."""
    if pieces < 1:
        raise ValueError(f"[spacy-entmem] pieces must be at least 1, got {pieces}")
    n = len(doc)
    starts = [t.i for t in doc if t.is_sent_start] if doc.has_annotation("SENT_START") else list(range(n))
    starts = [i for i in starts if 0 < i < n] or list(range(1, n))
    cuts = [0]
    for k in range(1, pieces):
        target = round(k * n / pieces)
        later = [i for i in starts if i > cuts[-1]]
        if not later:
            break
        best = min(later, key=lambda i: abs(i - target))
        if best < n:
            cuts.append(best)
    return sorted(set(cuts)) + [n]


def piece_docs(nlp: Language, reference: Doc, cuts: Sequence[int]) -> List[Doc]:
    """Unannotated docs on the reference's own tokens, one per piece."""
    words = [t.text for t in reference]
    spaces = [bool(t.whitespace_) for t in reference]
    return [Doc(nlp.vocab, words=words[a:b], spaces=spaces[a:b]) for a, b in zip(cuts, cuts[1:])]


def entity_mentions(doc: Doc, offset: int = 0, piece: Hashable = None) -> Dict[Hashable, List[Tuple[int, int]]]:
    """The doc's mentions grouped by entity (key: the entity id, or (piece, id) where ``piece`` is given), at
    ``offset`` + their token offsets."""
    groups: Dict[Hashable, List[Tuple[int, int]]] = {}
    for span in doc._.coref_mentions or ():
        entity = span._.entity_id
        key = entity if piece is None else (piece, entity)
        groups.setdefault(key, []).append((offset + span.start, offset + span.end))
    return groups


def read_pieces(nlp: Language, reference: Doc, pieces: int) -> Dict[str, List[List[Tuple[int, int]]]]:
    """Predicted clusters (with singletons) on the reference's tokens, read as independent pieces and as a
    stream of ``pieces`` pieces."""
    cuts = cut_points(reference, pieces)
    independent: Dict[Hashable, List[Tuple[int, int]]] = {}
    for k, (doc, offset) in enumerate(zip(nlp.pipe(piece_docs(nlp, reference, cuts)), cuts)):
        independent.update(entity_mentions(doc, offset, piece=k))
    reader = Reader(nlp, keep_entities=False)
    stream: Dict[Hashable, List[Tuple[int, int]]] = {}
    for doc, offset in zip(reader.pipe(piece_docs(nlp, reference, cuts)), cuts):
        for entity, spans in entity_mentions(doc, offset).items():
            stream.setdefault(entity, []).extend(spans)
    return {"independent": list(independent.values()), "stream": list(stream.values())}


def score_pieces(nlp: Language, references: Sequence[Doc], piece_counts: Sequence[int] = (2, 4, 8)
                 ) -> Dict[int, Dict[str, Dict[str, float]]]:
    """Per number of pieces and reading (``READINGS``; "whole" the same for every number), CoNLL F1 and LEA F1
    (in %) of the references read so."""
    scorers = {k: {reading: CorefScorer(keep_singletons=True) for reading in READINGS} for k in piece_counts}
    for reference in references:
        key = gold_clusters(reference)
        whole = list(entity_mentions(nlp(piece_docs(nlp, reference, [0, len(reference)])[0])).values())
        for k in piece_counts:
            scorers[k]["whole"].add(key, whole)
            for reading, clusters in read_pieces(nlp, reference, k).items():
                scorers[k][reading].add(key, clusters)
    return {k: {reading: _f(scorer) for reading, scorer in by_reading.items()} for k, by_reading in scorers.items()}


def _f(scorer: CorefScorer) -> Dict[str, float]:
    scores = scorer.scores()
    return {"conll_f": 100 * scores["conll_f"], "lea_f": 100 * scores["lea_f"]}
