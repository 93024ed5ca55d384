import numpy
import spacy
from thinc.api import NumpyOps

import spacy_entmem
from spacy_entmem.batch.outputs import doc_record
from spacy_entmem.pipeline.numpy_blas import set_blis, use_numpy_blas

from ..test_default_pipeline import SAMPLES

CALLBACK = {"@callbacks": "spacy_entmem.numpy_blas.v1"}


def _ops_of(nlp, name):
    return {(type(node.ops), getattr(node.ops, "use_blis", None)) for node in nlp.get_pipe(name).model.walk()}


def _tagger_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("tagger").add_label("NN")
    return nlp


def test_the_callback_switches_blis_layers_to_numpy_and_leaves_other_ops_alone():
    nlp = _tagger_nlp()
    assert _ops_of(nlp, "tagger") == {(NumpyOps, True)}

    class OtherOps(NumpyOps):  # e.g. a platform's own ops: not ours to replace
        pass

    foreign = OtherOps()
    nlp.get_pipe("tok2vec").model.ops = foreign
    assert use_numpy_blas(nlp) is nlp
    assert _ops_of(nlp, "tagger") == {(NumpyOps, False)}
    assert nlp.get_pipe("tok2vec").model.ops is foreign
    assert set_blis(nlp, True) is nlp  # and back
    assert _ops_of(nlp, "tagger") == {(NumpyOps, True)} and nlp.get_pipe("tok2vec").model.ops is foreign


def test_numpy_products_match_blis_up_to_rounding():
    x, y = numpy.random.default_rng(0).normal(size=(2, 50, 40)).astype("f")
    blis, plain = NumpyOps(use_blis=True), NumpyOps(use_blis=False)
    for trans1, trans2 in ((False, False), (True, False), (False, True), (True, True)):
        a, b = (x.T if trans1 else x), (y if trans2 else y.T)  # shapes the flags turn into (50, 40) @ (40, 50)
        expected = blis.gemm(a, b, trans1=trans1, trans2=trans2)
        got = plain.gemm(a, b, trans1=trans1, trans2=trans2)
        assert got.shape == expected.shape == (50, 50)
        assert numpy.allclose(got, expected, atol=1e-4)


def test_a_config_with_the_callback_keeps_it_through_a_save_and_load(tmp_path):
    nlp = _tagger_nlp()
    nlp.initialize()
    nlp.to_disk(tmp_path / "blis")
    with_callback = spacy.load(tmp_path / "blis", config={"nlp": {"after_pipeline_creation": CALLBACK}})
    assert _ops_of(with_callback, "tagger") == {(NumpyOps, False)}
    with_callback.to_disk(tmp_path / "numpy")
    loaded = spacy.load(tmp_path / "numpy")
    assert loaded.config["nlp"]["after_pipeline_creation"] == CALLBACK
    assert _ops_of(loaded, "tagger") == _ops_of(loaded, "tok2vec") == {(NumpyOps, False)}
    assert _ops_of(spacy.load(tmp_path / "blis"), "tagger") == {(NumpyOps, True)}


def test_the_default_pipeline_uses_numpy_blas_with_the_clusters_blis_gives():
    texts = [p.read_text(encoding="utf8") for p in sorted(SAMPLES.glob("*.txt"))]
    numpy_blas = spacy_entmem.load_default()
    blis = spacy_entmem.load_default(config={"nlp": {"after_pipeline_creation": None}})
    for name in ("tok2vec", "tagger", "span_finder"):
        assert _ops_of(numpy_blas, name) == {(NumpyOps, False)}
        assert _ops_of(blis, name) == {(NumpyOps, True)}
    assert [doc_record("d", d) for d in numpy_blas.pipe(texts)] == [doc_record("d", d) for d in blis.pipe(texts)]


def test_the_tok2vec_vectors_agree_with_blis():
    numpy_blas = spacy_entmem.load_default()
    blis = spacy_entmem.load_default(config={"nlp": {"after_pipeline_creation": None}})
    text = "Alan Turing was born in London. He studied at King's College."
    a = numpy_blas.get_pipe("tok2vec").predict([numpy_blas.make_doc(text)])[0]
    b = blis.get_pipe("tok2vec").predict([blis.make_doc(text)])[0]
    assert a.shape == b.shape and numpy.allclose(a, b, atol=1e-4)
