import pytest

from spacy_entmem.corpora.brackets import CorefFormatError
from spacy_entmem.corpora.inscript import human_accuracy, prediction_slots, read_drs, read_inscript, slot_tokens

from ..conftest import DATA

INSCRIPT = DATA / "inscript"
STORY = """#id=1
#text=I took a bath .
1-1\tI\tO\tO\tPRP\tP1_bather
1-2\ttook\tO\tO\tVBD\tO
1-3\ta\tO\tO\tDT\tO
1-4\tbath\t1-2_dobj\ttook\tNN\tP1_bath
1-5\t.\tO\tO\tO\tO

#id=2
#text=It was hot .
2-1\tIt\tO\tO\tPRP\tP1_bath
2-2\twas\tO\tO\tVBD\tO
2-3\thot\tO\tO\tJJ\tO
2-4\t.\tO\tO\tO\tO
"""


def test_a_story_becomes_one_token_mentions_of_its_referents(tmp_path):
    path = tmp_path / "bath_001.txt.drs"
    path.write_text(STORY, encoding="utf8")
    record = read_drs(path)
    assert record.doc_id == "bath_001" and record.sentence_lengths == [5, 4]
    assert [(m.start, m.end, m.cluster) for m in record.mentions] == [(0, 1, "P1_bather"), (3, 4, "P1_bath"),
                                                                      (5, 6, "P1_bath")]
    assert slot_tokens(record.sentence_lengths, [(2, 1), (1, 4)]) == [5, 3]


@pytest.mark.parametrize("bad,message", [
    ("1-1\tI\tO\tO\tPRP\n", "expected 6 tab-separated columns"),
    ("1-2\tI\tO\tO\tPRP\tO\n", "token id '1-2' out of order"),
    ("\tI\tO\tO\tPRP\tO\n", "out of order"),
])
def test_malformed_lines_name_the_file_and_line(tmp_path, bad, message):
    path = tmp_path / "x.txt.drs"
    path.write_text("#id=1\n#text=I\n" + bad, encoding="utf8")
    with pytest.raises(CorefFormatError, match=f"x.txt.drs:3: .*{message}"):
        read_drs(path)
    path.write_text("1-1\tI\tO\tO\tPRP\tO\n", encoding="utf8")
    with pytest.raises(CorefFormatError, match="before any #id= header"):
        read_drs(path)


@pytest.mark.corpus
def test_the_corpus_counts_and_slots_match_its_source_notes():
    splits = read_inscript(INSCRIPT)
    assert {k: len(v) for k, v in splits.items()} == {"train": 619, "dev": 91, "test": 182}
    assert sum(len(r.words) for r in splits["train"]) == 133941
    assert sum(len(r.mentions) for r in splits["test"]) == 11044
    slots = prediction_slots(INSCRIPT)
    assert sum(map(len, slots.values())) == 3346
    test = {r.doc_id: r for r in splits["test"]}
    starts = {story: {m.start for m in test[story].mentions} for story in slots}
    assert all(t in starts[story] for story, s in slots.items() for t in slot_tokens(test[story].sentence_lengths, s))
    human = human_accuracy(INSCRIPT)
    assert 0.6 < human["per_guess"] < human["majority"] < 0.8
