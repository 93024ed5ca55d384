"""Write clusters in CoNLL-2012 format, so the reference Perl scorer (``scorer.pl``) can read them, and read
such files back.

One ``#begin document (<name>); part 000`` block per document, one token per line with 13
tab-separated columns (doc, part, token index in the sentence, word, 8 × ``_``, coref) and a blank line
after each sentence, as in LitBank's own files. Mention brackets use cluster numbers from 0.
"""
import warnings
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, TextIO, Tuple

from .brackets import CorefFormatError, parse_column
from .docs import CorefDocument

N_COLUMNS = 13

Span = Tuple[int, int]  # token start, end (exclusive)


def crosses(a: Span, b: Span) -> bool:
    """Whether two spans overlap without one containing the other."""
    (s1, e1), (s2, e2) = sorted([a, b])
    return s1 < s2 < e1 < e2


def drop_crossing(clusters: Sequence[Iterable[Span]]) -> Tuple[List[List[Span]], List[Tuple[int, Span]]]:
    """Brackets of one cluster number close last-opened-first, so two mentions of one cluster that cross
    ("the talented Miss" / "Miss Cowley") read back as other spans. Keep each cluster's mentions in
    document order, dropping any that crosses one already kept; return the kept clusters and the dropped
    (cluster, span) pairs."""
    kept_clusters, dropped = [], []
    for k, cluster in enumerate(clusters):
        kept: List[Span] = []
        for span in sorted(set(cluster)):
            if any(crosses(span, other) for other in kept):
                dropped.append((k, span))
            else:
                kept.append(span)
        kept_clusters.append(kept)
    return kept_clusters, dropped


def coref_column(n_tokens: int, clusters: Sequence[Iterable[Span]]) -> List[str]:
    """The coref field of every token: ``(k``, ``k)``, ``(k)`` joined with ``|``, ``_`` for none.

    At one token, openings come longest-first and closings shortest-first so nested brackets balance.
    """
    opens: Dict[int, List[Tuple[int, int]]] = {}
    closes: Dict[int, List[Tuple[int, int]]] = {}
    singles: Dict[int, List[int]] = {}
    for k, cluster in enumerate(clusters):
        for start, end in sorted(set(cluster)):
            if not 0 <= start < end <= n_tokens:
                raise ValueError(f"[spacy-entmem] span ({start}, {end}) of cluster {k} is outside a "
                                 f"document of {n_tokens} tokens")
            if end - start == 1:
                singles.setdefault(start, []).append(k)
            else:
                opens.setdefault(start, []).append((end, k))
                closes.setdefault(end - 1, []).append((start, k))
    fields = []
    for t in range(n_tokens):
        items = [f"({k}" for _, k in sorted(opens.get(t, []), key=lambda x: -x[0])]
        items += [f"({k})" for k in singles.get(t, [])]
        items += [f"{k})" for _, k in sorted(closes.get(t, []), key=lambda x: -x[0])]
        fields.append("|".join(items) if items else "_")
    return fields


def write_document(out: TextIO, name: str, words: Sequence[str], sentence_lengths: Sequence[int],
                   clusters: Sequence[Iterable[Span]]) -> None:
    if sum(sentence_lengths) != len(words):
        raise ValueError(f"[spacy-entmem] document {name}: sentence lengths do not sum to {len(words)} tokens")
    clusters, dropped = drop_crossing(clusters)
    if dropped:
        warnings.warn(f"[spacy-entmem] document {name}: {len(dropped)} mention(s) cross another mention of their "
                      f"cluster and cannot be written as CoNLL-2012 brackets; left out: "
                      + ", ".join(f"{span} of cluster {k}" for k, span in dropped[:5]))
    column = coref_column(len(words), clusters)
    out.write(f"#begin document ({name}); part 000\n")
    t = 0
    for length in sentence_lengths:
        for i in range(length):
            word = words[t] or "_"
            out.write("\t".join([name, "0", str(i), word] + ["_"] * 8 + [column[t]]) + "\n")
            t += 1
        out.write("\n")
    out.write("#end document\n")


def read_conll_documents(path: Path) -> Iterator[CorefDocument]:
    """Every ``#begin document`` … ``#end document`` block of a CoNLL-2012 file (13 tab-separated columns, the
    coreference column last; a blank line ends a sentence), in file order. A malformed line raises
    ``CorefFormatError`` naming the file and line."""
    words: List[str] = []
    cells: List[Tuple[int, str]] = []
    sentence_lengths: List[int] = []
    doc_id: Optional[str] = None
    current = 0

    def finished() -> CorefDocument:
        lengths = sentence_lengths + ([current] if current else [])
        return CorefDocument(doc_id or "", words, lengths, parse_column(cells, str(path)))

    with Path(path).open(encoding="utf8") as handle:
        for line_no, raw in enumerate(handle, start=1):
            line = raw.rstrip("\n")
            if line.startswith("#begin document"):
                if doc_id is not None:
                    yield finished()
                doc_id = line[len("#begin document"):].strip().split(";")[0].strip(" ()")
                words, cells, sentence_lengths, current = [], [], [], 0
            elif line.startswith("#end document"):
                if doc_id is not None:
                    yield finished()
                doc_id = None
            elif not line.strip():
                if current:
                    sentence_lengths.append(current)
                current = 0
            else:
                fields = line.split("\t")
                if len(fields) != N_COLUMNS:
                    raise CorefFormatError(f"{path}, line {line_no}: expected {N_COLUMNS} tab-separated columns, "
                                           f"found {len(fields)}")
                if doc_id is None:
                    raise CorefFormatError(f"{path}, line {line_no}: a token outside a '#begin document' block")
                words.append(fields[3])
                cells.append((line_no, fields[-1]))
                current += 1
    if doc_id is not None:
        yield finished()
