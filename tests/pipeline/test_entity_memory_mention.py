"""The entity_memory component with the teacher-forced mention memory (spacy_entmem.MentionMemory.v1)."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_entmem.evaluation.coref_evaluate import redecode
from spacy_entmem.evaluation.scorers import score_entity_memory
from spacy_entmem.pipeline.span_proposals import CANDIDATES_KEY
from spacy_entmem.research.maintainer import app as maintainer_app

from ..conftest import TINY_TOK2VEC, train_pipeline
from .test_entity_memory_spans import _clusters, litbank_piece, span_pipeline  # noqa: F401 (fixture)

MENTION_MODEL = {
    "@architectures": "spacy_entmem.MentionMemory.v1",
    "hidden_width": 32, "mlp_width": 32, "n_cells": 8, "max_span_width": 8, "width_embedding": 4,
    "feature_width": 4, "dropout": 0.0,
    "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "*"},
}


def mention_pipeline(**component_config):
    return span_pipeline(model=MENTION_MODEL, **component_config)


@pytest.fixture(scope="module")
def mention_nlp(litbank_piece):  # noqa: F811
    spacy.util.fix_random_seed(0)
    nlp = mention_pipeline(negatives_per_token=0.0)
    examples = [Example(nlp.make_doc(litbank_piece.text), litbank_piece)]
    nlp.losses = train_pipeline(nlp, examples, steps=40, learn_rate=0.01)
    return nlp


def _with_gold_candidates(nlp, reference):
    """Run the pipeline up to the memory with the gold mentions as the candidates."""
    doc = Doc(nlp.vocab, words=[t.text for t in reference], spaces=[bool(t.whitespace_) for t in reference])
    doc = nlp.get_pipe("tok2vec")(doc)
    doc.spans[CANDIDATES_KEY] = [doc[s.start: s.end] for s in reference.spans[CANDIDATES_KEY]]
    return nlp.get_pipe("entity_memory")(doc)


def test_training_lowers_the_loss_and_the_memory_learns_the_clusters(mention_nlp, litbank_piece):  # noqa: F811
    losses = mention_nlp.losses
    assert losses[-1] < 0.3 * losses[0]
    doc = _with_gold_candidates(mention_nlp, litbank_piece)
    scores = score_entity_memory([Example(doc, litbank_piece)])
    assert scores["coref_lea_f"] > 0.7, scores["coref_lea_f"]
    log = doc._.entity_memory_log
    assert log["action"].dtype == numpy.int8 and len(log["action"]) == len(log["spans"])


def test_clusters_are_the_decisions_taken_in_the_loop(mention_nlp, litbank_piece):  # noqa: F811
    doc = _with_gold_candidates(mention_nlp, litbank_piece)
    from spacy_entmem.pipeline.memory_log import decode_span_mentions, group_clusters

    log = doc._.entity_memory_log
    mentions = decode_span_mentions(log["action"], log["cell"], log["spans"])
    expected = sorted(sorted(c) for c in group_clusters(mentions) if len(c) > 1)
    assert _clusters(doc) == expected


def test_decision_settings_change_the_clusters_and_round_trip(mention_nlp, litbank_piece, tmp_path):  # noqa: F811
    doc = _with_gold_candidates(mention_nlp, litbank_piece)
    redecode(mention_nlp, [doc], entity_threshold=1.0, new_entity_bias=1.0)
    assert len(doc.spans["coref_mentions"]) == 0  # IGNORE wins everywhere
    redecode(mention_nlp, [doc], entity_threshold=0.5, new_entity_bias=1.0)
    before = _clusters(doc)
    mention_nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    assert _clusters(_with_gold_candidates(loaded, litbank_piece)) == before


def test_the_pruning_bound_reaches_the_memory_and_its_log(mention_nlp, litbank_piece):  # noqa: F811
    memory = mention_nlp.get_pipe("entity_memory")
    assert memory.cfg["pruning_bound"] is None and "pruned" not in _with_gold_candidates(
        mention_nlp, litbank_piece)._.entity_memory_log
    try:
        memory.cfg["entity_threshold"] = 0.9999  # IGNORE wins over OVERWRITE nearly everywhere
        memory.cfg["pruning_bound"] = -50.0
        log = _with_gold_candidates(mention_nlp, litbank_piece)._.entity_memory_log
        memory.cfg["pruning_bound"] = 1e6  # no candidate can be ruled out
        unpruned = _with_gold_candidates(mention_nlp, litbank_piece)._.entity_memory_log
        memory.cfg["pruning_bound"] = float("inf")
        with pytest.raises(ValueError, match="pruning_bound must be null or a finite number, got inf"):
            _with_gold_candidates(mention_nlp, litbank_piece)
    finally:
        memory.cfg["pruning_bound"], memory.cfg["entity_threshold"] = None, 0.5
    assert log["pruned"].shape == log["action"].shape and log["pruned"].any()
    assert numpy.all(log["action"][log["pruned"]] == 0) and numpy.all(log["entity"][log["pruned"]] == 0)
    assert not unpruned["pruned"].any()


def test_docs_without_full_clusters_train_without_loss(litbank_piece):  # noqa: F811
    nlp = mention_pipeline()
    ref = nlp.make_doc("Anna met Bob . She smiled .")  # no coref_clusters_N groups at all
    examples = [Example(nlp.make_doc(litbank_piece.text), litbank_piece), Example(nlp.make_doc(ref.text), ref)]
    optimizer = nlp.initialize(lambda: examples)
    losses = {}
    nlp.update(examples, sgd=optimizer, losses=losses)
    alone = {}
    nlp.update(examples[1:], sgd=optimizer, losses=alone)
    assert losses["entity_memory"] > 0 and alone["entity_memory"] == 0


def test_invalid_mention_memory_config_names_the_setting():
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config=TINY_TOK2VEC)
    with pytest.raises(ValueError, match="n_cells must be at least 1, got 0.*feature_width must be at least 1"):
        nlp.add_pipe("entity_memory", config={"model": {**MENTION_MODEL, "n_cells": 0, "feature_width": 0}})


def test_coref_evaluate_reports_the_floors_and_reuses_chosen_decisions(mention_nlp, litbank_piece, tmp_path):  # noqa: F811
    import json

    from spacy.tokens import DocBin
    from typer.testing import CliRunner

    from spacy_entmem.cli import app
    from spacy_entmem.evaluation.coref_evaluate import FORCED_BIASES, FORCED_THRESHOLDS, gold_clusters
    from spacy_entmem.evaluation.coref_metrics import CorefScorer
    from spacy_entmem.evaluation.rule_baseline import string_match_clusters

    corpus = tmp_path / "gold.spacy"
    DocBin(docs=[litbank_piece], store_user_data=True).to_disk(corpus)
    mention_nlp.to_disk(tmp_path / "model")
    result = CliRunner().invoke(app, ["coref-evaluate", str(tmp_path / "model"), str(corpus), "--output-dir",
                                      str(tmp_path / "out"), "--name", "dev", "--select-on", str(corpus)])
    assert result.exit_code == 0, result.output
    assert "rule, our mentions" in result.output and "mention detection P" in result.output
    assert "95 % bootstrap intervals over the 1 documents" in result.output
    scores = json.loads((tmp_path / "out" / "dev.json").read_text())
    assert scores["entity_threshold"] in FORCED_THRESHOLDS and scores["new_entity_bias"] in FORCED_BIASES
    key = gold_clusters(litbank_piece)
    direct = CorefScorer(True)
    direct.add(key, string_match_clusters([t.text for t in litbank_piece], [m for c in key for m in c]))
    assert scores["baselines"]["rule_gold_mentions"]["lea_f"] == pytest.approx(direct.scores()["lea_f"])
    # one document: every draw is that document, so each interval is the point figure
    rule = scores["baselines"]["rule_predicted_mentions"]
    assert scores["intervals"]["lea_f"] == pytest.approx([scores["coref_lea_f"]] * 2)
    assert scores["intervals"]["conll_f_minus_rule"] == pytest.approx([scores["coref_conll_f"] - rule["conll_f"]] * 2)
    assert scores["gold_mentions"] == len({m for c in key for m in c})
    assert 0 <= scores["mention_p"] <= 1 and 0 <= scores["candidate_r"] <= 1
    again = CliRunner().invoke(app, ["coref-evaluate", str(tmp_path / "model"), str(corpus), "--output-dir",
                                     str(tmp_path / "out"), "--name", "test", "--decisions-from",
                                     str(tmp_path / "out" / "dev.json")])
    assert again.exit_code == 0, again.output
    reused = json.loads((tmp_path / "out" / "test.json").read_text())
    assert (reused["entity_threshold"], reused["new_entity_bias"]) == (scores["entity_threshold"],
                                                                       scores["new_entity_bias"])
    assert reused["coref_lea_f"] == pytest.approx(scores["coref_lea_f"])
    twice = CliRunner().invoke(app, ["coref-evaluate", str(tmp_path / "model"), str(corpus), str(corpus),
                                     "--output-dir", str(tmp_path / "out"), "--name", "twice", "--decisions-from",
                                     str(tmp_path / "out" / "dev.json")])
    assert twice.exit_code == 0, twice.output
    both = json.loads((tmp_path / "out" / "twice.json").read_text())  # several files: one corpus
    assert both["documents"] == 2 * reused["documents"] and both["gold_mentions"] == 2 * reused["gold_mentions"]
    assert both["coref_lea_f"] == pytest.approx(reused["coref_lea_f"])
    assert reused["name_genders"] is False and reused["pronoun_agreement"] == [] and reused["name_agreement"] is False
    setting = CliRunner().invoke(app, ["coref-evaluate", str(tmp_path / "model"), str(corpus), "--output-dir",
                                       str(tmp_path / "out"), "--name", "set", "--setting", "name_genders=true",
                                       "--setting", 'pronoun_agreement=["gender"]', "--setting", "name_agreement=true"])
    assert setting.exit_code == 0, setting.output
    chosen = json.loads((tmp_path / "out" / "set.json").read_text())
    assert chosen["name_genders"] is True and chosen["pronoun_agreement"] == ["gender"] and chosen["name_agreement"]
    for bad, message in (("colour=1", "expected NAME=VALUE"), ("name_genders=yes", "must be JSON")):
        refused = CliRunner().invoke(app, ["coref-evaluate", str(tmp_path / "model"), str(corpus), "--setting", bad])
        assert refused.exit_code == 1 and message in refused.output, refused.output


def test_negative_candidates_change_between_epochs_reproducibly(litbank_piece):  # noqa: F811
    def draws():
        nlp = mention_pipeline(negatives_per_token=0.05)
        eg = Example(nlp.make_doc(litbank_piece.text), litbank_piece)
        eg.predicted.spans[CANDIDATES_KEY] = [eg.predicted[i: i + 1] for i in range(len(eg.predicted))]
        memory = nlp.get_pipe("entity_memory")
        return [{tuple(s) for s in memory.training_candidates(eg).tolist()} for _ in range(2)]

    first, second = draws()
    assert first != second  # another sample of negatives each epoch
    assert draws() == [first, second]  # the same sequence in every run


def test_gold_is_read_under_the_configured_cluster_prefix(litbank_piece):  # noqa: F811
    nlp = mention_pipeline(cluster_prefix="entities")
    ref = litbank_piece.copy()
    for key in [k for k in ref.spans if k.startswith("coref_clusters_")]:
        ref.spans[key.replace("coref_clusters", "entities")] = ref.spans.pop(key)
    eg = Example(nlp.make_doc(ref.text), ref)
    docs, spans, clusters, partial = nlp.get_pipe("entity_memory")._teacher_forced_batch([eg])
    assert partial == [False]
    assert (clusters[0] >= 0).sum() == len({(s.start, s.end) for s in ref.spans["mention_candidates"]})


def test_gap_paragraphs_train_the_pronoun_decision(gap_validation_docs):
    nlp = mention_pipeline()
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in gap_validation_docs[:6]]
    memory = nlp.get_pipe("entity_memory")
    docs, spans, codes, partial = memory._teacher_forced_batch(examples)
    assert partial == [True] * 6
    for doc, s, c in zip(gap_validation_docs[:6], spans, codes):
        group = doc.spans["gap"]
        labelled = {span.label_: (span.start, span.end) for span in group}
        by_span = dict(zip(map(tuple, s.tolist()), c.tolist()))
        assert by_span[labelled["A"]] == 0 and by_span[labelled["B"]] == 1
        expected = 0 if group.attrs["A_coref"] else 1 if group.attrs["B_coref"] else -3
        assert by_span[labelled["PRONOUN"]] == expected
    optimizer = nlp.initialize(lambda: examples)
    losses = {}
    nlp.update(examples, sgd=optimizer, losses=losses)
    assert 0 < losses["entity_memory"] < float("inf")


def test_finder_threshold_selection_and_a_checked_ship(mention_nlp, litbank_piece, tmp_path):  # noqa: F811
    import json

    from spacy.tokens import DocBin
    from typer.testing import CliRunner

    from spacy_entmem.evaluation.coref_evaluate import select_finder_settings

    corpus = tmp_path / "gold.spacy"
    DocBin(docs=[litbank_piece], store_user_data=True).to_disk(corpus)
    best, tried = select_finder_settings(mention_nlp, corpus, thresholds=(0.1, 0.9), caps=(0.2, 1.0))
    assert set(tried) == {(0.1, 0.2), (0.1, 1.0), (0.9, 0.2), (0.9, 1.0)} and tried[best] == max(tried.values())
    finder = mention_nlp.get_pipe("span_finder")
    assert (finder.cfg["threshold"], finder.cfg["max_per_token"]) == best
    mention_nlp.get_pipe("span_finder").cfg["threshold"] = 0.3
    mention_nlp.to_disk(tmp_path / "trained")
    decisions = tmp_path / "chosen.json"
    decisions.write_text(json.dumps({"entity_threshold": 0.6, "new_entity_bias": 1.4, "finder_threshold": 0.15,
                                     "finder_max_per_token": 1.2}))
    target = tmp_path / "shipped"
    result = CliRunner().invoke(maintainer_app, ["ship-default", str(tmp_path / "trained"), "--target", str(target),
                                      "--decisions-from", str(decisions)])
    assert result.exit_code == 0, result.output
    shipped = spacy.load(target)
    assert shipped.get_pipe("span_finder").cfg["threshold"] == 0.15
    assert shipped.get_pipe("span_finder").cfg["max_per_token"] == 1.2
    assert shipped.get_pipe("entity_memory").cfg["new_entity_bias"] == 1.4
    # a source that does not load leaves the shipped pipeline as it was
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.cfg").write_text("[nlp]\nlang = \"xx-nope\"\n")
    (broken / "meta.json").write_text("{}")
    result = CliRunner().invoke(maintainer_app, ["ship-default", str(broken), "--target", str(target)])
    assert result.exit_code == 1 and "left as it was" in " ".join(result.output.split())
    assert spacy.load(target).get_pipe("span_finder").cfg["threshold"] == 0.15
    assert not (tmp_path / "shipped.staging").exists()


def test_disabled_pair_features_are_validated_and_reach_the_memory(mention_nlp, litbank_piece):  # noqa: F811
    from spacy_entmem.models.memory import torch_memory

    with pytest.raises(ValueError, match=r"disabled_pair_features \['distance'\] are not pair features.*token distance"):
        mention_pipeline(disabled_pair_features=["distance"])
    memory = mention_nlp.get_pipe("entity_memory")
    memory.cfg["disabled_pair_features"] = ["token distance", "head match"]
    _with_gold_candidates(mention_nlp, litbank_piece)
    assert torch_memory(memory.model).disabled_pair_features == (5, 1)
    memory.cfg["disabled_pair_features"] = []
    _with_gold_candidates(mention_nlp, litbank_piece)
    assert torch_memory(memory.model).disabled_pair_features == ()


def test_name_genders_setting_reaches_the_model_and_a_load_override_wins(mention_nlp, litbank_piece, tmp_path):  # noqa: F811
    from spacy_entmem.models.memory import ATTRIBUTES_LAYER, find_layer

    assert mention_nlp.get_pipe("entity_memory").cfg["name_genders"] is False
    mention_nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp", config={"components": {"entity_memory": {"name_genders": True}}})
    memory = loaded.get_pipe("entity_memory")
    assert memory.cfg["name_genders"] is True
    _with_gold_candidates(loaded, litbank_piece)
    assert find_layer(memory.model, ATTRIBUTES_LAYER).attrs["name_genders"] is True
    memory.cfg["name_genders"] = False
    _with_gold_candidates(loaded, litbank_piece)
    assert find_layer(memory.model, ATTRIBUTES_LAYER).attrs["name_genders"] is False


def test_pipe_regroups_documents_by_length_but_keeps_their_order_and_results(mention_nlp, litbank_piece):  # noqa: F811
    words = [t.text for t in litbank_piece]
    lengths = [300, 12, 150, 40, 260, 5, 90, 200, 30]  # batches of 2 in a window of SORT_WINDOW batches
    docs = [mention_nlp.get_pipe("span_finder")(mention_nlp.get_pipe("tok2vec")(
        Doc(mention_nlp.vocab, words=words[:n]))) for n in lengths]
    memory = mention_nlp.get_pipe("entity_memory")
    one_by_one = [_clusters(memory(doc.copy())) for doc in docs]
    batches, predict = [], memory.predict
    memory.predict = lambda batch: batches.append([len(d.spans[CANDIDATES_KEY]) for d in batch]) or predict(batch)
    try:
        piped = list(memory.pipe([doc.copy() for doc in docs], batch_size=2))
    finally:
        del memory.predict
    counts = sorted(len(doc.spans[CANDIDATES_KEY]) for doc in docs)
    assert batches == [counts[i: i + 2] for i in range(0, len(counts), 2)]  # one window, sorted
    assert [doc.text for doc in piped] == [doc.text for doc in docs]
    assert [_clusters(doc) for doc in piped] == one_by_one
    assert any(one_by_one)


def test_pipe_bounds_each_batch_by_padded_steps_and_keeps_order_and_results(mention_nlp, litbank_piece):  # noqa: F811
    words = [t.text for t in litbank_piece]
    lengths = [300, 12, 150, 40, 260, 5, 90, 200, 30]
    docs = [mention_nlp.get_pipe("span_finder")(mention_nlp.get_pipe("tok2vec")(
        Doc(mention_nlp.vocab, words=words[:n]))) for n in lengths]
    memory = mention_nlp.get_pipe("entity_memory")
    one_by_one = [_clusters(memory(doc.copy())) for doc in docs]
    counts = [len(doc.spans[CANDIDATES_KEY]) for doc in docs]
    budget = sorted(counts)[-2] + 1  # the longest document alone, the second longest with nothing longer
    batches, predict = [], memory.predict
    memory.predict = lambda batch: batches.append([len(d.spans[CANDIDATES_KEY]) for d in batch]) or predict(batch)
    shipped, memory.cfg["max_batch_steps"] = memory.cfg["max_batch_steps"], budget
    try:
        piped = list(memory.pipe([doc.copy() for doc in docs], batch_size=100))
    finally:
        del memory.predict
        memory.cfg["max_batch_steps"] = shipped
    assert sorted(c for batch in batches for c in batch) == sorted(counts)  # every document read once
    assert all(len(b) * max(b) <= budget or len(b) == 1 for b in batches)
    assert [max(counts)] in batches and len(batches) > 2
    assert [doc.text for doc in piped] == [doc.text for doc in docs]
    assert [_clusters(doc) for doc in piped] == one_by_one


def test_length_batches_cut_sorted_lengths_by_count_and_padded_size():
    from spacy_entmem.pipeline.entity_memory import length_batches

    assert length_batches([1, 2, 3, 4, 5], max_docs=2, max_steps=None) == [[0, 1], [2, 3], [4]]
    assert length_batches([1, 2, 3, 4, 50], max_docs=10, max_steps=12) == [[0, 1, 2], [3], [4]]  # 4 x 4 > 12
    assert length_batches([], max_docs=4, max_steps=8) == []
    assert length_batches([20], max_docs=4, max_steps=8) == [[0]]  # too long for the budget: alone


def test_read_windows_close_at_a_document_count_or_a_step_budget():
    from spacy_entmem.pipeline.entity_memory import read_windows

    windows = list(read_windows(iter("abcdefg"), lambda doc: 10 if doc == "c" else 1, max_docs=3, max_steps=11))
    assert windows == [(["a", "b", "c"], [1, 1, 10]), (["d", "e", "f"], [1, 1, 1]), (["g"], [1])]
    windows = list(read_windows(iter("abcd"), lambda doc: 6, max_docs=10, max_steps=11))
    assert windows == [(["a", "b"], [6, 6]), (["c", "d"], [6, 6])]


def test_pipe_error_handler_drops_only_the_failing_batch(mention_nlp, litbank_piece):  # noqa: F811
    words = [t.text for t in litbank_piece]
    docs = [mention_nlp.get_pipe("span_finder")(mention_nlp.get_pipe("tok2vec")(
        Doc(mention_nlp.vocab, words=words[:n]))) for n in (50, 60, 70)]
    broken = Doc(mention_nlp.vocab, words=words[:20])  # no candidates: the memory cannot read it
    memory = mention_nlp.get_pipe("entity_memory")
    errors = []
    memory.set_error_handler(lambda name, proc, batch, error: errors.append((name, [len(d) for d in batch])))
    try:
        out = list(memory.pipe(docs + [broken], batch_size=1))
    finally:
        memory.set_error_handler(spacy.util.raise_error)
    assert [doc.text for doc in out] == [doc.text for doc in docs] and errors == [("entity_memory", [len(broken)])]
    with pytest.raises(ValueError, match="has none: add an 'entmem_span_finder'"):
        list(memory.pipe([broken], batch_size=1))


def test_agreement_settings_are_validated_and_reach_the_memory(mention_nlp, litbank_piece):  # noqa: F811
    from spacy_entmem.models.memory import torch_memory

    with pytest.raises(ValueError, match=r"pronoun_agreement \['animacy'\] is not one of \['gender', 'number'\]"):
        mention_pipeline(pronoun_agreement=["animacy"])
    memory = mention_nlp.get_pipe("entity_memory")
    from spacy_entmem.models.memory import ATTRIBUTES_LAYER, find_layer

    memory.cfg["pronoun_agreement"], memory.cfg["name_agreement"] = ["gender", "number"], True
    memory.cfg["animacy_agreement"], memory.cfg["narrator_continuity"] = True, True
    try:
        _with_gold_candidates(mention_nlp, litbank_piece)
        assert torch_memory(memory.model).agreement_constraints == (2, 3)
        assert torch_memory(memory.model).name_agreement is True
        assert torch_memory(memory.model).animacy_agreement is True
        assert torch_memory(memory.model).narrator_continuity is True
        assert find_layer(memory.model, ATTRIBUTES_LAYER).attrs["inanimate_nouns"] is True  # the list is read
    finally:
        memory.cfg["pronoun_agreement"], memory.cfg["name_agreement"] = [], False
        memory.cfg["animacy_agreement"], memory.cfg["narrator_continuity"] = False, False
    _with_gold_candidates(mention_nlp, litbank_piece)
    assert torch_memory(memory.model).agreement_constraints == ()
    assert torch_memory(memory.model).name_agreement is False
    assert torch_memory(memory.model).animacy_agreement is False
    assert torch_memory(memory.model).narrator_continuity is False
    assert find_layer(memory.model, ATTRIBUTES_LAYER).attrs["inanimate_nouns"] is False
    assert mention_pipeline(name_agreement=True).get_pipe("entity_memory").cfg["name_agreement"] is True
    assert mention_pipeline(animacy_agreement=True).get_pipe("entity_memory").cfg["animacy_agreement"] is True
    assert mention_pipeline(narrator_continuity=True).get_pipe("entity_memory").cfg["narrator_continuity"] is True


def test_another_mention_schemes_finder_and_memory_are_added_off_and_checked(mention_nlp, tmp_path):
    from typer.testing import CliRunner

    from spacy_entmem.pipeline.mention_schemes import use_mention_scheme

    target, source = tmp_path / "shipped", tmp_path / "finder"
    mention_nlp.to_disk(target)
    # the same tok2vec; a finder and a memory set apart, the memory with another entity_threshold
    tuned = spacy.load(target, config={"components": {"entity_memory": {"entity_threshold": 0.45}}})
    tuned.get_pipe("span_finder").cfg["threshold"] = 0.42
    tuned.to_disk(source)
    chosen = tmp_path / "chosen.json"
    chosen.write_text('{"finder_threshold": 0.6, "new_entity_bias": 1.3}')
    result = CliRunner().invoke(maintainer_app, ["add-mention-scheme", str(source), "--target", str(target),
                                                 "--scheme", "gum", "--decisions-from", str(chosen), "--with-memory"])
    assert result.exit_code == 0, result.output
    shipped = spacy.load(target)
    assert shipped.pipe_names == mention_nlp.pipe_names
    assert shipped.disabled == ["span_finder_gum", "entity_memory_gum"]
    assert shipped.get_pipe("span_finder").cfg["threshold"] == mention_nlp.get_pipe("span_finder").cfg["threshold"]
    assert shipped.get_pipe("entity_memory").cfg["entity_threshold"] != 0.45
    gum = use_mention_scheme(spacy.load(target), "gum")
    assert gum.pipe_names == ["tok2vec", "span_finder", "entity_memory"]
    assert gum.get_pipe("span_finder").cfg["threshold"] == 0.6
    assert gum.get_pipe("entity_memory").cfg["entity_threshold"] == 0.45
    assert gum.get_pipe("entity_memory").cfg["new_entity_bias"] == 1.3
    assert shipped.get_pipe("entity_memory").cfg["new_entity_bias"] != 1.3
    assert "mention_candidates" in gum("Anna met Bob. She said he was late.").spans
    # a finder trained over another tok2vec is refused, the target stays as it was
    from ..training.test_assembly import finder_pipeline

    finder_pipeline(1).to_disk(tmp_path / "other")
    result = CliRunner().invoke(maintainer_app, ["add-mention-scheme", str(tmp_path / "other"), "--target",
                                                 str(target), "--scheme", "gum"])
    assert result.exit_code == 1 and "trained over another 'tok2vec'" in " ".join(result.output.split())
    assert spacy.load(target).get_pipe("span_finder_gum").cfg["threshold"] == 0.6
    assert "entity_memory_gum" in spacy.load(target).component_names
    result = CliRunner().invoke(maintainer_app, ["add-mention-scheme", str(source), "--target", str(target),
                                                 "--scheme", "litbank"])
    assert result.exit_code == 1 and "ship-default" in result.output


def test_a_beam_reaches_the_memory_and_its_clusters_are_its_log(mention_nlp, litbank_piece):  # noqa: F811
    from spacy_entmem.models.memory import torch_memory
    from spacy_entmem.pipeline.memory_log import decode_span_mentions, group_clusters

    memory = mention_nlp.get_pipe("entity_memory")
    greedy = _with_gold_candidates(mention_nlp, litbank_piece)
    seen = []
    module = torch_memory(memory.model)
    read = module.read_memory
    module.read_memory = lambda *args, **kwargs: seen.append(module.beam_width) or read(*args, **kwargs)
    try:
        memory.cfg["beam_width"] = 4
        doc = _with_gold_candidates(mention_nlp, litbank_piece)
        memory.cfg["beam_width"] = 1.5
        with pytest.raises(ValueError, match="beam_width must be a whole number >= 1"):
            _with_gold_candidates(mention_nlp, litbank_piece)
    finally:
        memory.cfg["beam_width"] = 1
        del module.read_memory
    assert seen == [4]
    log = doc._.entity_memory_log
    assert log["action"].shape == greedy._.entity_memory_log["action"].shape
    mentions = decode_span_mentions(log["action"], log["cell"], log["spans"])
    assert _clusters(doc) == sorted(sorted(c) for c in group_clusters(mentions) if len(c) > 1)


def test_a_parse_feature_can_be_disabled_only_in_a_memory_that_has_them(mention_nlp, litbank_piece):  # noqa: F811
    memory = mention_nlp.get_pipe("entity_memory")
    memory.cfg["disabled_pair_features"] = ["binding"]
    try:
        with pytest.raises(ValueError, match=r"\['binding'\] are parse features, and this memory has none"):
            _with_gold_candidates(mention_nlp, litbank_piece)
    finally:
        memory.cfg["disabled_pair_features"] = []


def test_the_memory_with_parse_features_trains_and_reads_docs_without_a_parse(litbank_piece):  # noqa: F811
    from spacy_entmem.models.memory import torch_memory

    spacy.util.fix_random_seed(0)
    nlp = span_pipeline(model={**MENTION_MODEL, "@architectures": "spacy_entmem.MentionMemory.v2"},
                        negatives_per_token=0.0, disabled_pair_features=["cell's last role"])
    losses = train_pipeline(nlp, [Example(nlp.make_doc(litbank_piece.text), litbank_piece)], steps=5,
                            learn_rate=0.01)
    assert all(numpy.isfinite(losses))
    doc = _with_gold_candidates(nlp, litbank_piece)
    assert any(key.startswith("coref_clusters") for key in doc.spans)
    module = torch_memory(nlp.get_pipe("entity_memory").model)  # (settings reach the memory when it runs)
    assert module.parse_features and module.disabled_pair_features == (12,)
