"""The shipped pronoun resolver: answers, the query span group, gender agreement, saving and loading, errors, and
the memory it reads where the pipeline annotates with another."""
import re

import numpy
import pytest
import spacy
from spacy.tokens import Doc, Span

import spacy_entmem
from spacy_entmem.nn.pair_head import PairHead
from spacy_entmem.pipeline.pronoun_features import query_features
from spacy_entmem.pipeline.mention_schemes import QUERY_MEMORY, load_with_scheme
from spacy_entmem.pipeline.pronoun_resolver import (PronounResolver, annotate_query, answer_query, query_memory,
                                                    query_rows, resolve_pronoun, use_query_memory)

from .test_pronoun_features import TEXT, chars


@pytest.fixture(scope="module")
def nlp():
    return spacy_entmem.load_default()


def test_the_shipped_resolver_answers_the_turing_queries(nlp):
    names = chars("Alan Turing"), chars("Joan Clarke")
    she, his, her = (resolve_pronoun(nlp, TEXT, chars(word), *names) for word in ("She", "his", "her"))
    threshold = nlp.get_pipe("pronoun_resolver").cfg["threshold"]
    assert his[0] >= threshold > his[1]
    assert her[1] >= threshold > her[0]
    # gender agreement: a feminine pronoun never refers to a masculine given name, and the other way round
    assert she[0] == 0.0 and his[1] == 0.0 and her[0] == 0.0


def test_rule_conditioning_gives_the_one_name_a_mixed_pair_leaves_its_due(nlp):
    resolver = nlp.get_pipe("pronoun_resolver")
    doc, ranges = annotate_query(nlp, TEXT, chars("She"), chars("Alan Turing"), chars("Joan Clarke"))
    assert resolver.cfg["rule_conditioning"] is True  # shipped on
    conditioned = resolver.resolve(doc, *ranges)
    resolver.cfg["gender_agreement"], resolver.cfg["exclusive"] = False, False  # the head's own two answers
    raw = resolver.resolve(doc, *ranges)
    resolver.cfg["gender_agreement"], resolver.cfg["rule_conditioning"] = True, False
    try:
        unconditioned = resolver.resolve(doc, *ranges)
    finally:
        resolver.cfg["rule_conditioning"], resolver.cfg["exclusive"] = True, True
    # "Alan Turing" cannot be "She": Joan Clarke's probability is read given that, P / (1 - P(Alan Turing))
    assert unconditioned == (0.0, raw[1]) and conditioned[0] == 0.0
    assert conditioned[1] == pytest.approx(min(1.0, raw[1] / (1.0 - raw[0])), rel=1e-5)
    assert conditioned[1] >= resolver.cfg["threshold"] > unconditioned[1]


def test_without_gender_agreement_the_head_decides_alone(nlp):
    resolver = nlp.get_pipe("pronoun_resolver")
    doc, ranges = annotate_query(nlp, TEXT, chars("She"), chars("Alan Turing"), chars("Joan Clarke"))
    resolver.cfg["gender_agreement"], resolver.cfg["rule_conditioning"], resolver.cfg["exclusive"] = False, False, False
    try:
        raw = resolver.resolve(doc, *ranges)
        resolver.cfg["gender_agreement"] = True
        agreed = resolver.resolve(doc, *ranges)
    finally:
        resolver.cfg["gender_agreement"], resolver.cfg["rule_conditioning"], resolver.cfg["exclusive"] = True, True, True
    assert raw[0] > 0.0 and agreed == (0.0, raw[1])


def test_binding_agreement_keeps_an_object_pronoun_from_its_clause_subject(nlp):
    text = "Joan Clarke and Mavis Batey worked at Bletchley Park. Batey often visited her."
    batey = text.rindex("Batey")
    resolver = nlp.get_pipe("pronoun_resolver")
    doc, ranges = annotate_query(nlp, text, chars("her", text), chars("Joan Clarke", text), (batey, batey + 5))
    assert [token.tag_ for token in doc[ranges[2][1]: ranges[0][1]]] == ["RB", "VBD", "PRP"]
    assert resolver.cfg["binding_agreement"] is True  # shipped on
    bound = resolver.resolve(doc, *ranges)
    assert bound[1] == 0.0  # "her" is not the Batey who visits
    assert resolver.cfg["syntactic_binding"] is True  # shipped on: the parse rules Batey out too
    resolver.cfg["binding_agreement"] = False
    try:
        assert resolver.resolve(doc, *ranges)[1] == 0.0
        resolver.cfg["syntactic_binding"] = False
        free = resolver.resolve(doc, *ranges)
        assert free[1] > 0.0
    finally:
        resolver.cfg["binding_agreement"], resolver.cfg["syntactic_binding"] = True, True
    # with Batey ruled out, Joan Clarke's probability is read given that (rule_conditioning, shipped on)
    assert bound[0] == pytest.approx(min(1.0, free[0] / (1.0 - free[1])), rel=1e-5) and bound[0] > free[0]


def test_a_resolver_with_encoder_layers_reads_span_vectors_too_and_keeps_its_layers(nlp, tmp_path):
    shipped = nlp.get_pipe("pronoun_resolver")
    assert shipped.cfg["encoder_layers"] == [] and shipped.encoder is None  # the shipped one reads none
    doc, ranges = annotate_query(nlp, TEXT, chars("his"), chars("Alan Turing"), chars("Joan Clarke"))
    plain = query_features(doc, *ranges)
    numpy.testing.assert_array_equal(query_rows(doc, *ranges), plain)
    reading = PronounResolver(encoder_layers=[3, 4, 5])
    rows = query_rows(doc, *ranges, reading.encoder)
    assert rows.shape == (2, plain.shape[1] + 2 * 384)
    numpy.testing.assert_array_equal(rows[:, :plain.shape[1]], plain)
    reading.set_head(PairHead(rows.shape[1], 4, 1))
    expected = reading.resolve(doc, *ranges)
    reading.to_disk(tmp_path / "reading")
    copy = PronounResolver().from_disk(tmp_path / "reading")  # the layers come back with the head they fit
    assert copy.cfg["encoder_layers"] == [3, 4, 5] and copy.encoder.layers == [3, 4, 5]
    assert copy.resolve(doc, *ranges) == expected


def test_a_resolver_with_parse_roles_reads_the_spans_roles_and_keeps_the_setting(nlp, tmp_path):
    from spacy_entmem.pipeline.pronoun_features import role_features
    from spacy_entmem.linguistics.syntax import N_ROLES, OBJECT, POSSESSOR, SUBJECT

    doc, ranges = annotate_query(nlp, TEXT, chars("his"), chars("Alan Turing"), chars("Joan Clarke"))
    roles = role_features(doc, *ranges)  # "Alan Turing met Joan Clarke ... She joined his team"
    eye = numpy.eye(N_ROLES)
    numpy.testing.assert_array_equal(roles[0], numpy.concatenate([eye[SUBJECT], eye[OBJECT], eye[POSSESSOR], [0, 0]]))
    numpy.testing.assert_array_equal(roles[1], numpy.concatenate([eye[OBJECT], eye[SUBJECT], eye[POSSESSOR], [0, 0]]))
    plain = query_rows(doc, *ranges)
    rows = query_rows(doc, *ranges, parse_roles=True)
    assert rows.shape == (2, plain.shape[1] + roles.shape[1])
    reading = PronounResolver(parse_roles=True)
    reading.set_head(PairHead(rows.shape[1], 4, 1))
    expected = reading.resolve(doc, *ranges)
    reading.to_disk(tmp_path / "roles")
    copy = PronounResolver().from_disk(tmp_path / "roles")  # the setting comes back with the head it fits
    assert copy.cfg["parse_roles"] and copy.resolve(doc, *ranges) == expected
    bare = Doc(doc.vocab, words=[t.text for t in doc])  # no parse: no role, no parallelism
    assert role_features(bare, *ranges).sum(axis=1).tolist() == [3.0, 3.0]


def with_query_group(doc, pronoun, a, b):
    """``doc`` with the query's token ranges as its "gap" span group, labelled as the resolver reads them."""
    doc.spans["gap"] = [Span(doc, start, end, label=label)
                        for (start, end), label in ((a, "A"), (b, "B"), (pronoun, "PRONOUN"))]
    return doc


def test_a_query_span_group_gets_the_answers_in_its_attrs(nlp):
    doc, (pronoun, a, b) = annotate_query(nlp, TEXT, chars("his"), chars("Alan Turing"), chars("Joan Clarke"))
    with_query_group(doc, pronoun, a, b)
    resolver = nlp.get_pipe("pronoun_resolver")
    doc = resolver(doc)
    attrs = doc.spans["gap"].attrs
    assert (attrs["A_probability"], attrs["B_probability"]) == resolver.resolve(doc, pronoun, a, b)
    assert attrs["A_coref"] is True and attrs["B_coref"] is False
    # a doc without a query passes through untouched
    plain = nlp("He left.")
    assert "gap" not in plain.spans


def test_a_pipeline_composed_with_add_pipe_source_answers_as_its_source(nlp):
    composed = spacy.blank("en")
    for name in nlp.component_names:
        composed.add_pipe(name, source=nlp)
    for name in nlp.disabled:
        composed.disable_pipe(name)
    resolver = composed.get_pipe("pronoun_resolver")
    assert resolver.pipeline.get_pipe(resolver.cfg["memory"]) is composed.get_pipe(resolver.cfg["memory"])
    _, ranges = annotate_query(nlp, TEXT, chars("his"), chars("Alan Turing"), chars("Joan Clarke"))
    answers = [dict(pipeline(with_query_group(pipeline.make_doc(TEXT), *ranges)).spans["gap"].attrs)
               for pipeline in (nlp, composed)]
    assert answers[0] == answers[1] and answers[0]["A_coref"] is True


def test_a_query_without_its_labels_is_refused(nlp):
    doc, (pronoun, a, _) = annotate_query(nlp, TEXT, chars("his"), chars("Alan Turing"), chars("Joan Clarke"))
    doc.spans["gap"] = [Span(doc, *a, label="A"), Span(doc, *pronoun, label="PRONOUN")]
    with pytest.raises(ValueError, match=r"lacks spans labelled \['B'\]"):
        nlp.get_pipe("pronoun_resolver")(doc)


def test_bytes_and_disk_round_trips_give_the_same_answers(nlp, tmp_path):
    resolver = nlp.get_pipe("pronoun_resolver")
    doc, ranges = annotate_query(nlp, TEXT, chars("his"), chars("Alan Turing"), chars("Joan Clarke"))
    expected = resolver.resolve(doc, *ranges)
    rules = {key: resolver.cfg[key] for key in ("gender_agreement", "binding_agreement", "rule_conditioning")}
    from_bytes = PronounResolver(**rules).from_bytes(resolver.to_bytes())  # rules come from the config
    resolver.to_disk(tmp_path / "resolver")
    from_disk = PronounResolver(**rules).from_disk(tmp_path / "resolver")
    for copy in (from_bytes, from_disk):
        assert copy.cfg["input_width"] == resolver.cfg["input_width"]
        assert copy.resolve(doc, *ranges) == expected


def test_a_config_override_at_load_takes_effect(nlp):
    loaded = spacy_entmem.load_default(config={"components": {"pronoun_resolver": {"threshold": 0.9,
                                                                                   "gender_agreement": False}}})
    resolver = loaded.get_pipe("pronoun_resolver")
    assert resolver.cfg["threshold"] == 0.9 and resolver.cfg["gender_agreement"] is False
    assert resolver.head is not None
    assert nlp.get_pipe("pronoun_resolver").cfg["threshold"] != 0.9


def test_errors_name_the_problem(nlp):
    doc, ranges = annotate_query(nlp, TEXT, chars("his"), chars("Alan Turing"), chars("Joan Clarke"))
    with pytest.raises(ValueError, match="no trained head"):
        PronounResolver().resolve(doc, *ranges)
    with pytest.raises(ValueError, match="nothing to save"):
        PronounResolver().to_bytes()
    with pytest.raises(ValueError, match=r"threshold must be in \[0, 1\], got 1.5"):
        spacy.blank("en").add_pipe("entmem_pronoun_resolver", config={"threshold": 1.5})
    narrow = PronounResolver()
    narrow.set_head(PairHead(10, 4, 1))
    with pytest.raises(ValueError, match="trained on 10 features"):
        narrow.resolve(doc, *ranges)
    with pytest.raises(ValueError, match=r"the B range \(500, 510\) covers no token"):
        resolve_pronoun(nlp, TEXT, chars("his"), chars("Alan Turing"), (500, 510))
    assert numpy.isfinite(resolve_pronoun(nlp, TEXT, chars("his"), chars("Alan"), chars("Clarke"))).all()


@pytest.fixture(scope="module")
def split_path(tmp_path_factory):
    """A copy of the default that annotates with a memory deciding otherwise (it ignores every candidate:
    entity_threshold 1) while its resolver reads the memory it was trained over."""
    return annotating_with_another_memory(tmp_path_factory.mktemp("split"))


def annotating_with_another_memory(root):
    """``maintainer annotate-with-memory`` run on a copy of the default (``root``/target) with a copy whose memory
    has entity_threshold 1, ignoring every candidate (``root``/source); returns the target."""
    import shutil

    from typer.testing import CliRunner

    from spacy_entmem.research.maintainer import app as maintainer_app
    from spacy_entmem.training.assembly import set_component_settings

    source, target = root / "source", root / "target"
    for path in (source, target):
        shutil.copytree(spacy_entmem.DEFAULT_PIPELINE, path)
    set_component_settings(source, {"entity_memory": {"entity_threshold": 1.0}})
    result = CliRunner().invoke(maintainer_app, ["annotate-with-memory", str(source), "--target", str(target)])
    assert result.exit_code == 0, result.output
    return target


def clusters(doc):
    return {key: [(span.start, span.end) for span in group] for key, group in doc.spans.items()
            if key.startswith("coref_clusters")}


def test_the_resolver_reads_its_own_memory_where_the_pipeline_annotates_with_another(nlp, split_path):
    split = spacy.load(split_path)
    resolver = split.get_pipe("pronoun_resolver")
    assert resolver.cfg["memory"] == QUERY_MEMORY and QUERY_MEMORY in split.disabled
    assert split.get_pipe("entity_memory").cfg["entity_threshold"] == 1.0
    assert split.get_pipe(QUERY_MEMORY).cfg["entity_threshold"] == nlp.get_pipe(
        query_memory(nlp)).cfg["entity_threshold"] < 1.0
    assert clusters(split(TEXT)) == {} and clusters(nlp(TEXT))  # it annotates with the other memory
    names = chars("Alan Turing"), chars("Joan Clarke")
    queries = [(chars(word), *names) for word in ("She", "his", "her")]
    answers = [resolve_pronoun(split, TEXT, *query) for query in queries]
    assert answers == [resolve_pronoun(nlp, TEXT, *query) for query in queries]
    resolver.cfg["memory"] = "entity_memory"  # read over the annotating memory, the answers change
    try:
        assert [resolve_pronoun(split, TEXT, *query) for query in queries] != answers
    finally:
        resolver.cfg["memory"] = QUERY_MEMORY


def test_a_query_group_is_answered_over_the_resolvers_own_memory_and_the_clusters_follow(nlp, split_path):
    split = spacy.load(split_path)
    doc = split(TEXT)
    assert clusters(doc) == {}  # the annotating memory of this split pipeline finds no mention
    spans = [doc.char_span(*chars(word)) for word in ("his", "Alan Turing", "Joan Clarke")]
    with_query_group(doc, *((span.start, span.end) for span in spans))
    attrs = split.get_pipe("pronoun_resolver")(doc).spans["gap"].attrs
    expected = resolve_pronoun(nlp, TEXT, chars("his"), chars("Alan Turing"), chars("Joan Clarke"))
    assert (attrs["A_probability"], attrs["B_probability"]) == expected
    assert attrs["A_coref"] and list(clusters(doc).values()) == [[(s.start, s.end) for s in spans[1::-1]]]
    orphan = PronounResolver(memory=QUERY_MEMORY)
    orphan.set_head(split.get_pipe("pronoun_resolver").head)
    with pytest.raises(ValueError, match="reads the log of the memory 'entity_memory_queries'.*without a pipeline"):
        orphan(doc)
    lacking = PronounResolver(memory="no_such_memory", pipeline=split)
    lacking.set_head(split.get_pipe("pronoun_resolver").head)
    with pytest.raises(ValueError, match="'no_such_memory', which its pipeline lacks"):
        lacking(doc)


def test_use_query_memory_runs_the_resolvers_memory_as_the_pipelines(nlp, split_path):
    split = use_query_memory(spacy.load(split_path))
    assert QUERY_MEMORY not in split.component_names and "entity_memory" in split.pipe_names
    assert split.get_pipe("pronoun_resolver").cfg["memory"] == "entity_memory"
    assert split.get_pipe("entity_memory").cfg["entity_threshold"] < 1.0
    query = chars("his"), chars("Alan Turing"), chars("Joan Clarke")
    assert resolve_pronoun(split, TEXT, *query) == resolve_pronoun(nlp, TEXT, *query)
    swapped = use_query_memory(spacy.load(spacy_entmem.DEFAULT_PIPELINE))
    components, cfg = list(swapped.component_names), dict(swapped.get_pipe("pronoun_resolver").cfg)
    use_query_memory(swapped)  # once it runs, nothing changes
    assert swapped.component_names == components and swapped.get_pipe("pronoun_resolver").cfg == cfg


def test_a_mention_scheme_with_its_own_memory_leaves_out_the_resolver_and_its_memory(split_path):
    gum = load_with_scheme(split_path, "gum")
    assert "pronoun_resolver" not in gum.component_names and QUERY_MEMORY not in gum.component_names
    assert QUERY_MEMORY in load_with_scheme(split_path, "litbank").component_names


def test_a_pronoun_refers_to_at_most_one_name(nlp):
    """Exclusive probabilities, P(A) + P(B) <= 1; with single_answer at most one "yes"."""
    resolver = nlp.get_pipe("pronoun_resolver")
    assert resolver.cfg["exclusive"] is True  # shipped on
    same_gender = "John met Bill at the station. He gave him a ticket, and he thanked him."
    spans = {word: (same_gender.index(word), same_gender.index(word) + len(word)) for word in ("John", "Bill")}
    pronoun = (same_gender.index("He"), same_gender.index("He") + 2)
    doc, ranges = annotate_query(nlp, same_gender, pronoun, spans["John"], spans["Bill"])
    resolver.cfg["exclusive"] = False
    try:
        free = resolver.resolve(doc, *ranges)
    finally:
        resolver.cfg["exclusive"] = True
    exclusive = resolver.resolve(doc, *ranges)
    assert sum(exclusive) <= 1.0 + 1e-6
    if sum(free) > 1.0:
        assert exclusive == pytest.approx((free[0] / sum(free), free[1] / sum(free)))
    else:
        assert exclusive == pytest.approx(free)
    group_doc = nlp.make_doc(same_gender)
    group_doc.spans["gap"] = [group_doc.char_span(*span, label=label)
                              for span, label in ((pronoun, "PRONOUN"), (spans["John"], "A"), (spans["Bill"], "B"))]
    assert resolver.cfg["single_answer"] is True  # shipped on: at most one "yes"
    attrs = resolver(_annotated(nlp, group_doc)).spans["gap"].attrs
    assert not (attrs["A_coref"] and attrs["B_coref"])
    assert attrs["A_probability"] + attrs["B_probability"] <= 1.0 + 1e-6


def _annotated(nlp, doc):
    for name, proc in nlp.pipeline:
        if name != "pronoun_resolver":
            doc = proc(doc)
    return doc


def test_one_memory_writes_the_clusters_and_answers_the_queries(nlp):
    assert nlp.get_pipe("pronoun_resolver").cfg["memory"] == "entity_memory"
    assert QUERY_MEMORY not in nlp.component_names


@pytest.mark.parametrize("text, pronoun, names", [
    (TEXT, "She", ("Alan Turing", "Joan Clarke")),
    (TEXT, "his", ("Alan Turing", "Joan Clarke")),
    ("The pilot thanked the mechanic and paid him.", "him", ("The pilot", "the mechanic")),
    ("John met Bill at the station and he gave him a ticket.", "him", ("John", "Bill")),
    ("Tom met Bill at the station, and later Bill phoned him.", "him", ("Tom", "Bill")),
    ("The manager spoke to the clerk. Later the clerk said that he would resign.", "he", ("The manager", "the clerk")),
])
def test_the_answered_docs_clusters_say_what_the_answer_says(nlp, text, pronoun, names):
    def span(word):
        start = re.search(rf"\b{re.escape(word)}\b", text).start()
        return start, start + len(word)

    doc = answer_query(nlp, text, span(pronoun), *(span(name) for name in names))
    attrs = doc.spans["gap"].attrs
    linked = []
    for name in names:
        name_span, pronoun_span = doc.char_span(*span(name)), doc.char_span(*span(pronoun))
        linked.append(any({(s.start, s.end) for s in group} >= {(name_span.start, name_span.end),
                                                                (pronoun_span.start, pronoun_span.end)}
                          for group in doc._.coref_clusters))
    assert linked == [attrs["A_coref"], attrs["B_coref"]]
    assert (attrs["A_probability"], attrs["B_probability"]) == resolve_pronoun(
        nlp, text, span(pronoun), *(span(name) for name in names))


def test_without_align_clusters_the_clusters_are_the_memorys(nlp):
    resolver = nlp.get_pipe("pronoun_resolver")
    text = "The manager spoke to the clerk. Later the clerk said that he would resign."
    query = [(text.index(word), text.index(word) + len(word)) for word in (" he ", "The manager", "the clerk")]
    query[0] = (query[0][0] + 1, query[0][1] - 1)
    doc, _ = annotate_query(nlp, text, *query)
    memory_clusters = clusters(doc)
    resolver.cfg["align_clusters"] = False
    try:
        unaligned = answer_query(nlp, text, *query)
    finally:
        resolver.cfg["align_clusters"] = True
    assert clusters(unaligned) == memory_clusters
    assert clusters(answer_query(nlp, text, *query)) != memory_clusters  # the memory put "he" with the clerk


def test_an_answer_never_joins_the_pronoun_to_its_co_argument_through_the_names_entity(nlp):
    """"Bill phoned him": whatever the answer, "him" never shares an entity with the Bill who phones."""
    text = "Tom met Bill at the station, and later Bill phoned him."
    second_bill = text.rindex("Bill")
    query = [(text.index("him"), text.index("him") + 3), (0, 3), (text.index("Bill"), text.index("Bill") + 4)]
    resolver = nlp.get_pipe("pronoun_resolver")
    doc, ranges = annotate_query(nlp, text, *query)
    group = with_query_group(doc, *ranges).spans["gap"]
    for probabilities in ((0.0, 0.9), (0.9, 0.0)):  # an answer for the first Bill, then for Tom
        resolver.answer(doc, group, *ranges, probabilities=probabilities)
        groups = [{span.start_char for span in group} for group in doc._.coref_clusters]
        assert not any({second_bill, text.index("him")} <= group for group in groups)
        first_bill = {text.index("Bill"), text.index("him")} <= next(
            (g for g in groups if text.index("him") in g), set())
        assert first_bill == (probabilities[1] > probabilities[0])  # the clusters say what the answer says
