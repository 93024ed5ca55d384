"""Streams spread over workers: each read whole by one worker, the results those of one process."""
import pytest

from spacy_entmem.batch.streams import Stream, read_streams

STREAMS = [
    Stream("austen", ["Elizabeth Bennet walked to Netherfield with her sister Jane.",
                      "Two days later, Elizabeth wrote a letter to Jane."]),
    Stream("chat", ["I met Dana in college.", "Did you like her?", "I did. I call Dana every week."],
           speakers=["Lee", "Sam", "Lee"]),
    Stream("curie", ["Marie Curie was born in Warsaw.", "She moved to Paris, where she met Pierre Curie."]),
]


def summary(results):
    return [(result.id, [[(span.text, span._.entity_id) for span in doc._.coref_mentions] for doc in result.docs],
             [(entity.id, entity.name, entity.n_mentions) for entity in result.entities]) for result in results]


@pytest.fixture(scope="module")
def one_process():
    return summary(read_streams(STREAMS))


def test_a_stream_keeps_its_entities_from_text_to_text(one_process):
    austen = dict((name, entity) for name, entity in one_process[0][1][0])
    later = dict((name, entity) for name, entity in one_process[0][1][1])
    assert later["Elizabeth"] == austen["Elizabeth Bennet"] and later["Jane"] == austen["Jane"]
    chat = one_process[1][1]
    assert chat[2][0] == chat[0][0]  # Lee's "I" in the third text is the Lee of the first


def test_two_worker_processes_give_the_streams_of_one_process_in_order(one_process):
    assert summary(read_streams(STREAMS, n_process=2)) == one_process


def test_a_dask_cluster_gives_the_streams_of_one_process(one_process):
    pytest.importorskip("distributed")
    assert summary(read_streams(STREAMS, engine="dask", n_process=2)) == one_process


def test_bad_stream_settings_say_what_is_wrong():
    with pytest.raises(ValueError, match="2 texts but 1 speakers"):
        Stream("s", ["a", "b"], speakers=["Lee"])
    with pytest.raises(ValueError, match="engine must be"):
        list(read_streams(STREAMS, engine="spark"))
    with pytest.raises(ValueError, match="n_process must be >= 1"):
        list(read_streams(STREAMS, n_process=0))
