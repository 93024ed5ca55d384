"""The learnt eviction policy: Belady's oracle on gold clusters, a softmax over cells trained on it, and the memory
evicting the cell it scores highest."""
import json

import numpy
import pytest

from spacy_entmem.nn.memory.mention_memory import EVICTION_FEATURES, CellState
from spacy_entmem.training.eviction import (
    NEVER, _next, load_weights, oracle_agreement, train_policy,
)

RANK = EVICTION_FEATURES.index("recency rank")
ONE = EVICTION_FEATURES.index("one mention")


def test_the_oracle_reads_the_next_gold_mention_of_each_cells_cluster():
    starts = [[0, 10, 50], [5]]
    assert _next(starts, 0, 11) == 50 and _next(starts, 0, 10) == 10  # the candidate itself is a use
    assert _next(starts, 1, 6) == NEVER and _next(starts, None, 0) == NEVER  # done, or no gold cluster


def test_a_policy_learns_to_evict_the_cells_the_oracle_would():
    rng = numpy.random.default_rng(0)
    features = rng.random((400, 5, len(EVICTION_FEATURES)))
    features[..., 0] = 1.0
    features[..., ONE] = rng.random((400, 5)) < 0.3
    features[features[..., ONE].sum(axis=1) == 0, 0, ONE] = 1.0  # each row: a cell of one mention
    targets = features[..., ONE] > 0.5  # the oracle evicts entities mentioned once (never again)
    weights = train_policy(features, targets)
    assert weights[ONE] > 0 and oracle_agreement(features, targets, weights) > 0.95
    assert oracle_agreement(features, targets, None) < 0.7  # least recently used does not know


def test_the_memory_evicts_the_cell_a_policy_scores_highest():
    state = CellState(1, 3)
    state.entity[0] = [0, 1, 2]
    state.count[0] = [9, 1, 4]
    state.usage[0] = [0.1, 0.9, 0.5]
    assert state.least_used().tolist() == [0]
    weights = numpy.zeros(len(EVICTION_FEATURES))
    weights[ONE] = 5.0
    state.eviction_weights = weights
    assert state.least_used().tolist() == [1]  # the singleton goes, not the least recently used


def test_a_policy_of_other_features_is_refused(tmp_path):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"features": ["bias"], "weights": [0.0]}))
    with pytest.raises(ValueError, match="trained on other features"):
        load_weights(path)
    with pytest.raises(ValueError, match="cannot read the eviction policy"):
        load_weights(tmp_path / "missing.json")
    assert load_weights("packaged").shape == (len(EVICTION_FEATURES),)
