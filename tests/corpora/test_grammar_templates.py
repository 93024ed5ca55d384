import pytest
import spacy

from spacy_entmem.corpora.grammar_templates import (TEMPLATES, TemplateGenerator, capitalised_words,
                                                    check_disjoint, disjoint_names, generator_words,
                                                    template_corpus)
from spacy_entmem.linguistics.values import FEMININE, MASCULINE

NAMES = {MASCULINE: ["tobias", "anselm"], FEMININE: ["greta", "ilse"]}


def clusters(doc):
    return sorted(sorted(span.text for span in doc.spans[key]) for key in doc.spans)


def test_every_template_renders_onto_token_boundaries_with_one_group_per_entity():
    docs = TemplateGenerator(NAMES, seed=3).docs(spacy.blank("en"), 4 * len(TEMPLATES))
    assert len(docs) == 4 * len(TEMPLATES)
    for doc in docs:
        mentions = [span for key in doc.spans for span in doc.spans[key]]
        assert mentions and all(key.startswith("coref_clusters_") for key in doc.spans)
        assert len({(s.start, s.end) for s in mentions}) == len(mentions)  # no mention in two entities


def test_the_syntax_decides_the_gold_links():
    generator = TemplateGenerator({MASCULINE: ["tobias"], FEMININE: ["greta"]}, seed=0)
    nlp = spacy.blank("en")
    by_phenomenon = {}
    for template, doc in zip(TEMPLATES, generator.docs(nlp, len(TEMPLATES))):
        by_phenomenon.setdefault(template.phenomenon, []).append(doc)
    for doc in by_phenomenon["coordination"]:  # "A verb B and verb2 him": him is B, never A
        first, pronoun = doc[0:2].text, [t for t in doc if t.lower_ in ("him", "her")][-1]
        together = [c for c in clusters(doc) if pronoun.text in c][0]
        assert not any(first.startswith(m) or m.startswith(doc[0].text) for m in together if m != pronoun.text)
    for doc in by_phenomenon["reflexive"]:
        reflexive = [t.text for t in doc if t.lower_ in ("himself", "herself")][0]
        assert any(reflexive in c and len(c) == 2 for c in clusters(doc))
    two = by_phenomenon["two people"][0]
    group = [c for c in clusters(two) if "They" in c][0]
    assert len(group) == 2 and " and " in [m for m in group if m != "They"][0]


def test_both_people_of_an_item_share_a_gender():
    generator = TemplateGenerator(NAMES, seed=5)
    for _ in range(40):
        text, _ = generator.render(TEMPLATES[0])
        names = {w.lower() for w in text.replace(".", "").split() if w.istitle() and w != "The"}
        assert not (names & {"tobias", "anselm"} and names & {"greta", "ilse"}), text


def test_held_out_words_and_names_are_refused_or_left_out():
    with pytest.raises(ValueError, match="shared with a held-out set: \\['florist'\\]"):
        check_disjoint(generator_words(), {"the", "florist"}, "nouns")
    genders = {"tobias": MASCULINE, "anselm": MASCULINE, "greta": FEMININE, "ilse": FEMININE}
    names = disjoint_names(genders, capitalised_words(["Tobias met Ilse."]))
    assert names == {MASCULINE: ["anselm"], FEMININE: ["greta"]}
    with pytest.raises(ValueError, match="nouns for people or verbs"):
        template_corpus(spacy.blank("en"), 2, genders, ["The florist waved."])
    docs = template_corpus(spacy.blank("en"), 5, genders, ["Tobias met Ilse."])
    assert not any("Tobias" in d.text or "Ilse" in d.text for d in docs)
