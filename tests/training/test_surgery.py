"""Weight surgery: a trained MentionMemory.v1 gains the animacy pair feature and computes exactly as before."""
import pytest
import spacy
import torch
from spacy.training import Example

from spacy_entmem.models.memory import torch_memory
from spacy_entmem.training.surgery import V2, add_animacy_feature

from ..conftest import train_pipeline
from ..pipeline.test_entity_memory_mention import mention_pipeline
from ..pipeline.test_entity_memory_spans import litbank_piece  # noqa: F401 (fixture)


@pytest.fixture(scope="module")
def trained(litbank_piece):  # noqa: F811
    spacy.util.fix_random_seed(0)
    nlp = mention_pipeline()
    train_pipeline(nlp, [Example(nlp.make_doc(litbank_piece.text), litbank_piece)], steps=3, learn_rate=0.01)
    return nlp


def _memory_log(nlp, text):
    doc = nlp(text)
    return doc._.entity_memory_log["coref"], [(s.start, s.end) for s in doc.spans["coref_mentions"]]


def test_the_extended_memory_computes_as_before_and_survives_a_round_trip(trained, litbank_piece, tmp_path):  # noqa: F811
    text = litbank_piece[:150].text
    before, mentions = _memory_log(trained, text)
    trained.to_disk(tmp_path / "v1")
    extended = add_animacy_feature(spacy.load(tmp_path / "v1"))
    assert extended.config["components"]["entity_memory"]["model"]["@architectures"] == V2
    module = torch_memory(extended.get_pipe("entity_memory").model)
    assert len(module.pair_embeddings) == 12
    after, same_mentions = _memory_log(extended, text)
    assert same_mentions == mentions and (after == before).all()
    extended.to_disk(tmp_path / "v2")
    reloaded = spacy.load(tmp_path / "v2")
    assert (_memory_log(reloaded, text)[0] == before).all()
    # the new feature's block is live: moving it changes the scores
    with torch.no_grad():
        torch_memory(reloaded.get_pipe("entity_memory").model).similarity_mlp.memory_projs[2].weight[:, -4:] += 1.0
    assert not (_memory_log(reloaded, text)[0] == before).all()


def test_only_a_trained_v1_memory_is_extended(trained, tmp_path):
    trained.to_disk(tmp_path / "v1")
    extended = add_animacy_feature(spacy.load(tmp_path / "v1"))
    with pytest.raises(ValueError, match="the animacy feature is added to a trained"):
        add_animacy_feature(extended)
    with pytest.raises(ValueError, match="not trained yet"):
        add_animacy_feature(mention_pipeline())
