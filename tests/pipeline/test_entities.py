"""The entity table: mention records read with the memory's attributes, and one summary row per entity."""
import spacy
from spacy.tokens import Span, SpanGroup

from spacy_entmem.linguistics.switches import switched_off
from spacy_entmem.pipeline.attributes import ROLE
from spacy_entmem.pipeline.entities import EntityTable, doc_entities, mention_records, summarise_all


def _annotated(text, mentions):
    """A blank-pipeline doc with a mentions group: ``mentions`` (start, end, entity id)."""
    doc = spacy.blank("en")(text)
    doc.spans["coref_mentions"] = SpanGroup(doc, name="coref_mentions", spans=[Span(doc, s, e) for s, e, _ in mentions],
                                            attrs={ROLE: "mentions", "entity_ids": [m[2] for m in mentions]})
    return doc


def test_rows_name_count_and_classify_each_entity():
    #                0     1      2    3    4   5       6  7   8     9    10 11   12  13  14   15  16
    doc = _annotated("Mrs. Bennet said that she met Mr. Bingley in London . Her husband saw him in the city .",
                     [(0, 2, 0), (4, 5, 0), (6, 8, 1), (9, 10, 2), (11, 13, 0), (14, 15, 1), (16, 18, 2)])
    rows = {entity.id: entity for entity in doc_entities(doc)}
    bennet, bingley, london = rows[0], rows[1], rows[2]
    assert (bennet.name, bennet.kind, bennet.gender, bennet.number) == ("Mrs. Bennet", "person", "feminine", "singular")
    assert bennet.counts == {"name": 1, "nominal": 1, "pronoun": 1} and bennet.aliases == ["Her husband"]
    assert bennet.first == (0, 0) and bennet.last == (0, 11)
    assert (bingley.name, bingley.gender, bingley.counts["pronoun"]) == ("Mr. Bingley", "masculine", 1)
    assert (london.name, london.kind) == ("London", "place")  # a place noun ("city") and a name
    assert [entity.id for entity in doc_entities(doc)] == [0, 1, 2]  # most mentioned first


def test_the_canonical_name_is_the_fullest_name_and_possessives_are_cut():
    doc = _annotated("Elizabeth 's letter came . Elizabeth Bennet smiled and Lizzy laughed .",
                     [(0, 2, 0), (5, 7, 0), (9, 10, 0)])
    (entity,) = doc_entities(doc)
    assert entity.name == "Elizabeth Bennet" and set(entity.aliases) == {"Elizabeth", "Lizzy"}


def test_a_row_is_not_named_by_a_heading_a_broken_off_name_said_once_or_a_place():
    from spacy.tokens import Doc

    def annotated(words, mentions):
        doc = Doc(spacy.blank("en").vocab, words=words)
        doc.spans["coref_mentions"] = SpanGroup(doc, name="coref_mentions", spans=[Span(doc, s, e) for s, e in mentions],
                                                attrs={ROLE: "mentions", "entity_ids": [0] * len(mentions)})
        (entity,) = doc_entities(doc, merge_characters=False)
        return entity

    # a chapter number is no name: the row takes its most frequent nominal
    squire = annotated("And the squire read I. and the squire slept".split(), [(1, 3), (4, 5), (6, 8)])
    assert squire.name == "the squire" and "I." in squire.aliases
    # "Doctor" (a title of address, no name) said three times, "Mr. Bones--" once: not "Mr. Bones"
    doctor = annotated("So Doctor came , Doctor sat , Doctor spoke to Mr. Bones-- then".split(),
                       [(1, 2), (4, 5), (7, 8), (10, 12)])
    assert doctor.name == "Doctor" and "Mr. Bones" in doctor.aliases  # (the broken-off dash cut)
    # a person row the memory joined a place name to is not named by the place
    joined = annotated("He went to London . London was far . He wrote .".split(), [(0, 1), (3, 4), (5, 6), (9, 10)])
    assert joined.kind == "person" and joined.name == "He" and joined.aliases == ["London"]
    named = annotated("Then Mr. Bones-- came and Mr. Bones sat".split(), [(1, 3), (5, 7)])
    assert named.name == "Mr. Bones"


def test_organisations_and_unnamed_entities():
    doc = _annotated("The committee met . It voted . A storm came .", [(0, 2, 0), (4, 5, 0), (7, 9, 1)])
    rows = {entity.id: entity for entity in doc_entities(doc)}
    assert rows[0].kind == "organisation" and rows[0].name == "The committee"
    assert rows[1].kind == "other" and rows[1].counts == {"name": 0, "nominal": 1, "pronoun": 0}


def test_a_noun_for_people_on_the_packaged_lists_makes_a_person():
    doc = _annotated("The paramedic arrived . A storm came .", [(0, 2, 0), (4, 6, 1)])
    rows = {entity.id: entity for entity in doc_entities(doc)}
    assert rows[0].kind == "person" and rows[1].kind == "other"
    with switched_off("learnt_person_nouns"):  # the typed training heads alone do not know "paramedic"
        assert {entity.id: entity.kind for entity in doc_entities(doc)}[0] == "other"


def test_a_plural_noun_for_people_makes_a_person_group():
    doc = _annotated("The paramedics arrived . The storms came .", [(0, 2, 0), (4, 6, 1)])
    for token in doc:
        token.tag_ = "NNS" if token.text in ("paramedics", "storms") else "DT"
    rows = {entity.id: entity for entity in doc_entities(doc)}
    assert (rows[0].kind, rows[0].number) == ("person", "plural") and rows[1].kind == "other"
    with switched_off("person_noun_plurals"):  # "paramedics" itself is on no list
        assert {entity.id: entity.kind for entity in doc_entities(doc)}[0] == "other"


def test_a_doc_without_mentions_has_no_entities_and_the_table_round_trips():
    assert doc_entities(spacy.blank("en")("Nothing here .")) == []
    doc = _annotated("Anna called Ben . He answered her .", [(0, 1, 0), (2, 3, 1), (4, 5, 1), (6, 7, 0)])
    table = EntityTable()
    table.add(doc, 0, 0)
    table.add(doc, 1, len(doc))
    again = EntityTable.from_list(table.to_list())
    assert [e.as_row() for e in again.entities()] == [e.as_row() for e in table.entities()]
    anna = next(e for e in table.entities() if e.name == "Anna")
    assert anna.first == (0, 0) and anna.last == (1, 6) and anna.mentions[-1].stream_start == len(doc) + 6
    assert [e.name for e in table.entities("person")] == ["Anna", "Ben"] and table.entities("place") == []
    assert summarise_all(mention_records(doc)) == doc_entities(doc)


def test_a_predicate_or_an_apposition_names_no_person_of_its_own():
    from spacy.tokens import Doc

    words = "Mr. Woodhouse was a nervous man . The doctor , a tall man , came .".split()
    heads = [1, 2, 2, 5, 5, 2, 2, 8, 14, 8, 12, 12, 8, 8, 14, 14]
    deps = ["compound", "nsubj", "ROOT", "det", "amod", "attr", "punct", "det", "nsubj", "punct", "det", "amod",
            "appos", "punct", "ROOT", "punct"]
    doc = Doc(spacy.blank("en").vocab, words=words, heads=heads, deps=deps)
    doc.spans["coref_mentions"] = SpanGroup(
        doc, name="coref_mentions", spans=[Span(doc, 0, 2), Span(doc, 3, 6), Span(doc, 7, 9), Span(doc, 10, 13)],
        attrs={ROLE: "mentions", "entity_ids": [0, 1, 2, 3]})
    kinds = {entity.id: entity.kind for entity in doc_entities(doc)}
    assert kinds == {0: "person", 1: "other", 2: "person", 3: "other"}  # "a nervous man", "a tall man": no one new


def test_a_mention_the_parse_sets_in_apposition_with_another_names_it():
    from spacy.tokens import Doc

    from spacy_entmem.pipeline.entities import apposed_mentions

    #        0     1   2     3       4       5       6
    words = ["Oz", ",", "the", "Great", "Wizard", "spoke", "."]
    doc = Doc(spacy.blank("en").vocab, words=words, heads=[5, 0, 4, 4, 0, 5, 5],
              deps=["nsubj", "punct", "det", "amod", "appos", "ROOT", "punct"])
    assert apposed_mentions(doc, [(0, 1), (2, 5), (0, 5)]) == {(2, 5): "Oz"}
    assert apposed_mentions(doc, [(2, 5)]) == {}  # (no mention for the name: nothing to name)
    listed = Doc(spacy.blank("en").vocab, words=["Dorothy", ",", "the", "Scarecrow", "and", "the", "Lion", "left"])
    assert apposed_mentions(listed, [(0, 1), (2, 4), (5, 7)]) == {}  # a list, no apposition (and no parse needed)
    unlisted = Doc(spacy.blank("en").vocab, words=["Glinda", ",", "the", "Good", "Witch", ",", "smiled"])
    assert apposed_mentions(unlisted, [(0, 1), (2, 5)]) == {(2, 5): "Glinda"}
    doc.spans["coref_mentions"] = SpanGroup(doc, name="coref_mentions", spans=[Span(doc, 0, 1), Span(doc, 2, 5)],
                                            attrs={ROLE: "mentions", "entity_ids": [0, 1]})
    assert [r.apposed_to for r in mention_records(doc)] == ["", "Oz"]


def test_table_rows_saved_before_the_apposition_and_quotation_columns_still_load():
    table = EntityTable.from_list([[0, 0, 0, 1, 0, "Anna", "name", 2, 1, "person", ""]])
    assert table.records[0].apposed_to == "" and table.records[0].quoted is False
    assert table.to_list()[0][-2:] == ["", False]
    again = EntityTable.from_list(table.to_list() + [[1, 0, 3, 4, 0, "Jim", "name", 1, 1, "person", "", "", True]])
    assert [r.quoted for r in again.records] == [False, True]


def test_a_record_says_whether_its_mention_is_quoted():
    #                 0 1   2 3    4   5 6    7   8       9
    doc = _annotated('" Jim , come here , " said the captain .', [(1, 2, 0), (8, 10, 1)])
    assert [(r.text, r.quoted) for r in mention_records(doc)] == [("Jim", True), ("the captain", False)]
