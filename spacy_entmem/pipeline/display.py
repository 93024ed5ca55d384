"""Showing clusters: a plain-text listing and an HTML page.

The HTML page shows each text as written (its own spaces and line breaks, not tokens), every cluster mention
underlined in its cluster's colour and closed by the cluster's number. Mentions that nest or touch ("my sister
Rosa" around "my") are nested elements, each one underlined lower than the mentions it holds, so no label or line
covers another; a mention that crosses another is cut where the other ends and goes on after it. Each text ends
with a legend: the clusters' colours, numbers, main mentions and sizes.
"""
import html
from typing import Dict, List, Optional, Sequence, Tuple

from spacy.tokens import Doc

from .attributes import coref_clusters, main_mention

PALETTE = ["#1f9e89", "#e66101", "#5e3c99", "#d01c8b", "#4dac26", "#0571b0", "#b8860b", "#ca0020", "#7b3294",
           "#008837", "#8c510a", "#2c7bb6"]
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>spacy-entmem clusters</title>
<style>
body {{ font-family: Georgia, serif; max-width: 50em; margin: 2em auto; line-height: 2.6; color: #222; }}
.text {{ white-space: pre-wrap; }}
.m {{ border-bottom: 2px solid var(--c); padding-bottom: calc(1px + var(--d) * 4px); }}
.m > sub {{ color: var(--c); font: bold 0.65em sans-serif; vertical-align: -0.3em; margin-left: 1px; }}
.legend {{ line-height: 1.5; font: 0.9em sans-serif; border-top: 1px solid #ccc; margin: 1em 0 3em; padding-top: .5em; }}
.legend span {{ display: inline-block; width: .9em; height: .9em; background: var(--c); margin-right: .4em; }}
</style></head><body>
{body}
</body></html>
"""


def format_clusters(doc: Doc) -> str:
    clusters = coref_clusters(doc)
    if not clusters:
        return "(no coreference clusters)"
    lines = []
    for group in clusters:
        main = main_mention(group)
        mentions = ", ".join(f"{span.text!r}@{span.start}" for span in group)
        lines.append(f"{group.name} [{main.text}]: {mentions}")
    return "\n".join(lines)


def clusters_html(docs: Sequence[Doc], titles: Optional[List[str]] = None) -> str:
    """One HTML page with every doc's text as written, its cluster mentions marked (see the module docstring)."""
    parts = []
    for i, doc in enumerate(docs):
        title = titles[i] if titles is not None else f"text {i + 1}"
        mentions, legend = [], []
        for number, group in enumerate(coref_clusters(doc), start=1):
            color = PALETTE[(number - 1) % len(PALETTE)]
            mentions.extend((span.start_char, span.end_char, number, color) for span in group)
            legend.append(f'<div style="--c: {color}"><span></span><b>{number}</b> '
                          f'{html.escape(main_mention(group).text)} ({len(group)} mentions)</div>')
        parts.append(f"<h2>{html.escape(str(title))}</h2>\n<div class=\"text\">{marked_text(doc.text, mentions)}</div>"
                     f"\n<div class=\"legend\">{''.join(legend) or 'no clusters'}</div>")
    return PAGE.format(body="\n".join(parts))


Mention = Tuple[int, int, int, str]  # start and end character, cluster number, colour


def marked_text(text: str, mentions: Sequence[Mention]) -> str:
    """``text`` as HTML with each mention a ``<span class="m">`` closed by its cluster's number; nested mentions
    nest, each underlined below the ones inside it (``--d``: how many it holds, deepest first)."""
    mentions = sorted(set(mentions), key=lambda m: (m[0], -m[1]))
    depth: Dict[Mention, int] = {}
    for mention in sorted(mentions, key=lambda m: m[1] - m[0]):  # inner (shorter) ones first
        inner = [depth[m] for m in depth if m[0] >= mention[0] and m[1] <= mention[1]]
        depth[mention] = 1 + max(inner) if inner else 0
    boundaries = sorted({0, len(text)} | {m[0] for m in mentions} | {m[1] for m in mentions})
    out, stack = [], []
    starting: Dict[int, List[Mention]] = {}
    for mention in mentions:
        starting.setdefault(mention[0], []).append(mention)
    for position, following in zip(boundaries, boundaries[1:] + [None]):
        closing = [m for m in stack if m[1] == position]
        if closing:  # close down to the outermost one ending here, then reopen those that go on (a crossing)
            index = min(stack.index(m) for m in closing)
            reopen = [m for m in stack[index:] if m[1] != position]
            for mention in reversed(stack[index:]):
                out.append(f"<sub>{mention[2]}</sub></span>" if mention[1] == position else "</span>")
            del stack[index:]
            for mention in reopen:
                out.append(_open(mention, depth[mention]))
                stack.append(mention)
        for mention in starting.get(position, []):
            out.append(_open(mention, depth[mention]))
            stack.append(mention)
        if following is not None:
            out.append(html.escape(text[position:following]))
    return "".join(out)


def _open(mention: Mention, depth: int) -> str:
    return f'<span class="m" style="--c: {mention[3]}; --d: {depth}">'
