import pytest
import torch

from spacy_entmem.nn.memory.span_petra import SpanPetraMemory


def _module(**kwargs):
    torch.manual_seed(0)
    module = SpanPetraMemory(8, hidden_width=12, n_cells=3, mlp_width=10, **kwargs)
    return module.eval()


def test_one_step_per_candidate_with_padding():
    module = _module()
    X = torch.randn(2, 7, 8)
    spans = torch.tensor([[[0, 2], [1, 2], [3, 7]], [[0, 1], [0, 1], [0, 1]]])
    out = module(X, torch.tensor([7, 4]), spans, torch.tensor([3, 1]))
    assert out.entity.shape == (2, 3) and out.overwrite.shape == (2, 3, 3)
    assert out.entity[1, 1:].abs().sum() == 0 and out.coref[1, 1:].abs().sum() == 0
    assert torch.all(out.overwrite.sum(-1) + out.coref.sum(-1) <= out.entity + 1e-6)


def test_a_document_does_not_depend_on_its_batch_neighbours():
    module = _module()
    X = torch.randn(2, 9, 8)
    spans = torch.tensor([[[0, 2], [4, 5], [3, 9]], [[1, 3], [0, 1], [0, 1]]])
    together = module(X, torch.tensor([9, 5]), spans, torch.tensor([3, 1]))
    alone = module(X[:1], torch.tensor([9]), spans[:1], torch.tensor([3]))
    assert torch.allclose(together.coref[0], alone.coref[0], atol=1e-6)
    assert torch.allclose(together.entity[0], alone.entity[0], atol=1e-6)


def test_nested_spans_get_distinct_representations():
    module = _module()
    h = torch.randn(1, 6, 12)
    reps = module.represent_spans(h, torch.tensor([[[0, 4], [2, 4], [2, 3]]]))
    assert not torch.allclose(reps[0, 0], reps[0, 1]) and not torch.allclose(reps[0, 1], reps[0, 2])


def test_span_vectors_far_into_a_long_document_equal_those_of_a_short_one():
    """Chunked, local running sums: a span at the end of 200k tokens gets the vector it gets alone."""
    module = _module()
    T = 200_000
    h = torch.full((1, T, 12), 0.7) + torch.randn(1, T, 12) * 0.01
    starts = torch.arange(0, T - 5, 97)
    spans = torch.stack([starts, starts + 5], dim=-1)[None]
    reps = module.represent_spans(h, spans, chunk=256)
    alone = module.represent_spans(h[:, T - 300:], spans[:, -1:] - (T - 300))
    assert reps.shape == (1, spans.shape[1], 12)
    assert torch.allclose(reps[0, -1], alone[0, 0], atol=1e-6)
    assert torch.allclose(module.represent_spans(h[:, :1000], spans[:, :5], chunk=2),
                          module.represent_spans(h[:, :1000], spans[:, :5]), atol=1e-6)


def test_no_candidates_and_empty_documents():
    module = _module()
    out = module(torch.randn(2, 4, 8), torch.tensor([4, 0]), torch.zeros(2, 0, 2, dtype=torch.long),
                 torch.tensor([0, 0]))
    assert out.entity.shape == (2, 0) and out.coref.shape == (2, 0, 3)


def test_gradients_reach_the_token_vectors():
    module = _module().train()
    X = torch.randn(1, 5, 8, requires_grad=True)
    out = module(X, torch.tensor([5]), torch.tensor([[[0, 2], [3, 5]]]), torch.tensor([2]))
    (out.coref.sum() + out.entity.sum()).backward()
    assert X.grad is not None and X.grad.abs().sum() > 0


def test_chunked_encoding_equals_one_pass():
    from spacy_entmem.nn.memory.petra import encode_left_to_right

    module = _module()
    X = torch.randn(2, 50, 8)
    lengths = torch.tensor([50, 31])
    assert torch.allclose(encode_left_to_right(module.encoder, X, lengths, chunk=7),
                          encode_left_to_right(module.encoder, X, lengths), atol=1e-6)


@pytest.mark.parametrize("chunk", [7, 50, 4096])
def test_inference_encoding_packs_each_chunk_and_gives_the_training_states_with_zero_padding(chunk):
    from spacy_entmem.nn.memory.petra import encode_left_to_right

    module = _module().eval()
    X = torch.randn(4, 50, 8)
    lengths = torch.tensor([50, 31, 0, 6])  # ends inside chunks, at a chunk's edge (chunk 7: none), empty
    recorded = encode_left_to_right(module.encoder, X, lengths, chunk=chunk)  # autograd on: padded, no packing
    with torch.no_grad():
        packed = encode_left_to_right(module.encoder, X, lengths, chunk=chunk)
        alone = [encode_left_to_right(module.encoder, X[b: b + 1, :n], lengths[b: b + 1], chunk=chunk)
                 for b, n in ((0, 50), (1, 31), (3, 6))]
    assert recorded.requires_grad and not packed.requires_grad
    assert torch.allclose(packed, recorded.detach(), atol=1e-6)
    for b, n in ((0, 50), (1, 31), (3, 6)):  # each document as if read alone
        assert torch.allclose(packed[b, :n], alone.pop(0)[0], atol=1e-6)
        assert packed[b, n:].abs().sum() == 0 and packed[b, :n].abs().sum() > 0
    assert packed[2].abs().sum() == 0


def test_inference_encoding_of_a_batch_of_empty_documents_is_zero():
    from spacy_entmem.nn.memory.petra import encode_left_to_right

    module = _module().eval()
    with torch.no_grad():
        out = encode_left_to_right(module.encoder, torch.randn(2, 5, 8), torch.tensor([0, 0]))
    assert out.shape == (2, 5, module.encoder.hidden_size) and out.abs().sum() == 0


def test_new_entity_loss_has_finite_gradients_when_the_entity_mass_vanishes():
    from spacy_entmem.training.targets import DocSupervision
    from spacy_entmem.nn.losses import new_entity_loss
    from spacy_entmem.nn.memory.outputs import MemoryOutput

    entity = torch.tensor([[1e-9, 0.5]], requires_grad=True)
    overwrite = torch.tensor([[[0.0, 0.0], [0.2, 0.0]]], requires_grad=True)
    coref = torch.tensor([[[1e-9, 0.0], [0.3, 0.0]]], requires_grad=True)
    out = MemoryOutput(entity, overwrite, coref, overwrite.detach(), torch.tensor([2]))
    loss = new_entity_loss(out, [DocSupervision(2, new_entity=[(0, 1.0), (1, 0.0)])])
    loss.backward()
    assert torch.isfinite(loss) and torch.isfinite(overwrite.grad).all() and torch.isfinite(coref.grad).all()
    assert overwrite.grad.abs().max() < 1e4


def test_span_vectors_are_first_last_mean_of_each_documents_own_rows():
    """The gathered rows are each document's own: the span vector equals the formula computed by hand."""
    module = _module()
    h = torch.randn(3, 7, 12)
    spans = torch.tensor([[[0, 2], [1, 5]], [[3, 4], [0, 7]], [[6, 7], [2, 6]]])
    reps = module.represent_spans(h, spans)
    for b in range(3):
        for m, (s, e) in enumerate(spans[b].tolist()):
            width = module.width_embedding(torch.tensor(e - s))
            expected = module.span_projection(torch.cat([h[b, s], h[b, e - 1], h[b, s:e].mean(0), width]))
            assert torch.allclose(reps[b, m], expected, atol=1e-5)
