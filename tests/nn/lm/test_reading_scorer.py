import pytest
import torch

from spacy_entmem.nn.lm.base_lm import gguf_cache_dir, load_base_lm
from spacy_entmem.nn.lm.reading_scorer import ReadingScorer


@pytest.fixture(scope="module")
def scorer(tiny_lm_dir):
    return ReadingScorer(*load_base_lm(tiny_lm_dir))


def test_each_reading_scores_the_shared_continuation_alone(scorer):
    prefixes = ["Marie Curie was born in Warsaw. Marie", "Marie Curie was born in Warsaw. Pierre Curie"]
    batched = scorer.continuation_log_probs(prefixes, " moved to Paris.")
    alone = [scorer.continuation_log_probs([prefix], " moved to Paris.")[0] for prefix in prefixes]
    assert batched == pytest.approx(alone, abs=1e-4)  # padding changes nothing
    assert all(score < 0 for score in batched)


def test_partial_scoring_is_the_sum_of_the_continuation_tokens_log_probs(scorer):
    model, tokenizer = scorer.model, scorer.tokenizer
    prefix, continuation = "Alan Turing worked at Bletchley Park. He", " was a cryptanalyst."
    ids = tokenizer(prefix + continuation, add_special_tokens=False, return_offsets_mapping=True)
    first = next(i for i, (start, _) in enumerate(ids["offset_mapping"]) if start >= len(prefix))
    with torch.no_grad():
        log_probs = torch.log_softmax(model(torch.tensor([ids["input_ids"]])).logits[0], -1)
    expected = sum(log_probs[i - 1, ids["input_ids"][i]].item() for i in range(first, len(ids["input_ids"])))
    assert scorer.continuation_log_probs([prefix], continuation)[0] == pytest.approx(expected, abs=1e-4)


def test_no_readings_and_an_empty_continuation(scorer):
    assert scorer.continuation_log_probs([], " anything") == []
    with pytest.raises(ValueError, match="needs a continuation"):
        scorer.continuation_log_probs(["The nurse"], "  ")


def test_gguf_cache_dir_is_keyed_by_the_file_and_can_be_turned_off(tmp_path, monkeypatch):
    (tmp_path / "m.gguf").write_bytes(b"x")
    monkeypatch.setenv("ENTMEM_CACHE", str(tmp_path / "cache"))
    first = gguf_cache_dir(str(tmp_path), "m.gguf")
    assert first is not None and first.parent == tmp_path / "cache" and first.name.startswith("m-")
    (tmp_path / "m.gguf").write_bytes(b"xy")
    assert gguf_cache_dir(str(tmp_path), "m.gguf") != first  # a changed file is converted again
    assert gguf_cache_dir(str(tmp_path), "") is None
    monkeypatch.setenv("ENTMEM_CACHE", "")
    assert gguf_cache_dir(str(tmp_path), "m.gguf") is None
