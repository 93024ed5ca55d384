"""The pronoun resolver's classifier: an ensemble of small MLPs over standardised feature rows."""
import numpy
import pytest
import torch

from spacy_entmem.nn.pair_head import HeadTraining, PairHead, fit_pair_head

FAST = HeadTraining(n_models=2, max_epochs=60, patience=5, learn_rate=1e-2, batch_size=50)


def _rows(n=400, seed=0):
    rng = numpy.random.default_rng(seed)
    X = (rng.normal(size=(n, 5)) * [1, 10, 1, 1, 1] + [0, 50, 0, 0, 0]).astype("float32")
    y = (X[:, 0] + 0.1 * (X[:, 1] - 50) > 0).astype("float32")
    return X, y


def test_fit_learns_a_separable_rule_on_unscaled_inputs():
    X, y = _rows()
    head, losses = fit_pair_head(X, y, FAST)
    assert len(head.models) == 2 and len(losses) == 2 and all(loss < 0.3 for loss in losses)
    X_new, y_new = _rows(200, seed=1)
    accuracy = ((head.predict(X_new) >= 0.5) == y_new).mean()
    assert accuracy > 0.9
    # inputs are standardised with the training rows' statistics
    numpy.testing.assert_allclose(head.mean.numpy(), X.mean(0), rtol=1e-5)


def test_probabilities_are_the_members_mean():
    X, y = _rows()
    head, _ = fit_pair_head(X, y, FAST)
    with torch.no_grad():
        members = torch.sigmoid(head.logits(torch.from_numpy(X[:7])))
    assert members.shape == (2, 7)
    numpy.testing.assert_allclose(head.predict(X[:7]), members.mean(0).numpy(), rtol=1e-6)


def test_the_same_seed_trains_the_same_head():
    X, y = _rows()
    first, _ = fit_pair_head(X, y, FAST)
    second, _ = fit_pair_head(X, y, FAST)
    numpy.testing.assert_array_equal(first.predict(X), second.predict(X))


def test_bad_rows_and_labels_are_refused():
    X, y = _rows()
    with pytest.raises(ValueError, match="rows"):
        fit_pair_head(X[:5], y[:5])
    with pytest.raises(ValueError, match="labels"):
        fit_pair_head(X, numpy.ones_like(y))
    with pytest.raises(ValueError, match="labels"):
        fit_pair_head(X, y * 2)
    with pytest.raises(ValueError, match="takes rows of 5 features"):
        PairHead(5).predict(numpy.zeros((3, 4)))
