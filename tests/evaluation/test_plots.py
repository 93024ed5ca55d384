import numpy

from spacy_entmem.evaluation.plots import active_columns, plot_f1_by_memory_size, plot_memory_log


def test_long_inactive_stretches_become_one_column():
    o = numpy.zeros((10, 2))
    c = numpy.zeros((10, 2))
    o[0, 0] = 0.9
    c[6, 0] = 0.8
    c[8, 1] = 0.5
    # tokens 1-5 inactive (5 > 3): elided; token 7 inactive (1 <= 3): kept; token 9 kept
    assert active_columns(o, c, threshold=0.1, max_inactive=3) == [0, -1, 6, 7, 8, 9]
    assert active_columns(o, c, threshold=0.1, max_inactive=5) == list(range(10))
    assert active_columns(numpy.zeros((0, 2)), numpy.zeros((0, 2)), 0.1, 3) == []


def test_memory_log_image_is_written(trained_nlp, tmp_path):
    doc = trained_nlp("Anna met Bob in Paris. She said he was late, and he agreed with her.")
    rows, columns = plot_memory_log(doc, tmp_path / "log.png", threshold=0.0)
    n_cells = doc._.entity_memory_log["overwrite"].shape[1]
    assert rows == 2 * n_cells and columns == len(doc)
    assert (tmp_path / "log.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_f1_plot_is_written(tmp_path):
    records = [{"model": "petra", "n_cells": n, "seed": s, "validation_f1": 60 + n + s} for n in (2, 4) for s in (0, 1)]
    plot_f1_by_memory_size(records, {"petra": "PeTra", "rr": "Referential Reader"}, tmp_path / "f1.png")
    assert (tmp_path / "f1.png").stat().st_size > 1000


def test_learning_curves_plot_reads_a_training_log(tmp_path):
    import pytest

    from spacy_entmem.evaluation.plots import plot_learning_curves

    scores = lambda f: {"coref_conll_f": f, "coref_lea_f": f / 2, "spans_mention_candidates_r": 0.5}  # noqa: E731
    records = [{"epoch": e, "step": 50 * i, "score": 0.1 * i, "seconds": 10.0 * i, "scores": scores(0.1 * i)}
               for i, e in enumerate([0, 0, 1, 1, 2])]
    out = tmp_path / "curves.png"
    plot_learning_curves(records, out, title="dev")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
    with pytest.raises(ValueError, match="no evaluations"):
        plot_learning_curves([], tmp_path / "empty.png")


def test_perplexity_by_position_has_a_line_per_variant_and_option_set(tmp_path):
    from spacy_entmem.evaluation.plots import plot_lm_by_position

    def result(dynamic, seed_curve, options=""):
        return {"dynamic": dynamic, "merge": "gru_relu", "options": options, "perplexity_by_position": seed_curve}

    lines = plot_lm_by_position([result("none", [10.0, 20.0]), result("none", [12.0, 22.0]),
                                 result("none", [5.0, 6.0], "cloze-pretrained embeddings"),
                                 result("both", [8.0, 9.0], "encoder frozen")], tmp_path / "pos.png")
    assert sorted(lines) == ["both (gru_relu), encoder frozen", "none", "none, cloze-pretrained embeddings"]
    assert lines["none"].tolist() == [11.0, 21.0]  # the mean over seeds
    assert (tmp_path / "pos.png").stat().st_size > 0
