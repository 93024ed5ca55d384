"""One row per character: the entity table merges the entities that are one person by their names, and keeps
people who share a surname apart."""
from spacy_entmem.linguistics.values import AUNT_TITLE, MALE_TITLE, MARRIED_TITLE, UNMARRIED_TITLE
from collections import Counter

from spacy_entmem.pipeline.characters import character_keys, description, merge_characters, name_key
from spacy_entmem.pipeline.entities import MentionRecord, canonical_name, is_pure_name, summarise, table_entities
from spacy_entmem.linguistics.values import FEMININE, MASCULINE


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


def test_titles_of_address_headings_and_dashes_are_no_name_words():
    assert name_key("Cap'n Smollett") == name_key("Doctor Smollett") == name_key("Squire Smollett") == (0, ("smollett",))
    assert name_key("O George") == (0, ("george",))
    assert name_key("I. “Has Mr. Trelawney") is None and name_key("XII") is None
    assert name_key("L. Frank Baum") == (0, ("l.", "frank", "baum"))  # one letter but I is an initial
    assert name_key("Ben Gunn--Ben Gunn") == (0, ("ben", "gunn"))


def test_a_role_capitalised_after_the_names_someone():
    assert name_key("the Queen") == name_key("The Queen of the Field Mice") == (0, ("queen",))
    assert name_key("the queen") is None and name_key("Mother") is None


def test_forms_of_one_given_name_are_one_character_where_the_book_confirms_them():
    said = Counter({(0, ("ben", "gunn")): 20, (0, ("benjamin", "gunn")): 2, (0, ("gunn",)): 5,
                    (0, ("tom", "redruth")): 3, (0, ("thomas", "redruth")): 4, (0, ("redruth",)): 12,
                    (0, ("jo",)): 200, (0, ("jo", "march")): 4, (0, ("josephine",)): 2,
                    (0, ("dick",)): 8, (0, ("joyce",)): 11, (0, ("richard", "joyce")): 1})
    mapping = character_keys(list(said), said, together=set())
    assert mapping[(0, ("benjamin", "gunn"))] == mapping[(0, ("gunn",))] == mapping[(0, ("ben", "gunn"))]
    assert mapping[(0, ("redruth",))] == mapping[(0, ("tom", "redruth"))] == mapping[(0, ("thomas", "redruth"))]
    assert mapping[(0, ("josephine",))] == mapping[(0, ("jo",))] == (0, ("jo", "march"))  # said far less: a form
    assert mapping[(0, ("dick",))] != mapping[(0, ("joyce",))]  # said about as often: two people
    confirmed = character_keys(list(said), said, together={frozenset(("dick", "richard"))})
    assert confirmed[(0, ("dick",))] == confirmed[(0, ("joyce",))]  # an entity of the memory holds both


def test_a_bare_surname_one_titled_name_holds_is_that_person():
    mapping = character_keys([(0, ("brooke",)), (MALE_TITLE, ("brooke",)), (0, ("march",)), (MALE_TITLE, ("march",)),
                              (MARRIED_TITLE, ("march",))])
    assert mapping[(0, ("brooke",))] == (MALE_TITLE, ("brooke",))
    assert mapping[(0, ("march",))] == (0, ("march",))  # two titled Marches: left alone


def test_a_mr_surname_is_the_one_masculine_full_name_of_it_said_less_often():
    said = Counter({(MALE_TITLE, ("darling",)): 26, (0, ("george",)): 9, (0, ("george", "darling")): 1,
                    (MARRIED_TITLE, ("darling",)): 47, (0, ("wendy", "moira", "angela", "darling")): 1})
    mapping = character_keys(list(said), said)
    george = (0, ("george", "darling"))
    assert mapping[(MALE_TITLE, ("darling",))] == mapping[(0, ("george",))] == george
    assert mapping[(MARRIED_TITLE, ("darling",))] == (MARRIED_TITLE, ("darling",))  # never a "Mrs."
    assert character_keys(list(said))[(MALE_TITLE, ("darling",))] == (MALE_TITLE, ("darling",))  # no counts
    son = Counter({(MALE_TITLE, ("reed",)): 3, (0, ("john", "reed")): 4, (0, ("john",)): 30})
    assert character_keys(list(son), son)[(MALE_TITLE, ("reed",))] == (MALE_TITLE, ("reed",))  # said more often
    brothers = Counter({(MALE_TITLE, ("knightley",)): 40, (0, ("george", "knightley")): 2,
                        (0, ("john", "knightley")): 2})
    assert character_keys(list(brothers), brothers)[(MALE_TITLE, ("knightley",))] == (MALE_TITLE, ("knightley",))


def test_of_several_characters_named_by_forms_of_a_given_name_only_a_far_more_said_one_takes_it():
    said = Counter({(0, ("meg", "march")): 4, (0, ("meg",)): 190, (0, ("daisy", "march")): 2, (0, ("daisy",)): 1,
                    (0, ("margaret",)): 7})
    mapping = character_keys(list(said), said, together=set())
    assert mapping[(0, ("margaret",))] == mapping[(0, ("meg",))] == (0, ("meg", "march"))  # "Daisy" said far less
    said[(0, ("daisy",))] = 60  # said about as often as Meg: which one "Margaret" is, nothing says
    assert character_keys(list(said), said, together=set())[(0, ("margaret",))] == (0, ("margaret",))


def test_a_full_name_said_once_around_a_frequent_one_is_a_slip():
    said = Counter({(0, ("tinker", "bell")): 40, (0, ("ware", "tinker", "bell")): 1, (0, ("tink",)): 30,
                    (0, ("wendy", "moira", "angela", "darling")): 1, (0, ("wendy",)): 100})
    mapping = character_keys(list(said), said)
    assert mapping[(0, ("tink",))] == mapping[(0, ("tinker", "bell"))] == (0, ("tinker", "bell"))
    assert mapping[(0, ("wendy",))] == (0, ("wendy", "moira", "angela", "darling"))  # no frequent name inside


def test_a_long_definite_description_said_again_is_one_row():
    soldier = ["the soldier with the green whiskers"]
    records = (_records(0, soldier, gender=MASCULINE) + _records(1, soldier, gender=MASCULINE, start=50)
               + _records(2, ["the man"], gender=MASCULINE, start=90) + _records(3, ["the man"], start=120))
    for record in records:
        record.mention_type = "nominal"
    rows = table_entities(records)
    assert sorted(len(row.ids or [row.id]) for row in rows) == [1, 1, 2]
    assert description(rows[0]) == "the soldier with the green whiskers"


def test_a_capitalised_role_in_apposition_is_the_names_alias():
    oz = (_records(0, ["the Great Oz", "Oz", "he", "Oz"], gender=MASCULINE)
          + _records(1, ["the Great Wizard", "the Great Wizard", "he"], gender=MASCULINE, start=100)
          + _records(2, ["Oz, the Great Wizard"], gender=MASCULINE, start=200)
          + _records(3, ["Dorothy", "Dorothy", "she"], start=300) + _records(4, ["Dorothy, the Small and Meek"], start=400)
          + _records(5, ["the Small", "the Small"], start=500) + _records(6, ["Hunter", "Hunter"], gender=MASCULINE, start=600)
          + _records(7, ["Joyce", "Joyce"], gender=MASCULINE, start=700)
          + _records(8, ["Hunter, Joyce"], gender=MASCULINE, start=800))
    rows = {entity.ids[0]: entity.ids for entity in table_entities(oz)}
    assert rows[0] == [0, 1, 2]  # the name and the role said beside it: one character
    assert rows[3] == [3, 4] and rows[5] == [5]  # "Meek" names no people: "the Small" is no alias of Dorothy
    assert 7 not in rows[6] and rows[7] == [7]  # a list of names is no apposition
    # the memory kept the name and the role as two mentions: the parse's apposition ties them the same
    apart = (_records(0, ["the Great Oz", "Oz", "he", "Oz"], gender=MASCULINE)
             + _records(1, ["the Great Wizard", "the Great Wizard", "he"], gender=MASCULINE, start=100)
             + _records(2, ["Oz"], gender=MASCULINE, start=200) + _records(3, ["the Great Wizard"], gender=MASCULINE, start=202))
    assert len(table_entities(apart)) == 2
    apart[-1].apposed_to = "Oz"
    assert [e.ids for e in table_entities(apart)] == [[0, 1, 2, 3]]


def test_a_role_word_does_not_begin_a_full_name_but_a_given_name_does():
    from spacy_entmem.pipeline.characters import role_words

    people = {"witch", "wendy", "ned", "captain"}  # (the lists of nouns for people hold some given names)
    roles = role_words({"witch", "wendy", "ned", "captain", "glinda"}, people)
    assert roles == {"witch", "captain"}
    keys = [(0, ("witch",)), (0, ("witch", "glinda")), (0, ("ned",)), (0, ("ned", "moffat"))]
    mapping = character_keys(keys, roles=roles)
    assert mapping[(0, ("witch",))] == (0, ("witch",))  # "the Witch of the North" is not "the Witch Glinda"
    assert mapping[(0, ("ned",))] == (0, ("ned", "moffat"))
    assert character_keys(keys)[(0, ("witch",))] == (0, ("witch", "glinda"))  # (without roles: the old reading)



def test_rows_mostly_called_by_one_role_of_one_place_are_one_character():
    from spacy_entmem.pipeline.characters import role_of

    people = {"witch", "king"}
    assert role_of("the Good Witch of the North", people) == ("witch", "north")
    assert role_of("The Witch of the North", people) == ("witch", "north")
    assert role_of("the King of the Winged Monkeys", people) == ("king", "winged monkeys")
    assert role_of("the Witch of the north", people) is None and role_of("the Land of Oz", people) is None

    def nominal(entity, texts, gender=FEMININE, start=0):
        records = _records(entity, texts, gender, start)
        for record in records:
            record.mention_type = "pronoun" if record.text in ("she", "he") else "nominal"
        return records

    witches = (nominal(0, ["the Witch of the North", "the Witch of the North", "she"])
               + nominal(1, ["the Good Witch", "the Good Witch of the North", "she"], start=100)
               + nominal(2, ["the Wicked Witch of the West", "the Wicked Witch of the West", "she"], start=200)
               + nominal(3, ["the Witch of the East", "she"], start=300))
    from spacy_entmem.pipeline.entities import summarise_all
    from spacy_entmem.pipeline.characters import same_role_rows

    rows = same_role_rows(summarise_all(witches), summarise, people)
    assert sorted(row.ids or [row.id] for row in rows) == [[0, 1], [2], [3]]
    # a man and a woman of one role, and two rows named apart, stay apart
    kings = nominal(0, ["the King of Beasts", "he"], gender=MASCULINE) + nominal(1, ["the King of Beasts", "she"], start=50)
    assert len(same_role_rows(summarise_all(kings), summarise, people)) == 2
    named = (_records(0, ["Glinda", "Glinda", "the Good Witch of the South"]) +
             _records(1, ["Ozma", "Ozma", "the Good Witch of the South"], start=100))
    assert len(same_role_rows(summarise_all(named), summarise, people)) == 2


def test_a_bare_name_the_memory_joined_to_another_person_moves_to_the_row_it_names():
    silver = _records(0, ["Long John", "he", "Morgan", "Long John", "Morgan", "he", "Long John"], MASCULINE)
    morgan = _records(1, ["Tom Morgan", "he", "Tom Morgan"], MASCULINE, start=100)
    redruth = _records(2, ["Redruth"], MASCULINE, start=200)  # a row that is all stray joins its owner
    tom = _records(3, ["Tom Redruth", "Tom Redruth"], MASCULINE, start=300)
    rows = {row.name: row for row in table_entities(silver + morgan + redruth + tom)}
    assert [m.text for m in rows["Tom Morgan"].mentions if m.mention_type == "name"] == [
        "Morgan", "Morgan", "Tom Morgan", "Tom Morgan"]
    assert "Morgan" not in rows["Long John"].aliases and rows["Long John"].n_mentions == 5
    assert sorted(rows["Tom Redruth"].ids) == [2, 3] and "Redruth" not in rows
    # a one-word name another row is called by alone moves to that row ("Marmee" joined to Laurie's entity)
    laurie = _records(6, ["Laurie", "he", "Laurie", "Marmee", "Laurie"], MASCULINE, start=500)
    marmee = _records(7, ["Marmee", "she", "Marmee"], FEMININE, start=600)
    rows = {row.name: row for row in table_entities(laurie + marmee)}
    assert rows["Marmee"].n_mentions == 4 and rows["Laurie"].n_mentions == 4 and "Marmee" not in rows["Laurie"].aliases
    # a surname two full names end with stays where the memory put it
    shared = _records(4, ["Sam Morgan", "Sam Morgan"], MASCULINE, start=400)
    rows = {row.name: row for row in table_entities(silver + morgan + shared)}
    assert rows["Long John"].n_mentions == 7


def test_a_row_mostly_called_by_a_description_is_not_named_by_the_names_joined_to_it():
    # the captain's entity holds the "Jim" he says to the narrator (quoted): 8 "the captain" against 2 names
    from dataclasses import replace

    captain = [replace(r, quoted=r.text == "Jim") for r in _records(
        0, ["the captain", "he", "Jim"] + ["the captain"] * 7 + ["Jim", "he"], MASCULINE)]
    jim = _records(1, ["Jim Hawkins", "Jim", "he", "Jim Hawkins", "Jim"], MASCULINE, start=100)
    rows = {row.name: row for row in table_entities(captain + jim)}
    assert set(rows) == {"the captain", "Jim Hawkins"}
    assert rows["the captain"].n_mentions == 10 and "Jim" not in rows["the captain"].aliases
    assert rows["Jim Hawkins"].n_mentions == 7 and rows["Jim Hawkins"].ids == [1]  # (the captain keeps his id)
    # a name the narration gives keys the entity, however often a description is said ("the old man" … "Santiago")
    narrated = [replace(r, quoted=False) for r in captain]
    assert [row.n_mentions for row in table_entities(narrated + jim)] == [17]
    # and with fewer descriptions the names key it too: it is Jim's
    named = [replace(r, quoted=r.text == "Jim") for r in _records(
        0, ["the captain", "he", "Jim", "the captain", "Jim"], MASCULINE)]
    assert [row.n_mentions for row in table_entities(named + jim)] == [10]


def test_a_row_called_the_role_of_the_one_titled_surname_joins_that_person():
    livesey = _records(0, ["Dr. Livesey", "he", "Dr. Livesey", "Livesey"], MASCULINE)
    doctor = _records(1, ["the doctor", "he", "the doctor"], MASCULINE, start=100)
    rows = table_entities(livesey + doctor)
    assert [(row.name, row.ids, row.n_mentions) for row in rows] == [("Dr. Livesey", [0, 1], 7)]
    # two doctors in the book: "the doctor" may be either, and stays apart
    roylott = _records(2, ["Dr. Roylott", "Dr. Roylott"], MASCULINE, start=200)
    assert len(table_entities(livesey + doctor + roylott)) == 3
    # a title said once is no evidence ("Cap'n Trelawney", said of the squire in jest)
    once = _records(3, ["Captain Smollett", "he", "Smollett"], MASCULINE, start=300)
    captain = _records(4, ["the captain", "the captain"], MASCULINE, start=400)
    assert len(table_entities(once + captain)) == 2


def test_a_narrators_i_and_a_role_said_to_him_count_as_the_role_a_heading_names():
    """"Narrative Continued by the Doctor": the row of his unquoted I's (speaker "the Doctor", no name mention)
    joins Dr. Livesey; so does a row called "Doctor" (said to him) as often as "the doctor"."""
    livesey = _records(0, ["Dr. Livesey", "he", "Dr. Livesey", "Livesey"], MASCULINE)
    narrated = [MentionRecord(1, 0, 100 + k, 101 + k, 0, "I", "pronoun", MASCULINE, 1, "person", speaker="the Doctor")
                for k in range(3)]
    rows = table_entities(livesey + narrated)
    assert [(row.name, row.ids, row.n_mentions) for row in rows] == [("Dr. Livesey", [0, 1], 7)]
    called = _records(2, ["the doctor", "Doctor", "Doctor", "the doctor", "he"], MASCULINE, start=200)
    rows = table_entities(livesey + called)
    assert [(row.name, row.ids) for row in rows] == [("Dr. Livesey", [0, 2])]


def test_an_unnamed_narrator_is_filed_under_a_name_only_if_it_is_said_twice():
    """Watson's unquoted I's, with one stray "John Clay" joined to them, stay apart from John Clay's row; a narrator
    the text names twice ("Ishmael") is filed under the name."""
    def narrator(entity, names, start=0):
        return ([MentionRecord(entity, 0, start + k, start + k + 1, 0, "I", "pronoun", MASCULINE, 1, "person")
                 for k in range(25)] + _records(entity, names, MASCULINE, start=start + 30))

    clay = _records(1, ["John Clay", "he", "John Clay"], MASCULINE, start=200)
    rows = table_entities(narrator(0, ["John Clay"]) + clay)
    assert sorted((row.name, row.ids) for row in rows) == [("I", [0]), ("John Clay", [1])]  # named "I", not "John Clay"
    ishmael = _records(3, ["Ishmael", "he"], MASCULINE, start=300)
    rows = table_entities(narrator(2, ["Ishmael", "Ishmael"]) + ishmael)
    assert [row.ids for row in rows] == [[2, 3]]


def test_a_possessive_name_is_not_moved_to_the_possessor():
    sid = _records(0, ["Sid", "he", "Tom's younger brother", "Sid"], MASCULINE)
    tom = _records(1, ["Tom", "he", "Tom"], MASCULINE, start=100)
    rows = {row.name: row for row in table_entities(sid + tom)}
    assert "Tom's younger brother" in rows["Sid"].aliases and rows["Tom"].n_mentions == 3
