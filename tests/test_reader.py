"""The stream reader: a memory carried from text to text, entity ids, the entity table, state round trips and bad
input, with the shipped pipeline."""
import numpy
import pytest
import srsly
from spacy.tokens import Doc

import spacy_entmem
from spacy_entmem import Reader
from spacy_entmem.models.memory import torch_memory
from spacy_entmem.nn.memory.carry import CarriedMemory

CHAPTER_ONE = "Elizabeth Bennet walked to Netherfield with her sister Jane."
CHAPTER_TWO = "Two days later, Elizabeth wrote a letter to Jane."


@pytest.fixture(scope="module")
def nlp():
    return spacy_entmem.load_default()


def mentions(doc):
    return [(span.text, span._.entity_id) for span in doc._.coref_mentions]


def entity_of(doc, text):
    return next(entity for mention, entity in mentions(doc) if mention == text)


def test_a_name_in_a_later_text_joins_its_entity_from_an_earlier_one(nlp):
    reader = Reader(nlp)
    first, second = reader.read(CHAPTER_ONE), reader.read(CHAPTER_TWO)
    assert entity_of(second, "Elizabeth") == entity_of(first, "Elizabeth Bennet")
    assert entity_of(second, "Jane") == entity_of(first, "Jane")
    # mentioned once in the second text, but an entity of the stream: a cluster there, with its id
    clusters = {group.attrs["entity_id"]: [span.text for span in group] for group in second._.coref_clusters}
    assert clusters[entity_of(first, "Elizabeth Bennet")] == ["Elizabeth"]
    # read on its own, the second text knows neither
    alone = nlp(CHAPTER_TWO)
    assert not alone._.coref_clusters and entity_of(alone, "Elizabeth") == 0


def test_entity_ids_count_on_across_the_stream_and_reset_starts_over(nlp):
    reader = Reader(nlp)
    first = reader.read(CHAPTER_ONE)
    started = reader.state.next_entity
    assert started == len({entity for _, entity in mentions(first)})
    second = reader.read("The carriage stopped at the gate.")
    assert min(entity for _, entity in mentions(second)) >= started
    assert reader.texts_read == 2 and reader.tokens_read == len(first) + len(second)
    reader.reset()
    again = reader.read(CHAPTER_TWO)
    assert reader.texts_read == 1 and mentions(again) == mentions(nlp(CHAPTER_TWO))


def test_the_same_memory_reads_a_single_text_as_the_pipeline_does(nlp):
    text = "Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie. He was a physicist."
    assert mentions(Reader(nlp).read(text)) == mentions(nlp(text))


def test_a_stopped_stream_resumes_from_its_bytes_with_the_same_result(nlp):
    texts = [CHAPTER_ONE, "She smiled at him.", CHAPTER_TWO, "Jane answered her at once."]
    straight = Reader(nlp)
    expected = [mentions(doc) for doc in straight.pipe(texts)]
    first = Reader(nlp)
    got = [mentions(doc) for doc in first.pipe(texts[:2])]
    resumed = Reader(nlp).from_bytes(first.to_bytes())
    got += [mentions(doc) for doc in resumed.pipe(texts[2:])]
    assert got == expected
    assert [e.as_row() for e in resumed.entities()] == [e.as_row() for e in straight.entities()]


def test_the_state_is_bounded_whatever_the_number_of_texts(nlp):
    reader = Reader(nlp, keep_entities=False)
    texts = ["Anna called Ben.", "He said that she was late.", "They met at the station.", "It was raining."]
    sizes = []
    for k in range(200):
        reader.read(texts[k % len(texts)])
        if k in (19, 199):
            sizes.append(len(reader.to_bytes()))
    module = torch_memory(nlp.get_pipe("entity_memory").model)
    assert reader.state.vectors.shape == (module.n_cells, module.hidden_width)  # the same N cells
    assert reader.texts_read == 200 and sizes[1] <= sizes[0] * 1.05, sizes


def test_empty_and_one_token_texts_leave_the_stream_intact(nlp):
    reader = Reader(nlp)
    first = reader.read(CHAPTER_ONE)
    for text in ("", ".", "   "):
        doc = reader.read(text)
        assert not doc._.coref_clusters
    later = reader.read(CHAPTER_TWO)
    assert entity_of(later, "Elizabeth") == entity_of(first, "Elizabeth Bennet")
    assert reader.texts_read == 5


def test_a_text_in_another_language_is_read_without_error_and_the_stream_goes_on(nlp):
    reader = Reader(nlp)
    first = reader.read(CHAPTER_ONE)
    reader.read("Elle est partie à Paris avec son frère. Ils ne sont jamais revenus.")
    later = reader.read(CHAPTER_TWO)
    assert entity_of(later, "Jane") == entity_of(first, "Jane")


def test_a_speakers_i_is_one_entity_across_turns_and_joins_the_speakers_name(nlp):
    reader = Reader(nlp)
    turns = [("I met Dana in college.", "Lee"), ("Did you like her at first?", "Sam"),
             ("I did. I still call her every week.", "Lee"), ("I should call my sister too.", "Sam"),
             ("Lee, you told me that Dana lives in Boston now.", "Sam"), ("I do! I moved there in May.", "Dana")]
    docs = list(reader.pipe([text for text, _ in turns], speakers=[speaker for _, speaker in turns]))
    lee = entity_of(docs[0], "I")
    assert [entity for text, entity in mentions(docs[2]) if text == "I"] == [lee, lee]
    sam = entity_of(docs[3], "I")
    assert sam != lee and entity_of(docs[4], "me") == sam  # Sam's I is not Lee's
    assert entity_of(docs[4], "Lee") == lee  # Lee's name, said by Sam, joins Lee's I
    assert entity_of(docs[5], "I") == entity_of(docs[0], "Dana")  # Dana's I joins the Dana spoken of
    names = {entity.id: entity.name for entity in reader.entities()}
    assert names[sam] == "Sam" and names[lee] == "Lee"
    # without speakers the same texts are one narrator's: every unquoted I one entity
    plain = list(Reader(nlp).pipe([text for text, _ in turns[:4]]))
    assert entity_of(plain[3], "I") == entity_of(plain[0], "I")


def test_the_entity_table_of_a_doc_names_counts_and_places_its_entities(nlp):
    doc = nlp("Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie. He was a physicist.")
    table = {entity.name: entity for entity in doc._.entities}
    marie = table["Marie Curie"]
    assert (marie.kind, marie.gender, marie.number) == ("person", "feminine", "singular")
    assert marie.counts == {"name": 1, "nominal": 0, "pronoun": 2} and marie.first == (0, 0)
    assert table["Pierre Curie"].gender == "masculine" and table["Warsaw"].kind == "place"
    assert sum(entity.kind == "person" for entity in doc._.entities) == 2  # "how many people": one line
    assert doc._.entities[0] is not None and doc._.entities[0].n_mentions >= doc._.entities[-1].n_mentions


def test_the_readers_entity_table_spans_the_stream(nlp):
    reader = Reader(nlp)
    list(reader.pipe([CHAPTER_ONE, CHAPTER_TWO]))
    elizabeth = next(entity for entity in reader.entities("person") if entity.name == "Elizabeth Bennet")
    assert elizabeth.first == (0, 0) and elizabeth.last[0] == 1
    assert "Elizabeth" in elizabeth.aliases and elizabeth.counts["name"] == 2
    assert elizabeth.mentions[-1].stream_start == reader.tokens_read - len(nlp.make_doc(CHAPTER_TWO)) + 4  # "Two days later , Elizabeth"
    with pytest.raises(ValueError, match="keeps no entity table"):
        Reader(nlp, keep_entities=False).entities()


def test_a_state_from_another_model_or_no_state_at_all_is_refused(nlp):
    reader = Reader(nlp)
    reader.read(CHAPTER_ONE)
    message = srsly.msgpack_loads(reader.to_bytes())
    message["fingerprint"] = "0123456789abcdef"
    with pytest.raises(ValueError, match="written by another model"):
        Reader(nlp).from_bytes(srsly.msgpack_dumps(message))
    with pytest.raises(ValueError, match="not a reader state"):
        Reader(nlp).from_bytes(b"\x00garbage")
    with pytest.raises(ValueError, match="not a reader state"):
        Reader(nlp).from_bytes(srsly.msgpack_dumps({"format": 99}))
    state = reader.state.to_dict()
    state["format"] = 0
    with pytest.raises(ValueError, match="format 0"):
        CarriedMemory.from_dict(state)


def test_a_state_of_another_size_is_refused_by_the_memory(nlp):
    reader = Reader(nlp)
    reader.read(CHAPTER_ONE)
    small = CarriedMemory.from_dict(reader.state.to_dict())
    small.vectors = numpy.zeros((3, small.vectors.shape[1]), dtype="float32")
    reader.state = small
    with pytest.raises(ValueError, match="another model"):
        reader.read(CHAPTER_TWO)


def test_bad_reader_settings_and_inputs_say_what_is_wrong(nlp):
    with pytest.raises(ValueError, match="no active component 'memory'.*entity_memory"):
        Reader(nlp, memory="memory")
    with pytest.raises(ValueError, match="not an entity_memory"):
        Reader(nlp, memory="parser")
    with pytest.raises(TypeError, match="expected a str or a Doc"):
        Reader(nlp).read(42)
    beam = spacy_entmem.load_default(config={"components": {"entity_memory": {"beam_width": 2}}})
    with pytest.raises(ValueError, match="beam_width"):
        Reader(beam)


def test_docs_are_read_as_given(nlp):
    reader = Reader(nlp)
    doc = Doc(nlp.vocab, words=["Jane", "saw", "Elizabeth", "."])
    assert reader.read(doc) is doc and [text for text, _ in mentions(doc)] == ["Jane", "Elizabeth"]
