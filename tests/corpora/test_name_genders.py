"""The name-gender lexicon: counted from gold clusters and GAP rows, filtered, saved and loaded."""
import json
from collections import Counter

import pytest
import spacy

from spacy_entmem.corpora.gap import GapRow
from spacy_entmem.corpora.name_genders import (
    GIVEN, PACKAGED_LEXICON, SURNAME, build_lexicon, cluster_gender, count_name_positions, count_names, load_lexicon,
    save_lexicon,
)
from spacy_entmem.linguistics.values import FEMININE, MASCULINE, NEUTER, UNKNOWN


def _doc(text, clusters):
    doc = spacy.blank("en")(text)
    for i, spans in enumerate(clusters, 1):
        doc.spans[f"coref_clusters_{i}"] = [doc[s:e] for s, e in spans]
    return doc


def test_counts_come_from_the_clusters_pronouns_and_from_gap_rows():
    doc = _doc("Anna Smith said she saw Mr. Bob in London . He waved .",
               [[(0, 2), (3, 4)], [(5, 7), (10, 11)], [(8, 9)]])
    row = GapRow("t-1", "x", [("PRONOUN", "his", 0), ("A", "Carl Jones", 0), ("B", "the Dr. Dan", 0)], True,
                 False, 2)
    counts = count_names([doc], [row])
    assert counts["anna"] == Counter({FEMININE: 1}) and counts["bob"] == Counter({MASCULINE: 1})
    assert counts["london"] == Counter({UNKNOWN: 1})
    assert counts["carl"] == Counter({MASCULINE: 1}) and counts["dan"] == Counter({MASCULINE: 1})
    assert "she" not in counts and "he" not in counts and "mr." not in counts


def test_cluster_gender_needs_agreeing_pronouns():
    assert cluster_gender(["anna", "she", "her"]) == FEMININE
    assert cluster_gender(["they", "he", "she"]) == UNKNOWN and cluster_gender(["it"]) == UNKNOWN


def test_lexicon_keeps_pure_frequent_names_and_never_gendered_places():
    counts = {"anna": Counter({FEMININE: 5}), "bennet": Counter({MASCULINE: 11, FEMININE: 3}),
              "paris": Counter({UNKNOWN: 13, FEMININE: 9}), "bob": Counter({MASCULINE: 1}),
              "london": Counter({UNKNOWN: 44}), "rome": Counter({UNKNOWN: 4}),
              "mary": Counter({FEMININE: 20, UNKNOWN: 19})}
    assert build_lexicon(counts) == {"anna": FEMININE, "london": NEUTER, "mary": FEMININE}


def test_name_positions_count_first_words_as_given_and_last_words_or_titled_words_as_surnames():
    doc = _doc("Josiah Willard Gibbs met Mr. Gibbs and Sir Thomas and Emma .",
               [[(0, 3), (4, 6)], [(7, 9)], [(10, 11)]])
    row = GapRow("t-1", "x", [("PRONOUN", "she", 0), ("A", "Jennifer Thompson", 0), ("B", "Mrs. Thompson", 0)],
                 True, False, 2)
    positions = count_name_positions([doc], [row])
    assert positions["josiah"] == Counter({GIVEN: 1}) and positions["jennifer"] == Counter({GIVEN: 1})
    assert positions["gibbs"] == Counter({SURNAME: 2}) and positions["thompson"] == Counter({SURNAME: 2})
    assert "willard" not in positions  # a middle name is neither
    assert "thomas" not in positions and "emma" not in positions  # "Sir" takes given names; a lone name is neither


def test_a_surname_gets_no_gender_but_a_name_used_as_given_as_often_keeps_it():
    counts = {"thompson": Counter({MASCULINE: 6}), "anna": Counter({FEMININE: 5}),
              "lee": Counter({MASCULINE: 4}), "london": Counter({UNKNOWN: 44})}
    positions = {"thompson": Counter({SURNAME: 2}), "anna": Counter({GIVEN: 1, SURNAME: 1}),
                 "lee": Counter({GIVEN: 3, SURNAME: 4}), "london": Counter({SURNAME: 3})}
    assert build_lexicon(counts) == {"anna": FEMININE, "lee": MASCULINE, "london": NEUTER, "thompson": MASCULINE}
    assert build_lexicon(counts, positions) == {"anna": FEMININE, "london": NEUTER}


def test_save_load_round_trip_and_clear_errors(tmp_path):
    lexicon = {"anna": FEMININE, "bob": MASCULINE, "london": NEUTER}
    save_lexicon(lexicon, tmp_path / "lex.json")
    assert load_lexicon(tmp_path / "lex.json") == lexicon
    (tmp_path / "bad.json").write_text(json.dumps({"female": ["anna"]}))
    with pytest.raises(ValueError, match="bad.json.*maps"):
        load_lexicon(tmp_path / "bad.json")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ValueError, match="cannot read the name-gender lexicon .*broken.json"):
        load_lexicon(tmp_path / "broken.json")


def test_the_packaged_lexicon_loads_and_knows_common_names():
    lexicon = load_lexicon(PACKAGED_LEXICON)
    assert lexicon["elizabeth"] == FEMININE and lexicon["john"] == MASCULINE and lexicon["london"] == NEUTER
    assert "thompson" not in lexicon and "gibbs" not in lexicon  # family names, seen after given names
