import math

import pytest
import torch

from spacy_entmem.nn.lm.entitynlm import EntityBatch, EntityNLM, joint_loss

# BOS w w [e0 e0] w [e1] EOS BOS [e0] w EOS  |  BOS [e0] w w EOS (padding)
WORDS = torch.tensor([[1, 5, 6, 7, 8, 9, 10, 2, 1, 11, 12, 2], [1, 5, 6, 7, 2, 0, 0, 0, 0, 0, 0, 0]])
ENTITY = torch.tensor([[-1, -1, -1, 0, 0, -1, 1, -1, -1, 0, -1, -1], [-1, 0, -1, -1, -1] + [-1] * 7])
REMAINING = torch.tensor([[0, 0, 0, 2, 1, 0, 1, 0, 0, 1, 0, 0], [0, 1, 0, 0, 0] + [0] * 7])
MASK = torch.tensor([[1] * 12, [1] * 5 + [0] * 7])


def model(**kwargs):
    torch.manual_seed(0)
    return EntityNLM(50, n_slots=5, embed_width=8, hidden_width=8, max_length=4, dropout=0.0, cutoffs=(20,),
                     **kwargs).eval()


def batch(words=WORDS, entity=ENTITY, remaining=REMAINING, mask=MASK):
    return EntityBatch(words, entity, remaining, mask)


def test_the_mention_variables_sit_where_the_generative_story_puts_them():
    b = batch()
    assert b.decisions()[0].tolist() == [0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1]  # not inside a mention, not BOS
    assert b.starts()[0].tolist() == [0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0]
    out = model()(b)
    assert (out.r[0] != 0).tolist() == b.decisions()[0].tolist()
    # E is certain at the first mention (only "new" is possible), so its log p is 0 there
    assert (out.e[0] != 0).tolist() == [t in (6, 9) for t in range(12)]
    assert (out.length[0] != 0).tolist() == b.starts()[0].tolist()
    assert (out.joint[1, 5:] == 0).all()  # padding


def test_entity_distribution_covers_the_entities_so_far_and_one_new():
    out = model()(batch())
    first, second, third = (out.entity_logp[0, t].exp() for t in (3, 6, 9))
    assert first.tolist() == pytest.approx([1, 0, 0, 0, 0])  # nothing seen: only "new" (index 0)
    assert second[:2].sum().item() == pytest.approx(1) and (second[2:] == 0).all()
    assert third[:3].sum().item() == pytest.approx(1) and (third[3:] == 0).all()
    assert out.e[0, 6].item() == pytest.approx(second[1].log().item())  # entity 1 is new there


def test_word_distribution_is_normalised():
    lm = model()
    b = batch()
    out = lm(b)
    # sum over every word of p(word at position 5): replace the word and rescore
    total = 0.0
    for w in range(50):
        if w == 1:  # a BOS there would make position 5 a sentence start, not a prediction
            continue
        words = WORDS.clone()
        words[0, 5] = w
        total += lm(batch(words=words)).word[0, 5].exp().item()
    assert 0.9 < total <= 1.0 + 1e-5
    assert out.word[0, 5].exp().item() < 1


def test_left_to_right_and_batch_independent():
    lm = model()
    out = lm(batch())
    words = WORDS.clone()
    words[0, 10] = 30
    changed = lm(batch(words=words))
    assert torch.allclose(out.joint[0, :10], changed.joint[0, :10])
    assert not torch.isclose(out.joint[0, 10], changed.joint[0, 10])
    alone = lm(EntityBatch(WORDS[1:, :5], ENTITY[1:, :5], REMAINING[1:, :5], MASK[1:, :5]))
    assert torch.allclose(alone.joint[0], out.joint[1, :5], atol=1e-6)


def test_entity_vectors_stay_on_the_unit_sphere_and_carry_information():
    lm = model()
    out = lm(batch())
    # the word after a mention depends on the entity's updated vector: change which entity it was
    entity = ENTITY.clone()
    entity[0, 9] = 1  # the second sentence's mention is entity 1, not 0
    other = lm(batch(entity=entity))
    assert torch.allclose(out.joint[0, :9], other.joint[0, :9])
    assert not torch.isclose(out.word[0, 10], other.word[0, 10])
    assert lm.new_entities(2).norm(dim=-1).allclose(torch.ones(2, 5))


def test_training_lowers_the_joint_loss():
    lm = model()
    lm.train()
    optimizer = torch.optim.Adam(lm.parameters(), lr=0.05)
    b = batch()
    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        loss = joint_loss(lm(b), b)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    assert lm.distance.weight.grad.abs().sum() > 0 and lm.delta.weight.grad.abs().sum() > 0


def test_discriminative_variant_conditions_on_the_word_itself():
    lm = model(discriminative=True)
    out = lm(batch())
    assert (out.word == 0).all()
    words = WORDS.clone()
    words[0, 3] = 40  # the mention's own word changes its R / E / L probabilities
    changed = lm(batch(words=words))
    assert not torch.isclose(out.r[0, 3], changed.r[0, 3])
    assert torch.allclose(out.r[0, :3], changed.r[0, :3])


def test_empty_batch():
    out = model()(EntityBatch(*(torch.zeros(1, 0, dtype=torch.long) for _ in range(4))))
    assert out.joint.shape == (1, 0)


def test_tokens_before_eos():
    from spacy_entmem.nn.lm.entitynlm import tokens_before_eos

    assert tokens_before_eos(torch.tensor([[0, 0, 1, 0, 1, 0]]).bool()).tolist() == [[2, 1, 0, 1, 0, 1]]


# every annotation of "<bos> a b <eos>": (entity, remaining) of a and b
ANNOTATIONS = [((-1, -1), (0, 0)), ((0, -1), (1, 0)), ((-1, 0), (0, 1)), ((0, 0), (1, 1)), ((0, 1), (1, 1)),
               ((0, 0), (2, 1))]


def annotated(n, entity_ab, remaining_ab):
    words = torch.tensor([[1, 7, 9, 2]]).expand(n, -1)
    entity = torch.tensor([[-1, *entity_ab, -1]]).expand(n, -1)
    remaining = torch.tensor([[0, *remaining_ab, 0]]).expand(n, -1)
    return EntityBatch(words, entity, remaining, torch.ones_like(words))


def test_importance_sampling_recovers_the_exact_marginal_of_a_short_sentence():
    from spacy_entmem.nn.lm.entitynlm import sample_annotations

    generative, proposal = model(), model(discriminative=True)
    exact = sum(generative(annotated(1, e, r)).joint.sum().exp().item() for e, r in ANNOTATIONS)
    n = 4000
    batch = annotated(n, (-1, -1), (0, 0))
    entity, remaining, log_q = sample_annotations(proposal, batch, torch.Generator().manual_seed(0))
    seen = {}
    for e, r, q in zip(entity[:, 1:3].tolist(), remaining[:, 1:3].tolist(), log_q.tolist()):
        assert (tuple(e), tuple(r)) in ANNOTATIONS  # nothing at <bos> / <eos>, no mention past the sentence
        assert seen.setdefault((tuple(e), tuple(r)), q) == pytest.approx(q)  # log q is a function of the sample
    assert len(seen) == len(ANNOTATIONS)
    assert sum(math.exp(q) for q in seen.values()) == pytest.approx(1.0, abs=1e-5)  # Q is normalised
    log_p = generative(EntityBatch(batch.words, entity, remaining, batch.mask)).joint.sum(1)
    estimate = torch.exp(log_p - log_q).mean().item()
    assert estimate == pytest.approx(exact, rel=0.05)
    with pytest.raises(ValueError, match="needs the discriminative EntityNLM"):
        sample_annotations(generative, batch)


def every_annotation(words, n_slots=5, max_length=4):
    """All (entity, remaining) rows the generative story can give ``words`` (one row, BOS 1, EOS 2)."""
    T = len(words)
    to_eos = [next(j for j in range(t, T) if words[j] == 2) - t if 2 in words[t:] else T - t for t in range(T)]

    def extend(t, n_seen, entity, remaining):
        if t == T:
            yield entity, remaining
            return
        yield from extend(t + 1, n_seen, entity + [-1], remaining + [0])
        if t == 0 or words[t] in (1, 2):
            return
        for e in range(min(n_seen, n_slots - 1) + 1):
            for length in range(1, min(max_length, to_eos[t]) + 1):
                yield from extend(t + length, n_seen + (e == n_seen), entity + [e] * length,
                                  remaining + list(range(length, 0, -1)))

    return list(extend(0, 0, [], []))


TWO_SENTENCES = [1, 7, 9, 2, 1, 11, 12, 2]


def exact_log_marginal(generative, words):
    rows = every_annotation(words)
    n, row = len(rows), torch.tensor([words])
    batch = EntityBatch(row.expand(n, -1), torch.tensor([e for e, _ in rows]), torch.tensor([r for _, r in rows]),
                        torch.ones(n, len(words), dtype=torch.long))
    return torch.logsumexp(generative(batch).joint.sum(1), 0).item(), n


def one_document(words):
    row = torch.tensor([words])
    return EntityBatch(row, torch.full_like(row, -1), torch.zeros_like(row), torch.ones_like(row))


def smc(generative, proposal, words, n, generator, resample_below):
    from spacy_entmem.nn.lm.entitynlm import smc_log_marginals

    return smc_log_marginals(generative, proposal, one_document(words), n, generator, resample_below)[0]


def test_the_joint_scored_token_by_token_is_the_forward_pass():
    from spacy_entmem.nn.lm.entitynlm import JointScorer, sample_annotations

    generative, proposal = model(), model(discriminative=True)
    words = torch.tensor(WORDS.tolist() * 4)  # two documents (one padded), four samples each
    mask = torch.tensor(MASK.tolist() * 4)
    entity, remaining, _ = sample_annotations(proposal, EntityBatch(words, words, words, mask),
                                              torch.Generator().manual_seed(0))
    assert (entity >= 0).any() and (remaining > 1).any()  # mentions, some longer than a token
    expected = generative(EntityBatch(words, entity, remaining, mask)).joint
    scorer = JointScorer(generative, words, mask)
    stepped = torch.stack([scorer.step(t, entity[:, t], remaining[:, t]) for t in range(words.shape[1])], 1)
    assert torch.allclose(stepped, expected, atol=1e-5)
    with pytest.raises(ValueError, match="has no word distribution"):
        JointScorer(proposal, words, mask)


def test_sequential_monte_carlo_recovers_the_exact_marginal_of_two_sentences():
    generative, proposal = model(), model(discriminative=True)
    exact, n_annotations = exact_log_marginal(generative, TWO_SENTENCES)
    # the first sentence's six annotations leave 0 (one of them), 1 (four) or 2 (one) entities seen; a second
    # two-word sentence then has 6, 12 or 20 annotations
    assert n_annotations == 1 * 6 + 4 * 12 + 1 * 20
    result = smc(generative, proposal, TWO_SENTENCES, 20000, torch.Generator().manual_seed(0), 1.0)
    assert result["resamples"] == 1  # at the first sentence end; never after the last
    assert result["log_likelihood"] == pytest.approx(exact, abs=0.02)
    # unbiased in p(X) (not in log p(X)) even with very few particles: the mean over runs of the estimate
    generator = torch.Generator().manual_seed(1)
    estimates = [math.exp(smc(generative, proposal, TWO_SENTENCES, 3, generator, 1.0)["log_likelihood"])
                 for _ in range(500)]
    # one estimate's relative spread is about 0.75: the mean of 500 is within 0.15 by four standard errors
    assert sum(estimates) / len(estimates) == pytest.approx(math.exp(exact), rel=0.15)


def test_documents_of_a_batch_are_resampled_apart_and_without_resampling_it_is_importance_sampling():
    from spacy_entmem.nn.lm.entitynlm import sample_annotations, smc_log_marginals

    generative, proposal = model(), model(discriminative=True)
    one_sentence = [1, 7, 9, 2, 0, 0, 0, 0]
    documents = EntityBatch(torch.tensor([TWO_SENTENCES, one_sentence]), torch.full((2, 8), -1),
                            torch.zeros(2, 8, dtype=torch.long), torch.tensor([[1] * 8, [1] * 4 + [0] * 4]))
    both = smc_log_marginals(generative, proposal, documents, 20000, torch.Generator().manual_seed(0), 1.0)
    assert [d["resamples"] for d in both] == [1, 0]
    assert both[0]["log_likelihood"] == pytest.approx(exact_log_marginal(generative, TWO_SENTENCES)[0], abs=0.02)
    assert both[1]["log_likelihood"] == pytest.approx(exact_log_marginal(generative, one_sentence[:4])[0], abs=0.02)
    # no resampling: the same draws as importance sampling, weighed once
    plain = smc(generative, proposal, TWO_SENTENCES, 50, torch.Generator().manual_seed(3), 0.0)
    document = one_document(TWO_SENTENCES)
    particles = EntityBatch(*(v.expand(50, -1) for v in (document.words, document.entity, document.remaining,
                                                         document.mask)))
    entity, remaining, log_q = sample_annotations(proposal, particles, torch.Generator().manual_seed(3))
    log_p = generative(EntityBatch(particles.words, entity, remaining, particles.mask)).joint.sum(1)
    assert plain["resamples"] == 0
    assert plain["log_likelihood"] == pytest.approx((torch.logsumexp(log_p - log_q, 0) - math.log(50)).item(), abs=1e-4)
    empty = smc_log_marginals(generative, proposal, EntityBatch(*(torch.zeros(1, 0, dtype=torch.long),) * 4), 4)
    assert empty[0]["log_likelihood"] == 0.0


def test_the_locally_optimal_proposal_recovers_the_exact_marginal_with_few_particles():
    from spacy_entmem.nn.lm.entitynlm import smc_log_marginals

    generative, proposal = model(), model(discriminative=True)
    exact, _ = exact_log_marginal(generative, TWO_SENTENCES)
    result = smc_log_marginals(generative, None, one_document(TWO_SENTENCES), 2000, torch.Generator().manual_seed(0),
                               0.5, every_token=True)[0]
    assert result["log_likelihood"] == pytest.approx(exact, abs=0.005)  # measured 0.0006
    # unbiased in p(X), and far less spread than with the discriminative proposal (measured 0.19 against 0.73)
    spreads = {}
    for name, q in (("locally optimal", None), ("discriminative", proposal)):
        generator = torch.Generator().manual_seed(1)
        estimates = torch.tensor([math.exp(smc_log_marginals(generative, q, one_document(TWO_SENTENCES), 3, generator,
                                                             1.0, every_token=True)[0]["log_likelihood"])
                                  for _ in range(300)]) / math.exp(exact)
        spreads[name] = float(estimates.std())
        if q is None:
            assert float(estimates.mean()) == pytest.approx(1.0, abs=0.06)  # 4 standard errors
    assert spreads["locally optimal"] < 0.5 * spreads["discriminative"]


def test_the_locally_optimal_sampler_draws_annotations_the_model_scores_as_its_forward_pass():
    from spacy_entmem.nn.lm.entitynlm import LocallyOptimalSampler

    generative = model()
    words, mask = torch.tensor(WORDS.tolist() * 3), torch.tensor(MASK.tolist() * 3)
    sampler = LocallyOptimalSampler(generative, EntityBatch(words, words, words, mask), torch.Generator().manual_seed(0),
                                    copies=4)
    joints, weights = [], []
    for t in range(words.shape[1]):
        step_q = sampler.step(t)
        joints.append(sampler.joint)
        weights.append(sampler.joint - step_q)
    entity, remaining = sampler.entity, sampler.remaining
    assert (entity >= 0).any() and (entity < 0).any()
    rows = sampler.scorer.document
    expected = generative(EntityBatch(words[rows], entity, remaining, mask[rows])).joint
    assert torch.allclose(torch.stack(joints, 1), expected, atol=1e-5)
    assert torch.allclose(sampler.log_q, (torch.stack(joints, 1) - torch.stack(weights, 1)).sum(1), atol=1e-4)
    # at the first predicted token every draw of a document shares its history: the weight p/q is the same
    first = torch.stack(weights, 1)[:, 1].view(-1, 4)
    assert torch.allclose(first, first[:, :1].expand(-1, 4), atol=1e-5)
    # no mention at a sentence end, none past it
    assert not ((words[rows] == 2) & (entity >= 0)).any()
