"""The head-kind lexicon: heads counted by the kinds of their typed mentions."""
import pytest

from spacy_entmem.corpora.head_kinds import count_head_kinds, head_kinds, load_head_kinds, save_head_kinds


def test_a_head_names_the_kind_most_of_its_mentions_have():
    mentions = ([(["the", "sergeant"], "PER")] * 3 + [(["a", "village"], "GPE")] * 2 + [(["the", "village"], "LOC")]
                + [(["the", "regiment"], "ORG")] * 3 + [(["the", "party"], "PER"), (["a", "party"], "ORG")] * 2
                + [(["the", "carriage"], "VEH")] * 4 + [(["the", "colonist"], "person")] * 2
                + [(["he"], "PER")] * 5 + [(["the", "door"], "")] * 5 + [(["the", "house", "of", "lords"], "ORG")] * 3)
    counts = count_head_kinds(mentions)
    assert counts["village"] == {"place": 3} and "he" not in counts and "door" not in counts
    kinds = head_kinds(counts)
    assert kinds == {"sergeant": "person", "village": "place", "regiment": "organisation", "house": "organisation"}
    # "party" is half person, half organisation; "carriage" is other; "colonist" has too few mentions
    assert head_kinds(counts, min_count=2)["colonist"] == "person"
    assert "party" not in head_kinds(counts, min_share=0.6) and "party" in head_kinds(counts, min_share=0.5)


def test_the_lexicon_round_trips_and_a_bad_file_says_so(tmp_path):
    save_head_kinds({"sergeant": "person"}, tmp_path / "kinds.json")
    assert load_head_kinds(tmp_path / "kinds.json") == {"sergeant": "person"}
    (tmp_path / "bad.json").write_text('{"sergeant": "animal"}', encoding="utf8")
    with pytest.raises(ValueError, match="word → person / place / organisation"):
        load_head_kinds(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="cannot read the head-kind lexicon"):
        load_head_kinds(tmp_path / "missing.json")
