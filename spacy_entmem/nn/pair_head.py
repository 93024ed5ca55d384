"""A small classifier over fixed feature rows: the mean probability of an ensemble of one-hidden-layer MLPs on
standardised inputs, each trained with Adam on binary cross-entropy and stopped early on a held-out tenth."""
from dataclasses import dataclass
from typing import List, Tuple

import numpy
import torch
from torch import nn


class PairHead(nn.Module):
    """P(row is a true pair) = mean over ``n_models`` MLPs of σ(MLP((x − mean) / std))."""

    def __init__(self, input_width: int, hidden_width: int = 64, n_models: int = 5):
        super().__init__()
        self.register_buffer("mean", torch.zeros(input_width))
        self.register_buffer("std", torch.ones(input_width))
        self.models = nn.ModuleList(
            nn.Sequential(nn.Linear(input_width, hidden_width), nn.ReLU(), nn.Linear(hidden_width, 1))
            for _ in range(n_models))

    @property
    def input_width(self) -> int:
        return self.mean.shape[0]

    def logits(self, X: torch.Tensor) -> torch.Tensor:
        """(n_models, rows) logits."""
        Z = (X - self.mean) / self.std
        return torch.stack([model(Z).squeeze(-1) for model in self.models])

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.logits(X)).mean(0)

    def predict(self, X: numpy.ndarray) -> numpy.ndarray:
        """Probabilities of the rows of a (rows, input_width) array."""
        X = numpy.asarray(X, dtype="float32")
        if X.ndim != 2 or X.shape[1] != self.input_width:
            raise ValueError(f"[spacy-entmem] the pair head takes rows of {self.input_width} features, got an "
                             f"array of shape {X.shape}")
        with torch.no_grad():
            return self(torch.from_numpy(X)).numpy()


@dataclass
class HeadTraining:
    """How ``fit_pair_head`` trains (defaults: the settings chosen on GAP validation)."""
    hidden_width: int = 64
    n_models: int = 5
    weight_decay: float = 0.1
    learn_rate: float = 1e-3
    batch_size: int = 200
    max_epochs: int = 200
    patience: int = 10
    held_out: float = 0.1
    seed: int = 0


def fit_pair_head(X: numpy.ndarray, y: numpy.ndarray, settings: HeadTraining = HeadTraining()
                  ) -> Tuple[PairHead, List[float]]:
    """Train a PairHead on rows X (n, F) with 0/1 labels y; each member on its own random split, kept at its
    lowest held-out loss. Returns the head and each member's best held-out loss."""
    X, y = numpy.asarray(X, dtype="float32"), numpy.asarray(y, dtype="float32")
    if X.ndim != 2 or y.shape != (X.shape[0],) or len(X) < 10:
        raise ValueError(f"[spacy-entmem] the pair head needs rows (n ≥ 10, F) and n labels; got {X.shape} and "
                         f"{y.shape}")
    if not numpy.isin(y, (0.0, 1.0)).all() or y.min() == y.max():
        raise ValueError("[spacy-entmem] the pair head's labels must be 0 and 1, both present")
    torch.manual_seed(settings.seed)
    head = PairHead(X.shape[1], settings.hidden_width, settings.n_models)
    head.mean.copy_(torch.from_numpy(X.mean(0)))
    head.std.copy_(torch.from_numpy(X.std(0) + 1e-6))
    rng = numpy.random.default_rng(settings.seed)
    losses = [_fit_member(model, head, X, y, rng, settings) for model in head.models]
    head.eval()
    return head, losses


def _fit_member(model: nn.Module, head: PairHead, X: numpy.ndarray, y: numpy.ndarray, rng: numpy.random.Generator,
                settings: HeadTraining) -> float:
    order = rng.permutation(len(X))
    n_held = max(1, int(len(X) * settings.held_out))
    held, train = order[:n_held], order[n_held:]
    Z = (torch.from_numpy(X) - head.mean) / head.std
    target = torch.from_numpy(y)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learn_rate, weight_decay=settings.weight_decay)
    loss_fn = nn.BCEWithLogitsLoss()
    best, best_state, waited = float("inf"), None, 0
    for _ in range(settings.max_epochs):
        model.train()
        for batch in numpy.array_split(rng.permutation(train), max(1, len(train) // settings.batch_size)):
            optimizer.zero_grad()
            loss_fn(model(Z[batch]).squeeze(-1), target[batch]).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            held_loss = float(loss_fn(model(Z[held]).squeeze(-1), target[held]))
        if held_loss < best - 1e-4:
            best, best_state, waited = held_loss, {k: v.clone() for k, v in model.state_dict().items()}, 0
        else:
            waited += 1
            if waited >= settings.patience:
                break
    model.load_state_dict(best_state)
    return best
