import torch

from spacy_entmem.evaluation.lm_cloze import clozes, mean_quantile
from spacy_entmem.nn.lm.dntm import DynamicEntityLM

from ..nn.lm.test_dntm import DOCS, document


def test_clozes_are_mentions_of_entities_from_earlier_sentences_with_wrong_candidates():
    # DOCS[0]: [5 E0 6 7] [8 E1 9] [E0 10 11 E1]; DOCS[1] has one entity only: no wrong candidate
    assert clozes(DOCS[0], 20) == [(2, 1, 0, [0, 1]), (2, 4, 1, [0, 1])]
    assert clozes(DOCS[0], 1) == [(2, 1, 0, [0, 1])]
    assert clozes(DOCS[1], 20) == []
    same_sentence = document([[("e", 0), 5, ("e", 0)], [("e", 1), 6]])
    assert clozes(same_sentence, 20) == []  # E0's second mention is in its first sentence; E1 is new


def test_mean_quantile_is_a_share_of_wrong_candidates():
    torch.manual_seed(0)
    lm = DynamicEntityLM(40, n_slots=3, embed_width=8, hidden_width=8, context_width=6, dropout=0.0,
                         cutoffs=(20,)).eval()
    result = mean_quantile(lm, DOCS)
    assert result["clozes"] == 2 and result["cloze_mq"] in (0.0, 0.5, 1.0)
    assert mean_quantile(lm, [DOCS[1]]) == {"cloze_mq": None, "clozes": 0}
