"""Character keys of whole books: the committed keys load, and an entity table is scored by them."""
import json
from pathlib import Path

import pytest

from spacy_entmem.evaluation.character_keys import load_key, mention_name, score_entities
from spacy_entmem.pipeline.entities import MentionRecord, summarise

KEYS = Path(__file__).resolve().parents[1] / "fixtures" / "data" / "books"


@pytest.mark.parametrize("path", sorted(KEYS.glob("*.json")), ids=lambda p: p.stem)
def test_each_committed_key_names_ten_or_more_characters_each_name_once(path):
    key = load_key(path)
    assert len(key.characters) >= 10 and key.book.endswith(".txt") and key.chapters
    index = key.name_index()
    assert len(index) == sum(len(set(names)) for names in key.characters.values())


def test_a_name_listed_for_two_characters_or_a_malformed_key_is_refused(tmp_path):
    path = tmp_path / "key.json"
    path.write_text(json.dumps({"book": "b.txt", "characters": {"A": ["Ann"], "B": ["Ann", "Bea"]}}))
    with pytest.raises(ValueError, match="'Ann' is listed for both 'A' and 'B'"):
        load_key(path)
    path.write_text(json.dumps({"book": "b.txt", "characters": {"A": []}}))
    with pytest.raises(ValueError, match="'A' needs a non-empty list of names"):
        load_key(path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="cannot read the character key"):
        load_key(path)


def test_mention_names_drop_the_article_and_the_possessive():
    assert mention_name("the  Scarecrow's") == "Scarecrow" and mention_name("Jo") == "Jo"


def _entity(entity, texts):
    records = [MentionRecord(entity, 0, k, k + 1, 0, text, "name", 2, 1, "person") for k, text in enumerate(texts)]
    return summarise(entity, records)


def test_a_table_is_scored_by_entities_per_character_share_and_merged_entities(tmp_path):
    path = tmp_path / "key.json"
    path.write_text(json.dumps({"book": "b.txt", "characters": {"Jo": ["Jo", "Josephine"], "Meg": ["Meg"]}}))
    key = load_key(path)
    entities = [_entity(0, ["Jo", "Jo", "Jo", "Josephine", "she"]), _entity(1, ["Jo"]),
                _entity(2, ["Meg", "Meg", "Jo", "Jo"])]
    score = score_entities(entities, key)
    jo, meg = score.characters
    assert (jo.found, jo.entities, jo.largest_share, jo.largest_entity) == (7, 3, 4 / 7, 0)
    assert (meg.found, meg.entities, meg.largest_share) == (2, 1, 1.0)
    assert score.merged == [2] and score.max_entities == 3 and score.person_entities == 3
    assert score.mean_share == pytest.approx((4 / 7 + 1) / 2) and score.worst_share == pytest.approx(4 / 7)
    assert (score.misplaced, score.keyed_mentions) == (2, 9)  # entity 2's two Jo or two Meg: a tie


def test_name_mentions_in_another_characters_row_count_as_misplaced_even_below_a_merge(tmp_path):
    """A row led by Beth that holds one of Annie's names is no merged row (Annie holds less than a fifth of it),
    but that mention is misplaced; a tie leaves the smaller side's count misplaced too."""
    path = tmp_path / "key.json"
    path.write_text(json.dumps({"book": "b.txt", "characters": {"Beth": ["Beth"], "Annie": ["Annie"]}}))
    key = load_key(path)
    beth_with_annie = _entity(0, ["Beth"] * 5 + ["Annie", "she"])
    score = score_entities([beth_with_annie, _entity(1, ["Annie", "Annie"])], key)
    assert score.merged == [] and (score.misplaced, score.keyed_mentions) == (1, 8)
    assert score.misplaced_share == pytest.approx(1 / 8)
    tied = score_entities([_entity(0, ["Beth", "Beth", "Annie", "Annie"])], key)
    assert tied.merged == [0] and tied.misplaced_share == pytest.approx(0.5)
    assert score_entities([], key).misplaced_share == 0.0


def test_a_key_names_its_narrators_by_chapter_and_refuses_one_that_is_no_character(tmp_path):
    path = tmp_path / "key.json"
    path.write_text(json.dumps({"book": "b.txt", "characters": {"Jim": ["Jim"], "Doctor": ["Livesey"]},
                                "narrators": {"*": "Jim", "16": "Doctor"}}))
    key = load_key(path)
    assert (key.narrator_of("3"), key.narrator_of("16"), key.narrator_of("front matter")) == ("Jim", "Doctor", None)
    path.write_text(json.dumps({"book": "b.txt", "characters": {"Jim": ["Jim"]}, "narrators": {"*": "Silver"}}))
    with pytest.raises(ValueError, match="'narrators' maps chapter titles"):
        load_key(path)


def test_unquoted_first_person_mentions_are_scored_against_the_narrators_row(tmp_path):
    import spacy
    from spacy.tokens import SpanGroup

    import spacy_entmem  # noqa: F401  (the extension attributes)
    from spacy_entmem.evaluation.character_keys import narrator_shares, unquoted_first_person

    doc = spacy.blank("en")('"I go," I said, and my friend nodded.')
    #                        0 1 2  3 4 5 6    7 8   9  10
    doc.spans["coref_mentions"] = SpanGroup(doc, name="coref_mentions", spans=[doc[1:2], doc[5:6], doc[9:10]],
                                            attrs={"entity_ids": [4, 1, 2], "entity_memory": "mentions"})
    assert unquoted_first_person(doc) == [1, 2]  # the quoted "I" is a speaker's, not the narrator's
    path = tmp_path / "key.json"
    path.write_text(json.dumps({"book": "b.txt", "characters": {"Jim": ["Jim"], "Doctor": ["Livesey"]},
                                "narrators": {"*": "Jim", "16": "Doctor"}}))
    key = load_key(path)
    entities = [_entity(0, ["Jim", "Jim", "I"]), _entity(5, ["Livesey", "I"])]
    entities[0].ids = [0, 1]  # memory entities 0 and 1 are one row
    entities[1].ids = [5, 2]
    shares = narrator_shares(key, [("1", [1, 2]), ("16", [2, 2, 9]), ("front matter", [0])], entities,
                             score_entities(entities, key))
    assert shares == {"Jim": {"mentions": 2, "share": 0.5}, "Doctor": {"mentions": 3, "share": 2 / 3}}


def test_a_keys_quotations_are_found_by_their_opening_words_and_scored_against_the_speakers_row(tmp_path):
    import spacy
    from spacy.tokens import SpanGroup

    import spacy_entmem  # noqa: F401  (the extension attributes)
    from spacy_entmem.evaluation.character_keys import quoted_first_person, speaker_shares

    doc = spacy.blank("en")('"I go now," said Jo.\n\n"Me too.  My hat!"\n\nI left.')
    #                        0 1 2  3  4 5  6   7  8 9    10 11 12 13 14 15 16 17 18 19   20 21
    i_jo, me, my, narrator = doc[1:2], doc[11:12], doc[15:16], doc[20:21]
    assert [t.text for t in (i_jo, me, my, narrator)] == ["I", "Me", "My", "I"]
    doc.spans["coref_mentions"] = SpanGroup(doc, name="coref_mentions", spans=[i_jo, me, my, narrator],
                                            attrs={"entity_ids": [0, 5, 6, 7], "entity_memory": "mentions"})
    found = quoted_first_person(doc, [("I go", "Jo"), ("Me\ntoo.", "Laurie")])  # (any spacing between the words)
    assert found == [("Jo", [0]), ("Laurie", [5, 6])]  # the unquoted "I" is no one's quotation
    with pytest.raises(ValueError, match="no quotation opening with 'I left'"):
        quoted_first_person(doc, [("I left", "Jo")])
    path = tmp_path / "key.json"
    path.write_text(json.dumps({"book": "b.txt", "characters": {"Jo": ["Jo"], "Laurie": ["Laurie"]},
                                "speakers": {"CHAPTER ONE": [{"opens": "I go", "speaker": "Jo"}]}}))
    key = load_key(path)
    assert key.speakers == {"CHAPTER ONE": [("I go", "Jo")]}
    entities = [_entity(0, ["Jo", "Jo", "I"]), _entity(5, ["Laurie", "me"])]
    shares = speaker_shares(found, entities, score_entities(entities, key))
    assert shares == {"Jo": {"mentions": 1, "share": 1.0}, "Laurie": {"mentions": 2, "share": 0.5},
                      "all": {"mentions": 3, "share": 2 / 3}}
    path.write_text(json.dumps({"book": "b.txt", "characters": {"Jo": ["Jo"]},
                                "speakers": {"CHAPTER ONE": [{"opens": "I go", "speaker": "Amy"}]}}))
    with pytest.raises(ValueError, match="'speakers' maps chapter titles"):
        load_key(path)
