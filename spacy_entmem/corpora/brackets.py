"""Parse the bracket notation of a coreference column: ``(12``, ``12)``, ``(12)`` and combinations.

LitBank joins the items with ``|`` (CoNLL-2012); GUM concatenates them (``(person-3(place-7)``). Both are
handled by one tokenizer. Nested mentions of one cluster close last-opened-first.
"""
import re
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Tuple

ITEM = re.compile(r"\(?[^()|]+\)?")


@dataclass(frozen=True)
class Mention:
    start: int  # first token (document-wide index)
    end: int  # one past the last token
    cluster: str
    label: str = ""


class CorefFormatError(ValueError):
    """A malformed coreference file; the message names the file and line."""


def _where(source: str, line: int) -> str:
    return f"{source}, line {line}"


def parse_column(
    cells: Iterable[Tuple[int, str]], source: str, cluster_of: Callable[[str], Tuple[str, str]] = lambda s: (s, ""),
) -> List[Mention]:
    """Mentions from ``(line number, coref field)`` per token, in token order.

    ``cluster_of`` maps a bracket label to (cluster key, mention label). Unbalanced brackets raise
    ``CorefFormatError`` naming ``source`` and the line.
    """
    open_spans: Dict[str, List[Tuple[int, int, str]]] = {}  # cluster -> stack of (start, line, label)
    mentions: List[Mention] = []
    token = -1
    for token, (line, field) in enumerate(cells):
        field = field.strip()
        if field in ("", "_", "-"):
            continue
        rest = field.replace("|", "")
        items = ITEM.findall(field)
        if "".join(items).replace("|", "") != rest:
            raise CorefFormatError(f"{_where(source, line)}: cannot parse coreference field {field!r}")
        for item in items:
            opens, closes = item.startswith("("), item.endswith(")")
            name = item.strip("()")
            if not opens and not closes:
                raise CorefFormatError(f"{_where(source, line)}: item {item!r} in {field!r} has no bracket")
            cluster, label = cluster_of(name)
            if opens:
                open_spans.setdefault(cluster, []).append((token, line, label))
            if closes:
                stack = open_spans.get(cluster)
                if not stack:
                    raise CorefFormatError(
                        f"{_where(source, line)}: {item!r} closes cluster {cluster!r}, which is not open"
                    )
                start, _, open_label = stack.pop()
                mentions.append(Mention(start, token + 1, cluster, open_label or label))
    unclosed = [(cluster, line) for cluster, stack in open_spans.items() for _, line, _ in stack]
    if unclosed:
        cluster, line = unclosed[0]
        raise CorefFormatError(
            f"{_where(source, line)}: cluster {cluster!r} opened here is never closed "
            f"({len(unclosed)} unclosed bracket(s) in the document)"
        )
    return sorted(mentions, key=lambda m: (m.start, -m.end, m.cluster))
