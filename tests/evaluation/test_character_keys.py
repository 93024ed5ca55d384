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
