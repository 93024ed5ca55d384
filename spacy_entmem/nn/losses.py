"""Losses over the memory's outputs: weighted BCE on link probabilities, entity terms."""
from typing import List, Sequence, Tuple

import torch
from torch.nn import functional as F

from ..training.targets import DocSupervision
from .memory.outputs import MemoryOutput, log_link_probability

EPS = 1e-6
NEW_ENTITY_SMOOTHING = 1e-3


def _token_pairs(sups: Sequence[DocSupervision]) -> Tuple[List[int], List[int], List[int], List[int]]:
    """Flatten every span pair into token pairs (doc, t1 < t2) with the index of their span pair."""
    docs, firsts, seconds, groups = [], [], [], []
    group = 0
    for b, sup in enumerate(sups):
        for pair in sup.pairs:
            for t1 in range(*pair.first):
                for t2 in range(*pair.second):
                    if t1 == t2:
                        continue
                    docs.append(b)
                    firsts.append(min(t1, t2))
                    seconds.append(max(t1, t2))
                    groups.append(group)
            group += 1
    return docs, firsts, seconds, groups


def link_loss(out: MemoryOutput, sups: Sequence[DocSupervision]) -> torch.Tensor:
    """Mean over the batch's supervised span pairs of weight · BCE(max-over-token-pairs link probability,
    target): the same scale whatever the number of pairs per document."""
    docs, firsts, seconds, groups = _token_pairs(sups)
    targets = [p.target for s in sups for p in s.pairs]
    weights = [p.weight for s in sups for p in s.pairs]
    if not docs:
        return out.entity.sum() * 0.0
    log_p = log_link_probability(
        out, torch.tensor(docs), torch.tensor(firsts), torch.tensor(seconds)
    )
    n_groups = len(targets)
    group_index = torch.tensor(groups)
    best = torch.full((n_groups,), -float("inf"), dtype=log_p.dtype)
    best = best.scatter_reduce(0, group_index, log_p, reduce="amax", include_self=True)
    present = torch.isfinite(best)  # a span pair whose tokens all coincide has no token pair
    prob = torch.clamp(torch.exp(best[present]), EPS, 1 - EPS)
    target = torch.tensor(targets, dtype=prob.dtype)[present]
    weight = torch.tensor(weights, dtype=prob.dtype)[present]
    return F.binary_cross_entropy(prob, target, weight=weight, reduction="sum") / max(int(present.sum()), 1)


def entity_loss(out: MemoryOutput, sups: Sequence[DocSupervision], sparsity_weight: float) -> torch.Tensor:
    """Full supervision: BCE on e_t, mean over the batch's supervised steps. Sparse: λ · e_t, mean over
    the steps outside annotated spans."""
    full, sparse = [], []
    for b, sup in enumerate(sups):
        if sup.entity_targets is not None and sup.n_tokens:
            e = torch.clamp(out.entity[b, : sup.n_tokens], EPS, 1 - EPS)
            target = torch.tensor(sup.entity_targets, dtype=e.dtype)
            full.append(F.binary_cross_entropy(e, target, reduction="none"))
        elif sup.unannotated:
            sparse.append(out.entity[b, torch.tensor(sup.unannotated)])
    total = out.entity.sum() * 0.0
    if full:
        total = total + torch.cat(full).mean()
    if sparse:
        total = total + sparsity_weight * torch.cat(sparse).mean()
    return total


def new_entity_loss(out: MemoryOutput, sups: Sequence[DocSupervision]) -> torch.Tensor:
    """Span mode: BCE of the OVERWRITE share Σ_i o_{t,i} / e_t (a new entity, given a mention) against
    whether gold mention t is its cluster's first, mean over the batch's gold mentions."""
    shares, targets = [], []
    for b, sup in enumerate(sups):
        if not sup.new_entity:
            continue
        steps = torch.tensor([t for t, _ in sup.new_entity])
        targets.append(torch.tensor([y for _, y in sup.new_entity], dtype=out.entity.dtype))
        new = out.overwrite[b, steps].sum(-1)
        old = out.coref[b, steps].sum(-1)
        # smoothed so that a vanishing entity mass gives a bounded gradient, never 0/0 (a NaN in training)
        shares.append((new + NEW_ENTITY_SMOOTHING) / (new + old + 2 * NEW_ENTITY_SMOOTHING))
    if not shares:
        return out.entity.sum() * 0.0
    return F.binary_cross_entropy(torch.cat(shares).clamp(EPS, 1 - EPS), torch.cat(targets))


def language_model_loss(out: MemoryOutput) -> torch.Tensor:
    """Mean negative log-likelihood of the next token over the batch's predicted positions."""
    if out.next_logprob is None:
        return out.entity.sum() * 0.0
    mask = out.next_token_mask()
    return -(out.next_logprob * mask).sum() / mask.sum().clamp(min=1)


def memory_loss(
    out: MemoryOutput, sups: Sequence[DocSupervision], sparsity_weight: float, lm_weight: float = 0.0
) -> Tuple[float, List[torch.Tensor]]:
    """The total loss and its gradients with respect to the output tensors (entity, overwrite, coref,
    usage[, next_logprob]; None where a tensor does not reach the loss)."""
    leaves = out.tensors()
    loss = link_loss(out, sups) + entity_loss(out, sups, sparsity_weight) + new_entity_loss(out, sups)
    if lm_weight:
        loss = loss + lm_weight * language_model_loss(out)
    grads = torch.autograd.grad(loss, leaves, allow_unused=True)
    return float(loss.detach()), list(grads)
