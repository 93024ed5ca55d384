"""One row per character: the entity table merges the entities that are one person by their names, and keeps
people who share a surname apart."""
from spacy_entmem.nn.memory.mention_memory import AUNT_TITLE, MALE_TITLE, MARRIED_TITLE, UNMARRIED_TITLE
from spacy_entmem.pipeline.characters import character_keys, merge_characters, name_key
from spacy_entmem.pipeline.entities import MentionRecord, canonical_name, is_pure_name, summarise, table_entities
from spacy_entmem.pipeline.mention_attributes import FEMININE, MASCULINE


def test_a_name_is_read_as_its_title_group_and_name_words():
    assert name_key("Mrs. March") == (MARRIED_TITLE, ("march",))
    assert name_key("the young Mr. Laurence's") == (MALE_TITLE, ("laurence",))
    assert name_key("Aunt March") == (AUNT_TITLE, ("march",))
    assert name_key("Miss Jo") == (UNMARRIED_TITLE, ("jo",))
    assert name_key("Poor Jo") == (0, ("jo",))
    assert name_key("Amy, finishing Jo with her Latin") == (0, ("amy",))
    assert name_key("a colt") is None and name_key("Mr. and Mrs. March") is None


def test_names_resolve_to_characters_and_shared_surnames_stay_apart():
    keys = [(0, ("jo",)), (0, ("jo", "march")), (UNMARRIED_TITLE, ("jo",)), (MARRIED_TITLE, ("march",)),
            (MALE_TITLE, ("march",)), (AUNT_TITLE, ("march",)), (0, ("meg", "march")), (0, ("silver",)),
            (0, ("long", "john")), (0, ("long", "john", "silver")), (0, ("hawkins",)), (0, ("jim", "hawkins")),
            (MARRIED_TITLE, ("hawkins",))]
    mapping = character_keys(keys)
    jo = (0, ("jo", "march"))
    assert mapping[(0, ("jo",))] == mapping[(UNMARRIED_TITLE, ("jo",))] == jo
    assert len({mapping[k] for k in keys if k[1] == ("march",)} | {jo, mapping[(0, ("meg", "march"))]}) == 5
    assert mapping[(0, ("silver",))] == mapping[(0, ("long", "john"))] == (0, ("long", "john", "silver"))
    assert mapping[(0, ("hawkins",))] == (0, ("hawkins",))  # "Mrs. Hawkins" shares the surname: left alone


def _records(entity, texts, gender=FEMININE, start=0):
    return [MentionRecord(entity, 0, start + 3 * k, start + 3 * k + len(text.split()), 0, text,
                          "pronoun" if text in ("she", "he") else "name", gender, 1, "person") for k, text in enumerate(texts)]


def test_the_entity_table_lists_each_character_once_with_all_its_ids():
    records = (_records(0, ["Jo March", "Jo", "she", "Jo"]) + _records(5, ["Jo", "she", "Jo"], start=100)
               + _records(7, ["Miss Jo"], start=200) + _records(2, ["Mrs. March", "she"], start=300)
               + _records(3, ["Mr. March", "he"], gender=MASCULINE, start=400)
               + _records(9, ["Meg March", "Meg"], start=500))
    merged = table_entities(records)
    rows = {entity.name: entity for entity in merged}
    assert set(rows) == {"Jo", "Mrs. March", "Mr. March", "Meg March"}  # ("Jo March" is said once: an alias)
    jo = rows["Jo"]
    assert jo.id == 0 and jo.ids == [0, 5, 7] and jo.n_mentions == 8 and {"Jo March", "Miss Jo"} <= set(jo.aliases)
    assert rows["Mrs. March"].ids == [2]
    assert len(table_entities(records, merge_characters=False)) == 6
    again = merge_characters(table_entities(records, merge_characters=False), summarise)
    assert [(e.name, e.ids) for e in again] == [(e.name, e.ids) for e in merged]


def test_a_man_and_a_woman_of_one_name_stay_two_rows():
    records = _records(0, ["Sam Lee", "Sam"]) + _records(1, ["Sam", "Sam"], gender=MASCULINE, start=50)
    assert len(table_entities(records)) == 2


def test_the_canonical_name_is_a_frequent_pure_name():
    names = _records(0, ["Amy, finishing Jo with her Latin", "Amy", "Amy", "Amy March", "Amy March", "Amy"])
    from collections import Counter

    assert canonical_name(names, Counter(r.text for r in names)) == "Amy March"
    assert is_pure_name("the young Mr. Laurence") and not is_pure_name("Hunter and Joyce")


def test_a_name_the_table_could_not_type_joins_the_person_of_that_name():
    records = _records(0, ["Nibs", "he", "Nibs"], gender=MASCULINE)
    records += [MentionRecord(4, 0, 90, 91, 0, "Nibs", "name", 0, 1, "")]  # no vote for any kind: "other"
    rows = table_entities(records)
    assert [(row.name, row.ids, row.kind) for row in rows] == [("Nibs", [0, 4], "person")]
