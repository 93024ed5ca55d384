import math

import pytest
import torch

from spacy_entmem.research.corelm_experiment import results_table, text_log_probs
from spacy_entmem.nn.lm.base_lm import load_base_lm
from spacy_entmem.nn.lm.corelm import EntityGatedLM, base_states, read_entities_of

TEXT = "Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie. They married."


def test_cached_states_score_like_reading_the_document(tiny_lm_dir):
    """The experiment reads the frozen base's states from a cache; the scores must be the component's."""
    base, tokenizer = load_base_lm(tiny_lm_dir)
    torch.manual_seed(0)
    lm = EntityGatedLM(base, tokenizer.bos_token_id, n_heads=4, dropout=0.0, window=12, stride=5).eval()
    with torch.no_grad():
        for norm in (lm.gating.attention_norm, lm.gating.ffn_norm):
            norm.weight.normal_()
    ids = torch.tensor(tokenizer(TEXT, add_special_tokens=False)["input_ids"])
    entities = torch.zeros_like(ids)
    entities[0:3] = 1
    entities[10:12] = 1
    with torch.no_grad():
        blocks = [b for _, _, b in base_states(base, ids, tokenizer.bos_token_id, 12, 5)]
        cached, n_argmax = text_log_probs(lm, {"ids": ids, "blocks": blocks}, entities)
        direct = lm.read_document(ids, read_entities_of(entities))
        assert torch.allclose(cached, direct, atol=1e-5)
        tail, _ = text_log_probs(lm, {"ids": ids, "blocks": blocks}, entities, scored_from=len(ids) - 3)
    assert torch.allclose(tail, direct[-3:], atol=1e-5)
    assert 0 <= n_argmax <= len(ids)


def test_the_table_has_a_row_per_system_and_the_papers_rows():
    records = [
        {"system": "base", "entities": "none", "corpus": "test", "word_perplexity": 80.0},
        {"system": "base", "entities": "none", "corpus": "lambada", "lambada_perplexity": 30.0, "lambada_accuracy": 0.4},
        {"system": "corelm", "entities": "gold", "corpus": "test", "word_perplexity": 70.5},
    ]
    table = results_table(records).splitlines()
    assert table[2] == "| base LM zero-shot | 80.00 |  | 30.00 / 40.00 % |"
    assert table[3] == "| + entity gating, gold clusters | 70.50 |  |  |"
    assert any("46.97" in line for line in table)
