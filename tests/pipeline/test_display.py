"""The HTML page: the text as written, nested and touching mentions as nested elements, a legend of clusters."""
import re

import spacy
from spacy.tokens import SpanGroup

from spacy_entmem.pipeline.attributes import ROLE
from spacy_entmem.pipeline.display import clusters_html, marked_text


def _doc():
    nlp = spacy.blank("en")
    doc = nlp("I met my sister Rosa.\nShe  smiled at me.")
    groups = {1: [(2, 5), (6, 7)], 2: [(0, 1), (2, 3), (10, 11)]}  # my sister Rosa / She; I / my / me
    for index, spans in groups.items():
        doc.spans[f"coref_clusters_{index}"] = SpanGroup(doc, name=f"coref_clusters_{index}",
                                                         spans=[doc[s:e] for s, e in spans],
                                                         attrs={ROLE: "cluster", "index": index})
    return doc


def test_the_page_shows_the_text_as_written_with_nested_mentions_and_a_legend():
    page = clusters_html([_doc()], ["letter"])
    assert page.startswith("<!DOCTYPE html>") and "<h2>letter</h2>" in page
    body = re.sub(r"<[^>]+>", "", page[page.index('<div class="text">'):page.index('<div class="legend">')])
    assert re.sub(r"\d", "", body).strip() == "I met my sister Rosa.\nShe  smiled at me."  # spaces, line break kept
    text = page[page.index('<div class="text">'):]
    # "my" sits inside "my sister Rosa", closed (with its number) before the outer one goes on
    assert re.search(r'<span class="m" style="--c: [^;]+; --d: 1">(<span class="m" style="--c: [^;]+; --d: 0">'
                     r'my<sub>2</sub></span>) sister Rosa<sub>1</sub></span>', text)
    assert "<b>1</b> my sister Rosa (2 mentions)" in page and "<b>2</b>" in page


def test_crossing_mentions_are_cut_and_go_on_and_markup_is_escaped():
    html = marked_text("a <b> c d", [(0, 5, 1, "#000"), (2, 9, 2, "#111")])
    assert html.count("<sub>1</sub>") == 1 and html.count("<sub>2</sub>") == 1
    assert "&lt;b&gt;" in html and re.sub(r"<[^>]+>|\d", "", html) == "a &lt;b&gt; c d"
    assert html.count('<span class="m"') == 3  # mention 2 is cut where mention 1 ends and reopened
