import pytest
import spacy

from spacy_entmem.training.assembly import replace_component, same_weights


def finder_pipeline(seed: int):
    """A blank pipeline with a tok2vec and a span finder listening to it, initialised with ``seed``."""
    spacy.util.fix_random_seed(seed)
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    model = {"@architectures": "spacy.SpanFinder.v1",
             "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 96, "upstream": "tok2vec"},
             "scorer": {"@layers": "spacy.LinearLogistic.v1", "nO": 2}}
    nlp.add_pipe("entmem_span_finder", name="span_finder", config={"max_length": 5, "model": model})
    nlp.initialize()
    return nlp


def test_a_component_is_replaced_in_place_and_listens_to_the_pipelines_encoder():
    nlp = finder_pipeline(0)
    source = finder_pipeline(0)
    source.get_pipe("span_finder").cfg["threshold"] = 0.25
    replace_component(nlp, source, "span_finder")
    assert nlp.pipe_names == ["tok2vec", "span_finder"]
    assert nlp.get_pipe("span_finder").cfg["threshold"] == 0.25
    assert nlp.get_pipe("tok2vec").listening_components == ["span_finder"]
    doc = nlp("Alan Turing studied mathematics.")
    assert "mention_candidates" in doc.spans


def test_an_encoder_with_other_weights_is_refused():
    nlp, source = finder_pipeline(0), finder_pipeline(1)
    assert not same_weights(nlp.get_pipe("tok2vec").model, source.get_pipe("tok2vec").model)
    with pytest.raises(ValueError, match="trained over another 'tok2vec'"):
        replace_component(nlp, source, "span_finder")
    assert nlp.pipe_names == ["tok2vec", "span_finder"]  # unchanged


def test_an_encoder_off_by_float_rounding_counts_as_the_same():
    """An average of checkpoints whose encoder was frozen differs from it in the last bits only."""
    nlp, source = finder_pipeline(0), finder_pipeline(0)
    model = source.get_pipe("tok2vec").model
    node = next(n for n in model.walk() if n.has_param("W"))
    W = node.get_param("W")
    node.set_param("W", (W + W + W) / 3 + 1e-7)
    assert same_weights(nlp.get_pipe("tok2vec").model, model)
    node.set_param("W", W + 1e-4)
    assert not same_weights(nlp.get_pipe("tok2vec").model, model)
    with pytest.raises(ValueError, match="trained over another 'tok2vec'"):
        replace_component(nlp, source, "span_finder")


def test_an_encoder_whose_weights_have_another_shape_is_refused_by_name():
    """A parameter of another shape (an encoder of another width) is a different encoder: the clear error, not
    numpy's broadcasting error, nor a match where the shapes happen to broadcast."""
    nlp, source = finder_pipeline(0), finder_pipeline(0)
    model = source.get_pipe("tok2vec").model
    node = next(n for n in model.walk() if n.has_param("W"))
    W = node.get_param("W")
    node.set_param("W", W[:-1])
    assert not same_weights(nlp.get_pipe("tok2vec").model, model)
    node.set_param("W", W[None])  # (1, ...) broadcasts against the pipeline's W
    assert not same_weights(nlp.get_pipe("tok2vec").model, model)
    with pytest.raises(ValueError, match="trained over another 'tok2vec'"):
        replace_component(nlp, source, "span_finder")


def test_a_missing_component_is_named():
    nlp, source = finder_pipeline(0), finder_pipeline(0)
    with pytest.raises(ValueError, match="no component 'mentions'"):
        replace_component(nlp, source, "mentions")
