"""Showing clusters: a plain-text listing and an HTML view (displaCy's span style)."""
import warnings
from typing import List, Optional, Sequence

from spacy import displacy
from spacy.tokens import Doc, SpanGroup

from .attributes import coref_clusters, main_mention

VIEW_KEY = "_entmem_view"
PALETTE = ["#7aecec", "#bfeeb7", "#feca74", "#ff9561", "#aa9cfc", "#c887fb", "#9cc9cc", "#ffeb80",
           "#ff8197", "#e4e7d2", "#bfe1d9", "#f0d0ff"]


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
    """One HTML page with every doc's cluster mentions underlined and labelled by cluster."""
    views = []
    colors = {}
    for i, doc in enumerate(docs):
        view = doc.copy()
        spans = []
        for group in coref_clusters(doc):
            label = f"{group.attrs.get('index', '?')}: {main_mention(group).text}"[:40]
            colors.setdefault(label, PALETTE[len(colors) % len(PALETTE)])
            spans.extend(view.char_span(s.start_char, s.end_char, label=label) for s in group)
        view.spans[VIEW_KEY] = SpanGroup(view, name=VIEW_KEY, spans=[s for s in spans if s is not None])
        if titles is not None:
            view.user_data["title"] = titles[i]
        views.append(view)
    with warnings.catch_warnings():  # a doc without clusters is shown as plain text
        warnings.filterwarnings("ignore", message=r"\[W117\]")
        return displacy.render(views, style="span", page=True, options={"spans_key": VIEW_KEY, "colors": colors})
