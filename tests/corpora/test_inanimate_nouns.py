"""The inanimate-noun list: head nouns counted from entity-typed mentions and gold clusters, filtered, saved
and loaded."""
import json
from collections import Counter

import pytest
import spacy

from spacy_entmem.corpora.brackets import CorefFormatError
from spacy_entmem.corpora.inanimate_nouns import (
    PACKAGED_INANIMATE_NOUNS, count_heads, gendered_cluster_heads, inanimate_heads, labelled_mentions,
    litbank_typed_mentions, load_inanimate_nouns, save_inanimate_nouns,
)
from tests.conftest import DATA


def _doc(text, clusters, labels=None):
    doc = spacy.blank("en")(text)
    for i, spans in enumerate(clusters, 1):
        label = labels[i - 1] if labels else ""
        doc.spans[f"coref_clusters_{i}"] = [doc.char_span(doc[s].idx, doc[e - 1].idx + len(doc[e - 1]), label=label)
                                            for s, e in spans]
    return doc


def test_heads_are_counted_by_entity_type_and_by_he_she_in_their_cluster():
    doc = _doc("The old house of the lord stood . It was cold . The lord said he liked the house .",
               [[(0, 6), (8, 9), (17, 19)], [(4, 6), (12, 14), (15, 16)]], ["place", "person"])
    typed = list(labelled_mentions([doc]))
    assert (["The", "old", "house", "of", "the", "lord"], "place") in typed and (["he"], "person") in typed
    counts = count_heads(typed, gendered_cluster_heads([doc]))
    # "house" heads two place mentions, in a cluster without he / she; "lord" two people, with "he"
    assert counts["house"] == {"other": 2, "ungendered": 2}
    assert counts["lord"] == {"person": 2, "gendered": 2}
    assert "he" not in counts and "it" not in counts  # pronouns are not heads


def test_only_frequent_heads_of_things_never_called_he_or_she_are_inanimate():
    counts = {
        "house": Counter({"other": 40, "person": 1, "ungendered": 41}),  # 2 % people: in
        "party": Counter({"other": 26, "person": 11, "ungendered": 37}),  # people and things: out
        "ship": Counter({"other": 20, "gendered": 5, "ungendered": 15}),  # "she" in a quarter of them: out
        "abbey": Counter({"other": 2, "ungendered": 2}),                  # too rare: out
        "lord": Counter({"person": 9, "gendered": 9}),
    }
    assert inanimate_heads(counts) == ["house"]
    assert inanimate_heads(counts, min_count=2) == ["abbey", "house"]


@pytest.mark.corpus
def test_litbank_ann_mentions_carry_their_types_and_a_malformed_line_names_its_place(tmp_path):
    mentions = list(litbank_typed_mentions(DATA / "litbank", fold=0))
    assert len(mentions) > 20000 and {t for _, t in mentions} == {"PER", "FAC", "LOC", "GPE", "VEH", "ORG"}
    fake = tmp_path / "litbank"
    (fake / "splits" / "lrec2020_tenfold" / "0").mkdir(parents=True)
    for split in ("train", "dev", "test"):
        (fake / "splits" / "lrec2020_tenfold" / "0" / f"{split}.ids").write_text("book.tsv\n")
    (fake / "coref" / "tsv").mkdir(parents=True)
    (fake / "coref" / "tsv" / "book.ann").write_text("MENTION\tT1\t0\t0\t0\t1\tthe park\tFAC\tNOM\n"
                                                    "COREF\tT1\tc1\nMENTION\tT2\t0\t3\tthe town\tGPE\n")
    with pytest.raises(CorefFormatError, match=r"book\.ann, line 3: a MENTION line has 9 tab-separated fields, found 6"):
        list(litbank_typed_mentions(fake))


def test_save_load_round_trip_and_clear_errors(tmp_path):
    save_inanimate_nouns(["town", "house"], tmp_path / "nouns.json")
    assert load_inanimate_nouns(tmp_path / "nouns.json") == {"house", "town"}
    (tmp_path / "bad.json").write_text(json.dumps({"neuter": ["house"]}))
    with pytest.raises(ValueError, match="the inanimate-noun list is a JSON list of words"):
        load_inanimate_nouns(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="cannot read the inanimate-noun list"):
        load_inanimate_nouns(tmp_path / "missing.json")


def test_the_packaged_list_holds_places_and_abstractions_not_people():
    nouns = load_inanimate_nouns(PACKAGED_INANIMATE_NOUNS)
    assert {"park", "college", "house", "mathematics", "room"} <= nouns
    assert not nouns & {"man", "woman", "people", "family", "party", "lord", "nation"}
