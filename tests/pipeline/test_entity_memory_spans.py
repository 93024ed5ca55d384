"""The span-level memory (SpanPeTra + entmem_span_finder): exact, nested mentions on full-cluster data."""
import numpy
import pytest
import spacy
from spacy.tokens import DocBin
from spacy.training import Example

from spacy_entmem.corpora.docs import to_doc
from spacy_entmem.corpora.litbank import read_litbank_conll
from spacy_entmem.pipeline.memory_log import decode_span_mentions, group_clusters
from spacy_entmem.training.targets import span_supervision
from spacy_entmem.training.targets import LossWeights
from spacy_entmem.research.maintainer import app as maintainer_app

from ..conftest import DATA, TINY_TOK2VEC, train_pipeline, truncate_record

SPAN_MODEL = {
    "@architectures": "spacy_entmem.SpanPeTra.v1",
    "hidden_width": 16, "mlp_width": 16, "n_cells": 4, "max_span_width": 8, "width_embedding": 4,
    "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "*"},
}
FINDER_MODEL = {
    "@architectures": "spacy.SpanFinder.v1",
    "scorer": {"@layers": "spacy.LinearLogistic.v1", "nO": 2},
    "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "*"},
}


def span_pipeline(model=None, **component_config):
    """tok2vec → entmem_span_finder → entity_memory with a span-level ``model`` (default: SpanPeTra)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config=TINY_TOK2VEC)
    nlp.add_pipe("entmem_span_finder", name="span_finder", config={"model": FINDER_MODEL, "max_length": 8,
                                                                    "threshold": 0.3})
    nlp.add_pipe("entity_memory", config={"model": model or SPAN_MODEL, **component_config})
    return nlp


def _clusters(doc):
    return sorted(sorted((s.start, s.end) for s in doc.spans[k]) for k in doc.spans if k.startswith("coref_clusters_"))


@pytest.fixture(scope="module")
def litbank_piece():
    """The first 300 tokens of a LitBank document, with its gold clusters cut to fit."""
    path = sorted((DATA / "litbank" / "coref" / "conll").glob("*.conll"))[0]
    return to_doc(spacy.blank("en").vocab, truncate_record(read_litbank_conll(path), 300))


@pytest.fixture(scope="module")
def span_nlp(litbank_piece):
    spacy.util.fix_random_seed(0)
    nlp = span_pipeline()
    examples = [Example(nlp.make_doc(litbank_piece.text), litbank_piece)] * 2
    losses = train_pipeline(nlp, examples, steps=6, learn_rate=0.01)
    nlp.losses = losses
    return nlp


def test_supervision_over_candidates():
    nlp = spacy.blank("en")
    # [Anna] met [[her] brother] ; [he] smiled at [Anna]
    ref = nlp.make_doc("Anna met her brother ; he smiled at Anna")
    ref.spans["coref_clusters_1"] = [ref[0:1], ref[2:3], ref[8:9]]
    ref.spans["coref_clusters_2"] = [ref[2:4], ref[5:6]]
    eg = Example(nlp.make_doc(ref.text), ref)
    candidates = [(0, 1), (1, 2), (2, 3), (2, 4), (5, 6), (8, 9)]  # step order; (1, 2) is not a mention
    sup = span_supervision(eg, candidates, LossWeights(full_negatives=5))
    assert sup.entity_targets == [1.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert sup.new_entity == [(0, 1.0), (2, 0.0), (3, 1.0), (4, 0.0), (5, 0.0)]
    pairs = {(p.first[0], p.second[0]): p.target for p in sup.pairs}
    assert pairs == {
        (0, 2): 1.0,  # her -> Anna
        (2, 3): 0.0,  # her brother: a new entity; negative with the nearest mention of Anna only
        (3, 4): 1.0, (2, 4): 0.0,  # he -> her brother; not her
        (2, 5): 1.0, (4, 5): 0.0,  # Anna -> her; not he
    }


def test_no_supervision_without_gold():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Nothing here")
    assert span_supervision(Example(doc, doc), [(0, 1)], LossWeights()) is None


def test_training_lowers_the_loss(span_nlp):
    assert span_nlp.losses[-1] < span_nlp.losses[0]


def test_predicted_mentions_are_whole_candidate_spans(span_nlp, litbank_piece):
    doc = span_nlp(litbank_piece.text)
    candidates = {(s.start, s.end) for s in doc.spans["mention_candidates"]}
    mentions = {(s.start, s.end) for s in doc.spans["coref_mentions"]}
    assert mentions <= candidates
    log = doc._.entity_memory_log
    assert log["spans"].shape == (len(candidates), 2) and log["entity"].shape == (len(candidates),)
    # steps are read where they end, inner mentions first
    order = [(end, -start) for start, end in log["spans"].tolist()]
    assert order == sorted(order)


def test_nested_mentions_decode_to_nested_spans():
    spans = numpy.array([[2, 3], [2, 4], [5, 6], [8, 9]])
    actions = numpy.array([1, 1, 2, 2])  # OVERWRITE, OVERWRITE, COREF, COREF
    cells = numpy.array([0, 1, 1, 0])
    mentions = decode_span_mentions(actions, cells, spans)
    assert group_clusters(mentions) == [[(2, 3), (8, 9)], [(2, 4), (5, 6)]]


def test_missing_candidates_is_a_clear_error(span_nlp):
    memory = span_nlp.get_pipe("entity_memory")
    with pytest.raises(ValueError, match=r"reads mention candidates from doc.spans\['mention_candidates'\].*"
                                         r"add an 'entmem_span_finder'"):
        memory(span_nlp.make_doc("Anna met Bob ."))


def test_round_trip_and_docbin(span_nlp, litbank_piece, tmp_path):
    doc = span_nlp(litbank_piece.text)
    span_nlp.to_disk(tmp_path / "nlp")
    again = spacy.load(tmp_path / "nlp")(litbank_piece.text)
    assert _clusters(again) == _clusters(doc)
    assert numpy.allclose(again._.entity_memory_log["coref"], doc._.entity_memory_log["coref"])
    restored = list(DocBin(docs=[doc], store_user_data=True).get_docs(span_nlp.vocab))[0]
    assert _clusters(restored) == _clusters(doc)


def test_edge_cases(span_nlp):
    for doc in span_nlp.pipe(["", "Hi", "She said so . " * 3]):
        assert doc.spans["coref_mentions"] is not None
        assert all(len(doc.spans[k]) > 1 for k in doc.spans if k.startswith("coref_clusters_"))


def test_token_attributes_read_the_mention_ending_there(span_nlp, litbank_piece):
    doc = span_nlp(litbank_piece.text)
    ends = {end - 1 for _, end in doc._.entity_memory_log["spans"].tolist()}
    for token in doc[:60]:
        assert (token._.entity_prob is not None) == (token.i in ends)


def test_scores_conll_metrics_on_full_clusters(span_nlp, litbank_piece):
    scores = span_nlp.evaluate([Example(span_nlp.make_doc(litbank_piece.text), litbank_piece)])
    for key in ("coref_conll_f", "coref_lea_f", "coref_nosingletons_conll_f", "spans_mention_candidates_r"):
        assert 0.0 <= scores[key] <= 1.0


def test_gap_examples_train_and_score_in_span_mode(gap_validation_docs):
    nlp = span_pipeline()
    examples = [Example(nlp.make_doc(d.text), d) for d in gap_validation_docs[:8]]
    losses = train_pipeline(nlp, examples, steps=2)
    assert all(numpy.isfinite(losses))
    scores = nlp.evaluate(examples)
    assert 0.0 <= scores["gap_f1"] <= 1.0


def test_standalone_evaluation_writes_conll_2012_and_selects_a_threshold(span_nlp, litbank_piece, tmp_path):
    from typer.testing import CliRunner

    from spacy_entmem.cli import app
    from spacy_entmem.evaluation.coref_evaluate import select_decisions
    from spacy_entmem.corpora.brackets import parse_column

    corpus = tmp_path / "gold.spacy"
    DocBin(docs=[litbank_piece], store_user_data=True).to_disk(corpus)
    best, tried = select_decisions(span_nlp, corpus, thresholds=(0.3, 0.5, 0.9), biases=(1.0, 4.0))
    assert best in tried and tried[best] == max(tried.values()) and len(tried) == 6
    memory_cfg = span_nlp.get_pipe("entity_memory").cfg  # left at the best, not at the last pair tried
    assert (memory_cfg["entity_threshold"], memory_cfg["new_entity_bias"]) == best
    span_nlp.to_disk(tmp_path / "model")
    result = CliRunner().invoke(app, ["coref-evaluate", str(tmp_path / "model"), str(corpus), "--output-dir",
                                      str(tmp_path / "out"), "--name", "piece", "--select-on", str(corpus)])
    assert result.exit_code == 0, result.output
    scores = __import__("json").loads((tmp_path / "out" / "piece.json").read_text())
    from spacy_entmem.evaluation.coref_evaluate import BIASES, THRESHOLDS

    assert scores["entity_threshold"] in THRESHOLDS and scores["new_entity_bias"] in BIASES
    assert scores["documents"] == 1 and scores["decisions_selected_on"] == str(corpus)
    for key in ("coref_conll_f", "coref_lea_f", "coref_nosingletons_conll_f", "coref_muc_f"):
        assert 0.0 <= scores[key] <= 1.0
    lines = (tmp_path / "out" / "piece.gold.conll").read_text().splitlines()
    rows = [(n, line.split("\t")) for n, line in enumerate(lines, 1) if line and not line.startswith("#")]
    gold = parse_column([(n, fields[-1]) for n, fields in rows], "piece.gold.conll")
    assert sorted({(m.start, m.end) for m in gold}) == sorted({(s.start, s.end) for s in litbank_piece.spans["mention_candidates"]})
    assert (tmp_path / "out" / "piece.pred.conll").read_text().startswith("#begin document (")


def test_ship_default_sets_the_selected_threshold(span_nlp, tmp_path):
    from typer.testing import CliRunner


    span_nlp.to_disk(tmp_path / "trained")
    target = tmp_path / "shipped"
    result = CliRunner().invoke(maintainer_app, ["ship-default", str(tmp_path / "trained"), "--target", str(target),
                                      "--entity-threshold", "0.97", "--new-entity-bias", "4"])
    assert result.exit_code == 0, result.output
    cfg = spacy.load(target).get_pipe("entity_memory").cfg
    assert cfg["entity_threshold"] == 0.97 and cfg["new_entity_bias"] == 4.0
    result = CliRunner().invoke(maintainer_app, ["ship-default", str(tmp_path / "trained"), "--target", str(target),
                                      "--entity-threshold", "1.5"])
    assert result.exit_code == 1 and "entity_threshold must be in [0, 1]" in result.output


def test_ship_default_takes_the_decisions_chosen_by_coref_evaluate(span_nlp, tmp_path):
    import json

    from typer.testing import CliRunner


    span_nlp.to_disk(tmp_path / "trained")
    chosen = tmp_path / "chosen.json"
    chosen.write_text(json.dumps({"entity_threshold": 0.8, "new_entity_bias": 2.0, "coref_conll_f": 0.1}))
    result = CliRunner().invoke(maintainer_app, ["ship-default", str(tmp_path / "trained"), "--target", str(tmp_path / "s"),
                                      "--decisions-from", str(chosen)])
    assert result.exit_code == 0, result.output
    cfg = spacy.load(tmp_path / "s").get_pipe("entity_memory").cfg
    assert (cfg["entity_threshold"], cfg["new_entity_bias"]) == (0.8, 2.0)
