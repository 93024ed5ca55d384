import numpy
import pytest
import spacy
import torch
from typer.testing import CliRunner

from spacy_entmem.cli import app
from spacy_entmem.training.averaging import average_pipelines

from ..conftest import TINY_MODEL, train_tiny


def _torch_module(nlp):
    return next(shim._model for node in nlp.get_pipe("entity_memory").model.walk() for shim in node.shims)


def _thinc_weights(nlp):
    return [node.get_param(p).copy() for node in nlp.get_pipe("tok2vec").model.walk()
            for p in node.param_names if node.has_param(p)]


def _perturbed_copy(trained_nlp, tmp_path, scale: float):
    tmp_path.mkdir(parents=True, exist_ok=True)
    trained_nlp.to_disk(tmp_path / "a")
    other = spacy.load(tmp_path / "a")
    for node in other.get_pipe("tok2vec").model.walk():
        for p in node.param_names:
            if node.has_param(p):
                node.set_param(p, node.get_param(p) + scale)
    with torch.no_grad():
        for weight in _torch_module(other).parameters():
            weight.add_(scale)
    return other


def test_average_is_the_midpoint_of_thinc_and_torch_weights(trained_nlp, tmp_path):
    original = spacy.load(_save(trained_nlp, tmp_path / "orig"))
    shifted = _perturbed_copy(trained_nlp, tmp_path, 2.0)
    before_thinc = _thinc_weights(original)
    before_torch = {k: v.clone() for k, v in _torch_module(original).state_dict().items()}
    averaged = average_pipelines([original, shifted])
    for before, after in zip(before_thinc, _thinc_weights(averaged)):
        numpy.testing.assert_allclose(after, before + 1.0, rtol=1e-6, atol=1e-6)
    state = _torch_module(averaged).state_dict()
    for name, weight in _torch_module(shifted).named_parameters():
        torch.testing.assert_close(state[name], before_torch[name] + 1.0)
    # the averaged pipeline still annotates and round-trips
    doc = averaged("Anna met Bob. She said he was late.")
    assert len(doc) == 10 and doc.spans.keys()


def test_average_of_one_pipeline_changes_nothing(trained_nlp, tmp_path):
    nlp = spacy.load(_save(trained_nlp, tmp_path / "one"))
    before = _thinc_weights(nlp)
    averaged = average_pipelines([nlp])
    for old, new in zip(before, _thinc_weights(averaged)):
        numpy.testing.assert_array_equal(old, new)
    ours, theirs = averaged("Anna met Bob. She said he was late."), trained_nlp("Anna met Bob. She said he was late.")
    assert {k: [s.text for s in g] for k, g in ours.spans.items()} == \
        {k: [s.text for s in g] for k, g in theirs.spans.items()}


def test_pipelines_of_other_structure_are_refused_with_the_component_named(trained_nlp, gap_validation_docs):
    other, _ = train_tiny(gap_validation_docs[:4], steps=1, model={**TINY_MODEL, "hidden_width": 8})
    with pytest.raises(ValueError, match="component 'entity_memory'"):
        average_pipelines([trained_nlp, other])
    with pytest.raises(ValueError, match="has components"):
        average_pipelines([trained_nlp, spacy.blank("en")])
    with pytest.raises(ValueError, match="at least one"):
        average_pipelines([])


def test_average_checkpoints_command(trained_nlp, tmp_path):
    a = _save(trained_nlp, tmp_path / "a")
    b = _save(_perturbed_copy(trained_nlp, tmp_path / "x", 4.0), tmp_path / "b")
    output = tmp_path / "runs" / "avg" / "model-best"  # folders that do not exist yet
    result = CliRunner().invoke(app, ["average-checkpoints", str(output), str(a), str(b)])
    assert result.exit_code == 0, result.output
    averaged = spacy.load(output)
    for original, after in zip(_thinc_weights(trained_nlp), _thinc_weights(averaged)):
        numpy.testing.assert_allclose(after, original + 2.0, rtol=1e-6, atol=1e-6)


def _save(nlp, path):
    nlp.to_disk(path)
    return path
