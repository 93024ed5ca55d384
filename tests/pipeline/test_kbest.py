"""Approximate k-best lists of the shipped pipeline's teacher-forced memory."""
import numpy
import pytest

import spacy_entmem
from spacy_entmem.pipeline.kbest import kbest, suboptimal_choices
from spacy_entmem.pipeline.memory_log import group_clusters

from ..conftest import tiny_pipeline

TEXT = ("Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie. He was a physicist, "
        "and they married in 1895. Their daughter Irène later won a Nobel Prize herself, as her mother had.")


@pytest.fixture(scope="module")
def default_doc():
    nlp = spacy_entmem.load_default()
    return nlp, nlp(TEXT)


def test_suboptimal_choices_come_in_ascending_gap_and_skip_the_chosen_and_impossible():
    scores = numpy.array([[-2.0, -0.5, -1.0, -numpy.inf], [-0.25, -1.5, -0.75, -3.0]])  # (0, 3) cannot be joined
    chosen = numpy.array([1, 0])
    # gaps: (0, 2) and (1, 2) 0.5 (the earlier step first), (1, 1) 1.25, (0, 0) 1.5, (1, 3) 2.75
    assert suboptimal_choices(scores, chosen) == [(0, 2), (1, 2), (1, 1), (0, 0), (1, 3)]


def test_the_first_alternative_is_the_pipelines_output_and_all_differ(default_doc):
    nlp, doc = default_doc
    pipe = nlp.get_pipe("entity_memory")
    alternatives = kbest(pipe, doc, k=12)
    assert 1 < len(alternatives) <= 12 and alternatives[0].forced is None
    shipped = sorted(sorted((s.start, s.end) for s in doc.spans[key]) for key in doc.spans
                     if key.startswith("coref_clusters_"))
    assert sorted(c for c in alternatives[0].clusters if len(c) > 1) == shipped
    mentions = sorted((s.start, s.end) for s in doc.spans["coref_mentions"])
    assert sorted(m for c in alternatives[0].clusters for m in c) == mentions
    assert len({a.key() for a in alternatives}) == len(alternatives)
    assert all(a.memory_score < 0 for a in alternatives)


def test_an_alternative_keeps_every_decision_before_its_forced_step(default_doc):
    nlp, doc = default_doc
    pipe = nlp.get_pipe("entity_memory")
    steps = [tuple(s) for s in pipe.candidates(doc).tolist()]
    best, *others = kbest(pipe, doc, k=12)

    def before(alternative, step):  # the partition of the mentions among the first `step` candidates
        earlier = set(steps[:step])
        return sorted(sorted(m for m in c if m in earlier) for c in alternative.clusters if set(c) & earlier)

    for alternative in others:
        step, action = alternative.forced
        assert before(alternative, step) == before(best, step)
        taken = [m for c in alternative.clusters for m in c]
        assert (steps[step] in taken) == (action != 0)  # IGNORE leaves the candidate out, any other keeps it


def test_kbest_refuses_models_that_do_not_decide_in_the_loop_and_bad_k(default_doc):
    nlp, doc = default_doc
    with pytest.raises(ValueError, match="k must be at least 1"):
        kbest(nlp.get_pipe("entity_memory"), doc, k=0)
    with pytest.raises(ValueError, match="teacher-forced memory"):
        kbest(tiny_pipeline().get_pipe("entity_memory"), doc, k=3)


def test_a_doc_without_candidates_has_only_its_1_best(default_doc):
    nlp, _ = default_doc
    (alternative,) = kbest(nlp.get_pipe("entity_memory"), nlp("Hm."), k=5)
    assert alternative.clusters == group_clusters([]) and alternative.memory_score == 0.0
