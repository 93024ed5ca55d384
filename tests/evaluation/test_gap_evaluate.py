"""GAP evaluation of a span pipeline, with the memory's decision settings chosen on validation."""
import json
import shutil

import pytest
import spacy
from spacy.training import Example
from typer.testing import CliRunner

import spacy_entmem
from spacy_entmem.corpora.gap import read_gap_rows
from spacy_entmem.evaluation.gap_evaluate import (evaluate_gap, pair_probabilities, pronoun_resolver_of,
                                                  select_gap_decisions, select_gap_finder)
from spacy_entmem.research.maintainer import app as maintainer_app
from spacy_entmem.pipeline.pronoun_resolver import resolve_pronoun

from ..conftest import GAP
from ..pipeline.test_entity_memory_mention import mention_pipeline


@pytest.fixture(scope="module")
def small_gap(tmp_path_factory):
    lines = (GAP / "gap-validation.tsv").read_text(encoding="utf8").splitlines(keepends=True)
    path = tmp_path_factory.mktemp("gap") / "small.tsv"
    path.write_text("".join(lines[:13]), encoding="utf8")  # header + 12 examples
    return path


@pytest.fixture(scope="module")
def gap_nlp(gap_validation_docs):
    spacy.util.fix_random_seed(0)
    nlp = mention_pipeline()
    nlp.initialize(lambda: [Example(nlp.make_doc(d.text), d) for d in gap_validation_docs[:8]])
    return nlp


def test_decision_settings_are_chosen_on_validation_and_left_set(gap_nlp, small_gap):
    settings = [(0.5, 1.0), (1.0, 1.0)]  # an entity threshold of 1 ignores every candidate
    best, tried = select_gap_decisions(gap_nlp, small_gap, settings=settings)
    assert set(tried) == set(settings)
    assert tried[best] == max(tried.values())
    memory = gap_nlp.get_pipe("entity_memory")
    assert (memory.cfg["entity_threshold"], memory.cfg["new_entity_bias"]) == best


def test_evaluate_gap_reports_the_chosen_settings(gap_nlp, small_gap, tmp_path):
    result = evaluate_gap(gap_nlp, small_gap, small_gap, tmp_path, select_decisions=True)
    assert len(result["decisions_tried"]) == 25
    key = f"{result['entity_threshold']},{result['new_entity_bias']}"
    assert result["decisions_tried"][key] == max(result["decisions_tried"].values())
    # validation was scored with the chosen settings, so its F1 is the one recorded for them
    assert round(result["validation"]["f1"], 2) == result["decisions_tried"][key]
    saved = json.loads((tmp_path / "gap_scores.json").read_text(encoding="utf8"))
    assert saved["entity_threshold"] == result["entity_threshold"]
    low, high = saved["test_intervals"]["f1"]
    assert low <= result["test"]["f1"] <= high and saved["test_interval_row"].startswith("O ")
    assert (tmp_path / "gap-test.system.tsv").read_text(encoding="utf8").count("\n") == 12


def test_finder_settings_are_chosen_on_validation_and_left_set(gap_nlp, small_gap):
    finder = gap_nlp.get_pipe("span_finder")
    before = (finder.cfg["threshold"], finder.cfg["max_per_token"])
    best, tried = select_gap_finder(gap_nlp, small_gap, thresholds=(0.3, 0.99), caps=(0.5, 1.5))
    assert set(tried) == {(0.3, 0.5), (0.3, 1.5), (0.99, 0.5), (0.99, 1.5)}
    assert tried[best] == max(tried.values())
    assert (finder.cfg["threshold"], finder.cfg["max_per_token"]) == best
    # the annotated spans are candidates whatever the finder proposes, so every setting scores the pronouns
    assert all(0 < f1 <= 100 for f1 in tried.values())
    finder.cfg.update(threshold=before[0], max_per_token=before[1])


def test_evaluate_gap_reports_the_chosen_finder_settings(gap_nlp, small_gap, tmp_path):
    finder = gap_nlp.get_pipe("span_finder")
    before = (finder.cfg["threshold"], finder.cfg["max_per_token"])
    result = evaluate_gap(gap_nlp, small_gap, small_gap, tmp_path, select_finder=True)
    assert len(result["finder_tried"]) == 12
    key = f"{result['finder_threshold']},{result['finder_max_per_token']}"
    assert result["finder_tried"][key] == max(result["finder_tried"].values())
    assert round(result["validation"]["f1"], 2) == result["finder_tried"][key]
    assert "entity_threshold" not in result  # decisions were not selected
    finder.cfg.update(threshold=before[0], max_per_token=before[1])


@pytest.fixture(scope="module")
def shipped():
    return spacy_entmem.load_default()


def test_the_resolver_scores_gap_where_the_pipeline_has_one(shipped, small_gap, tmp_path):
    resolver = pronoun_resolver_of(shipped)
    assert resolver is not None and resolver.name == "pronoun_resolver"
    by_resolver = evaluate_gap(shipped, small_gap, small_gap, tmp_path / "resolver")
    by_memory = evaluate_gap(shipped, small_gap, small_gap, tmp_path / "memory", memory_only=True)
    assert (by_resolver["scored_by"], by_memory["scored_by"]) == ("pronoun_resolver", "memory")
    gold, probabilities, _, _ = pair_probabilities(shipped, small_gap, resolver=resolver)
    _, memory_probabilities, _, _ = pair_probabilities(shipped, small_gap)
    assert len(gold) == len(probabilities) == 12 and probabilities != memory_probabilities
    example = gold[0].id
    assert probabilities[example][0] == pytest.approx(by_resolver_answer(shipped, small_gap, example)[0])


def test_gender_swap_scores_the_swapped_test_and_counts_unchanged_answers(shipped, small_gap, gap_nlp, tmp_path):
    result = evaluate_gap(shipped, small_gap, small_gap, tmp_path, gender_swap=True)
    swapped = list(read_gap_rows(tmp_path / "small.swapped.tsv"))
    assert result["swapped_examples"] == len(swapped) == 12 - len(result["swap_left_out"]) > 0
    originals = {row.id: row for row in read_gap_rows(small_gap)}
    for row in swapped:  # the pronoun has the other gender; the gold answers are the original's
        original = originals[row.id[: -len("-swapped")]]
        assert (row.a_coref, row.b_coref) == (original.a_coref, original.b_coref)
        assert row.spans[0][1].lower() != original.spans[0][1].lower()
    assert 0.0 <= result["swap_answers_unchanged"] <= 1.0
    assert set(result["test_swapped"]) >= {"f1", "f1_masc", "f1_fem", "bias"}
    with pytest.raises(ValueError, match="no 'tagger'"):
        evaluate_gap(gap_nlp, small_gap, small_gap, tmp_path / "untagged", gender_swap=True)


def by_resolver_answer(nlp, tsv, example_id):
    """The resolver's answer for one GAP row through the public ``resolve_pronoun``."""
    row = next(row for row in read_gap_rows(tsv) if row.id == example_id)
    offsets = {label: (offset, offset + len(text)) for label, text, offset in row.spans}
    return resolve_pronoun(nlp, row.text, offsets["PRONOUN"], offsets["A"], offsets["B"])


def test_add_pronoun_resolver_trains_chooses_a_threshold_and_swaps(small_gap, tmp_path):
    target = tmp_path / "default"
    shutil.copytree(spacy_entmem.DEFAULT_PIPELINE, target)
    result = CliRunner().invoke(maintainer_app, ["add-pronoun-resolver", str(small_gap), str(small_gap),
                                                 "--target", str(target), "--also-train-on", str(small_gap)])
    assert result.exit_code == 0, result.output
    assert "48 rows" in " ".join(result.output.split())  # 12 examples × (A, B) × two files
    nlp = spacy.load(target)
    resolver = nlp.get_pipe("pronoun_resolver")
    assert nlp.pipe_names[-1] == "pronoun_resolver" and resolver.cfg["trained_on"] == "small.tsv + small.tsv"
    # the shipped resolver's decision rules and design carry over to the retrained one (the factory default is off)
    assert resolver.cfg["binding_agreement"] is True and resolver.cfg["gender_agreement"] is True
    assert resolver.cfg["encoder_layers"] == [] and resolver.cfg["n_models"] == 5
    assert resolver.cfg["rule_conditioning"] is True
    chosen = evaluate_gap(nlp, small_gap, small_gap, tmp_path / "scores")["threshold"]
    assert resolver.cfg["threshold"] == chosen
    assert not (tmp_path / "default.staging").exists()
    # --rule names a rule for the new resolver; anything but a rule is refused
    result = CliRunner().invoke(maintainer_app, ["add-pronoun-resolver", str(small_gap), str(small_gap),
                                                 "--target", str(target), "--rule", "binding_agreement=false"])
    assert result.exit_code == 0, result.output
    resolver = spacy.load(target).get_pipe("pronoun_resolver")
    assert resolver.cfg["binding_agreement"] is False and resolver.cfg["gender_agreement"] is True
    result = CliRunner().invoke(maintainer_app, ["add-pronoun-resolver", str(small_gap), str(small_gap),
                                                 "--target", str(target), "--rule", "threshold=0.2"])
    assert result.exit_code == 1 and "expected NAME=VALUE" in " ".join(result.output.split()), result.output
    # the design can be named: MiniLM's layer-4 span vectors too, two members; then none again
    result = CliRunner().invoke(maintainer_app, ["add-pronoun-resolver", str(small_gap), str(small_gap),
                                                 "--target", str(target), "--encoder-layers", "4", "--n-models", "2"])
    assert result.exit_code == 0, result.output
    resolver = spacy.load(target).get_pipe("pronoun_resolver")
    assert resolver.cfg["encoder_layers"] == [4] and resolver.encoder.layers == [4] and resolver.cfg["n_models"] == 2
    assert resolver.cfg["input_width"] == 1466 + 2 * 384
    result = CliRunner().invoke(maintainer_app, ["add-pronoun-resolver", str(small_gap), str(small_gap),
                                                 "--target", str(target), "--encoder-layers", ""])
    assert result.exit_code == 0, result.output
    resolver = spacy.load(target).get_pipe("pronoun_resolver")
    assert resolver.cfg["encoder_layers"] == [] and resolver.encoder is None and resolver.cfg["n_models"] == 2
    assert resolver.cfg["input_width"] == 1466
    result = CliRunner().invoke(maintainer_app, ["add-pronoun-resolver", str(small_gap), str(small_gap),
                                                 "--target", str(target), "--encoder-layers", "3,x"])
    assert result.exit_code == 1 and "takes comma-separated integers, got '3,x'" in " ".join(result.output.split())
