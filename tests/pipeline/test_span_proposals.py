import numpy
import pytest
import spacy
from spacy.pipeline.span_finder import SpanFinder
from spacy.training import Example

from spacy_entmem.linguistics.switches import switched_off


def _finder(nlp, **config):
    return nlp.add_pipe("entmem_span_finder", config=config)


def test_same_spans_as_spacy_span_finder_in_linear_time():
    nlp = spacy.blank("en")
    finder = _finder(nlp, threshold=0.5, max_length=4, max_per_token=100.0)
    doc = nlp.make_doc(" ".join(f"w{i}" for i in range(60)))
    scores = numpy.random.default_rng(0).random((60, 2)).astype("float32")
    finder.set_annotations([doc], scores)
    ours = [(s.start, s.end) for s in doc.spans["mention_candidates"]]
    reference = nlp.make_doc(doc.text)
    SpanFinder.set_annotations(finder, [reference], scores)
    assert ours == [(s.start, s.end) for s in reference.spans["mention_candidates"]]
    assert ours and all(1 <= e - s <= 4 for s, e in ours)


def test_candidates_are_capped_per_token_keeping_the_best():
    nlp = spacy.blank("en")
    finder = _finder(nlp, threshold=0.0, max_length=3, max_per_token=0.5)
    doc = nlp.make_doc(" ".join(f"w{i}" for i in range(10)))
    scores = numpy.full((10, 2), 0.1, dtype="float32")
    scores[2, 0] = scores[3, 1] = 0.9  # the best span is [2, 4)
    finder.set_annotations([doc], scores)
    group = doc.spans["mention_candidates"]
    assert len(group) == 5
    assert (2, 4) in [(s.start, s.end) for s in group]
    assert max(group.attrs["scores"]) == pytest.approx(0.9)


def test_docs_without_gold_mentions_give_no_boundary_loss():
    nlp = spacy.blank("en")
    finder = _finder(nlp, max_length=5)
    gold = nlp.make_doc("Anna saw Bob")
    gold.spans["mention_candidates"] = [gold[0:1]]
    unknown = nlp.make_doc("He left")
    examples = [Example(nlp.make_doc(gold.text), gold), Example(nlp.make_doc(unknown.text), unknown)]
    truths, masks = finder._get_aligned_truth_scores(examples, finder.model.ops)
    assert masks[:3].sum() == 6 and masks[3:].sum() == 0
    assert truths[0].tolist() == [1.0, 1.0]


def test_invalid_settings_are_refused():
    with pytest.raises(ValueError, match="max_length must be set"):
        _finder(spacy.blank("en"), max_length=None)
    with pytest.raises(ValueError, match="max_per_token must be > 0"):
        _finder(spacy.blank("en"), max_per_token=0)


def test_candidates_never_cross_a_sentence_end_or_a_line_break():
    nlp = spacy.blank("en")
    finder = _finder(nlp, threshold=0.0, max_length=6, max_per_token=100.0)
    doc = nlp.make_doc("Mr. Darcy came . He\n\nsaw Jane")
    scores = numpy.ones((len(doc), 2), dtype="float32")  # every start and end proposed
    finder.set_annotations([doc], scores)
    spans = [(s.start, s.end) for s in doc.spans["mention_candidates"]]
    texts = {doc[s:e].text for s, e in spans}
    assert "Mr. Darcy" in texts and "He" in texts and "saw Jane" in texts
    assert all("\n" not in doc[s:e].text for s, e in spans)
    assert not any(s <= 3 < e - 1 for s, e in spans)  # nothing runs on past "."
    # with parsed sentences the doc's own boundaries count
    sentenced = nlp.make_doc("Anna saw Bob he left")
    sentenced[3].is_sent_start = True
    for token in sentenced:
        if token.i != 3:
            token.is_sent_start = token.i == 0
    finder.set_annotations([sentenced], numpy.ones((5, 2), dtype="float32"))
    assert all(e <= 3 or s >= 3 for s, e in ((x.start, x.end) for x in sentenced.spans["mention_candidates"]))


def test_segment_ids_split_at_sentence_ends_and_line_breaks():
    from spacy_entmem.pipeline.span_proposals import mention_segments

    nlp = spacy.blank("en")
    doc = nlp.make_doc("Anna came . She\n\nsaw Bob !  Yes")
    #        Anna came .  She \n\n saw Bob !  ' '  Yes
    assert mention_segments(doc).tolist() == [0, 0, 0, 1, -1, 2, 2, 2, -1, 4]
    assert mention_segments(nlp.make_doc("")).tolist() == [] and mention_segments(nlp.make_doc("Hi")).tolist() == [0]
    sentenced = nlp.make_doc("Anna saw Bob . he left")  # a doc's own boundaries replace the punctuation rule
    for token in sentenced:
        token.is_sent_start = token.i in (0, 2)
    assert mention_segments(sentenced).tolist() == [0, 0, 1, 1, 1, 1]


def test_capitalised_runs_end_at_their_last_word():
    from spacy_entmem.pipeline.span_proposals import capitalised_run_ends

    titled = numpy.array([True, True, False, True, True, True, False, True])
    assert capitalised_run_ends(titled).tolist() == [1, 1, 2, 5, 5, 5, 6, 7]
    assert capitalised_run_ends(numpy.zeros(0, dtype=bool)).tolist() == []


def test_personal_pronouns_are_always_candidates_unless_switched_off():
    nlp = spacy.blank("en")
    finder = _finder(nlp, threshold=0.5, max_length=4)
    doc = nlp.make_doc("She said that he and Anna saw them")
    scores = numpy.zeros((len(doc), 2), dtype="float32")
    scores[5, 0] = scores[5, 1] = 0.9  # "Anna"
    finder.set_annotations([doc], scores)
    group = doc.spans["mention_candidates"]
    assert [s.text for s in group] == ["She", "he", "Anna", "them"]
    assert len(group.attrs["scores"]) == 4 and group.attrs["scores"][2] == pytest.approx(0.9)
    # with several proposals each span keeps its own min(start, end) score
    scores[0, 0], scores[0, 1] = 0.2, 0.3  # "She" now has boundary scores of its own
    scores[1, 0] = scores[3, 1] = 0.8  # "said that he" (1, 4), alongside "Anna"
    scores[2, 1] = 0.6  # "said that" (1, 3)
    finder.set_annotations([doc], scores)
    group = doc.spans["mention_candidates"]
    expected = [min(scores[s.start, 0], scores[s.end - 1, 1]) for s in group]
    assert [s.text for s in group] == ["She", "said that", "said that he", "he", "Anna", "them"]
    assert group.attrs["scores"] == pytest.approx(expected, abs=1e-4)
    quiet = _finder(spacy.blank("en"), threshold=0.5, max_length=4, propose_pronouns=False)
    quiet.set_annotations([doc], scores)
    assert [s.text for s in doc.spans["mention_candidates"]] == ["said that", "said that he", "Anna"]


def test_the_name_that_signs_a_letter_is_always_a_candidate_unless_switched_off():
    nlp = spacy.blank("en")
    finder = _finder(nlp, threshold=0.5, max_length=4)
    doc = nlp.make_doc("Hi Priya,\n\nI read it.\n\nBest,\nDaniel Roe\n")
    scores = numpy.zeros((len(doc), 2), dtype="float32")
    finder.set_annotations([doc], scores)
    assert [s.text for s in doc.spans["mention_candidates"]] == ["I", "it", "Daniel Roe"]
    unsigned = _finder(spacy.blank("en"), threshold=0.5, max_length=4, grammar_switches={"signature": False})
    unsigned.set_annotations([doc], scores)
    assert [s.text for s in doc.spans["mention_candidates"]] == ["I", "it"]
    not_a_letter = nlp.make_doc("I read it.\n\nBest,\nDaniel")  # no greeting opens it
    finder.set_annotations([not_a_letter], numpy.zeros((len(not_a_letter), 2), dtype="float32"))
    assert [s.text for s in not_a_letter.spans["mention_candidates"]] == ["I", "it"]


def test_every_candidate_keeps_its_own_score_when_pronouns_are_added():
    nlp = spacy.blank("en")
    finder = _finder(nlp, threshold=0.5, max_length=4, max_per_token=100.0)
    doc = nlp.make_doc(" ".join("he" if i % 7 == 0 else f"w{i}" for i in range(80)))
    scores = numpy.random.default_rng(0).random((80, 2)).astype("float32")
    finder.set_annotations([doc], scores)
    group = doc.spans["mention_candidates"]
    assert sum(s.text == "he" for s in group) == 12  # every pronoun, proposed or not
    expected = [min(scores[s.start, 0], scores[s.end - 1, 1]) for s in group]
    assert group.attrs["scores"] == pytest.approx(expected, abs=1e-4)


def test_candidate_pairs_equal_brute_force_pairing():
    """The vectorised pairing gives every (start, end) within the length bounds and one segment, in order."""
    import numpy

    from spacy_entmem.pipeline.span_proposals import candidate_pairs

    rng = numpy.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(0, 60))
        segment = numpy.cumsum(rng.random(n) < 0.15)
        segment[rng.random(n) < 0.05] = -1
        starts = numpy.flatnonzero(rng.random(n) < 0.4)
        ends = numpy.flatnonzero(rng.random(n) < 0.4)
        shortest, longest = int(rng.integers(1, 3)), [None, 4, 8][int(rng.integers(0, 3))]
        expected = [(s, e) for s in starts for e in ends
                    if e - s + 1 >= shortest and (longest is None or e - s + 1 <= longest)
                    and segment[s] == segment[e] >= 0]
        assert [tuple(p) for p in candidate_pairs(starts, ends, segment, shortest, longest).tolist()] == expected


def test_scorer_in_row_chunks_gives_the_same_scores_and_candidates(monkeypatch):
    """entmem_span_finder runs its per-token scorer over bounded row chunks: the scores of one pass up to
    float rounding (numpy's BLAS may round a product's rows differently with the number of rows) and the same
    candidates."""
    from pathlib import Path

    import numpy

    import spacy_entmem
    from spacy_entmem import span_proposals

    nlp = spacy_entmem.load_default()
    samples = sorted((Path(spacy_entmem.__file__).parent / "samples").glob("*.txt"))
    text = " ".join(p.read_text(encoding="utf8") for p in samples) * 3
    finder = nlp.get_pipe("span_finder")

    def proposals():
        docs = list(nlp.get_pipe("tok2vec").pipe([nlp.make_doc(text), nlp.make_doc("Hi"), nlp.make_doc("")]))
        scores = finder.predict(docs)
        finder.set_annotations(docs, scores)
        return scores, [[(s.start, s.end) for s in doc.spans[finder.cfg["spans_key"]]] for doc in docs]

    whole, whole_spans = proposals()
    monkeypatch.setattr(span_proposals, "SCORER_ROWS", 97)
    chunked, chunked_spans = proposals()
    assert len(whole) > 97 * 5 and numpy.allclose(chunked, whole, rtol=0, atol=1e-6)
    assert chunked_spans == whole_spans and len(whole_spans[0]) > 50


def test_name_ends_pair_a_predicted_start_with_the_end_of_its_capitalised_run():
    from spacy_entmem.pipeline.span_proposals import mention_segments, name_run_pairs

    nlp = spacy.blank("en")
    doc = nlp.make_doc("Alan Turing studied at King 's College . Joan Clarke met Alan Turing")
    scores = numpy.zeros((len(doc), 2), dtype="float32")
    for start in (0, 4, 8, 11):  # Alan, King, Joan, Alan
        scores[start, 0] = 0.9
    scores[1, 1] = 0.45  # "Turing" just below the threshold, as the shipped model scores it
    scores[9, 1] = 0.9   # "Clarke" predicted: "Joan Clarke" comes from the model
    plain = _finder(nlp, threshold=0.5, max_length=20, max_per_token=100.0)
    plain.set_annotations([doc], scores)
    assert [s.text for s in doc.spans["mention_candidates"]] == ["Joan Clarke"]
    names = _finder(spacy.blank("en"), threshold=0.5, max_length=20, max_per_token=100.0, propose_name_ends=True)
    names.set_annotations([doc], scores)
    # runs of capitalised words from predicted starts; "King" is followed by "'s": no run; the "." splits runs
    assert [s.text for s in doc.spans["mention_candidates"]] == ["Alan Turing", "Joan Clarke", "Alan Turing"]
    assert name_run_pairs(doc, numpy.array([2]), mention_segments(doc)).shape == (0, 2)  # "studied": lowercase
    short = _finder(spacy.blank("en"), threshold=0.5, max_length=1, max_per_token=100.0, propose_name_ends=True)
    short.set_annotations([doc], scores)
    assert all(len(s) == 1 for s in doc.spans["mention_candidates"])  # max_length bounds the runs too


def test_spans_bounded_by_a_personal_pronoun_are_dropped_when_asked():
    from spacy_entmem.pipeline.span_proposals import pronoun_bounded

    nlp = spacy.blank("en")
    doc = nlp.make_doc("In 1936 he published his paper on the US economy with Isabel and I")
    scores = numpy.zeros((len(doc), 2), dtype="float32")
    for start in (1, 2, 4, 8, 11):  # 1936, he, his, US, Isabel
        scores[start, 0] = 0.9
    for end in (2, 5, 9, 13):  # he, paper, economy, I
        scores[end, 1] = 0.9
    plain = _finder(nlp, threshold=0.5, max_length=20, max_per_token=100.0)
    plain.set_annotations([doc], scores)
    proposed = [s.text for s in doc.spans["mention_candidates"]]
    assert {"1936 he", "he published his paper", "Isabel and I"} <= set(proposed)
    dropping = _finder(spacy.blank("en"), threshold=0.5, max_length=20, max_per_token=100.0,
                       drop_pronoun_bounded=True)
    dropping.set_annotations([doc], scores)
    kept = [s.text for s in doc.spans["mention_candidates"]]
    # "he ..." and "... he" go; the pronoun alone, possessives ("his paper"), "US" and "... and I" stay
    assert kept == [s for s in proposed if not (s.startswith("he ") or s.endswith(" he"))]
    assert {"he", "his paper", "US economy", "Isabel and I", "I"} <= set(kept)
    assert len(kept) < len(proposed)
    group = doc.spans["mention_candidates"]
    assert group.attrs["scores"] == pytest.approx(
        [min(scores[s.start, 0], scores[s.end - 1, 1]) for s in group], abs=1e-4)
    assert pronoun_bounded(doc, numpy.zeros((0, 2), dtype="int64")).shape == (0,)
    assert pronoun_bounded(doc, numpy.array([[2, 2], [2, 5], [1, 2], [8, 9]])).tolist() == [False, True, True, False]
    # a possessive determiner ends no noun phrase: "showed her his", "the cause of its"; "his" alone and "her"
    # (an object: "the man who saw her") stay
    doc = nlp.make_doc("Babbage showed her his engine , the cause of its fame and the man who saw her")
    pairs = numpy.array([[0, 3], [2, 3], [3, 3], [6, 9], [12, 16], [2, 2], [3, 4]])
    assert pronoun_bounded(doc, pairs).tolist() == [True, True, False, True, False, False, False]
    # nor with the subject of a clause it opens: "Tuesday that Tim Cook", "the war which England"; a name after
    # a span-initial "that" ("that Englishman") or a capitalised word inside a name stays
    doc = nlp.make_doc("Apple said on Tuesday that Tim Cook stays ; the war which England fought ; that Englishman")
    pairs = numpy.array([[3, 6], [2, 6], [9, 12], [4, 6], [15, 16], [5, 6], [0, 0]])
    assert pronoun_bounded(doc, pairs).tolist() == [True, True, True, False, False, False, False]
    # "you" ends no noun phrase either ("promised Margaret you would"); "you" alone stays
    doc = nlp.make_doc("You promised Margaret you would come")
    assert pronoun_bounded(doc, numpy.array([[2, 3], [3, 3], [0, 0]])).tolist() == [True, False, False]


def test_a_name_followed_by_a_verb_is_cut_back_to_the_name_when_asked():
    from spacy_entmem.pipeline.span_proposals import cut_name_clauses

    nlp = spacy.blank("en")
    doc = nlp.make_doc("Alan Turing studied mathematics and Joan Clarke was there with New York bar owners")
    scores = numpy.zeros((len(doc), 2), dtype="float32")
    for start in (0, 5, 10):  # Alan, Joan, New
        scores[start, 0] = 0.9
    for end in (3, 8, 13):  # mathematics, there, owners
        scores[end, 1] = 0.9
    plain = _finder(nlp, threshold=0.5, max_length=20, max_per_token=100.0)
    plain.set_annotations([doc], scores)
    proposed = [s.text for s in doc.spans["mention_candidates"]]
    assert "Alan Turing studied mathematics" in proposed and "Alan Turing" not in proposed
    cutting = _finder(spacy.blank("en"), threshold=0.5, max_length=20, max_per_token=100.0, cut_name_clauses=True)
    cutting.set_annotations([doc], scores)
    kept = [s.text for s in doc.spans["mention_candidates"]]
    # "studied" (-ed) and "was" are verbs: cut back to the names; "New York bar owners" is a compound noun
    assert kept == ["Alan Turing", "Joan Clarke", "New York bar owners"]
    group = doc.spans["mention_candidates"]
    assert group.attrs["scores"] == pytest.approx(
        [min(scores[s.start, 0], scores[s.end - 1, 1]) for s in group], abs=1e-4)
    # one capitalised word is not a run (a sentence start: "Then studied"), and a duplicate of a kept span goes
    pairs = numpy.array([[0, 1], [0, 3], [1, 3], [5, 8]])
    assert cut_name_clauses(doc, pairs).tolist() == [[0, 1], [1, 3], [5, 6]]
    assert cut_name_clauses(doc, numpy.zeros((0, 2), dtype="int64")).shape == (0, 2)
    # past one adverb ("later", a lowercase -ly word), not past a noun or two adverbs
    doc = nlp.make_doc("Alan Turing later worked there , Joan Clarke quickly said so , Alan Turing Institute staff "
                       "said so , Joan Clarke very quickly said so")
    pairs = numpy.array([[0, 3], [6, 9], [12, 17], [19, 23]])
    assert cut_name_clauses(doc, pairs).tolist() == [[0, 1], [6, 7], [12, 17], [19, 23]]


def test_an_untrained_finder_says_to_train_or_load_one():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("entmem_span_finder")
    with pytest.raises(ValueError, match="the span finder 'entmem_span_finder' has not been trained: train it"):
        nlp("Anna met Bob.")


def test_an_uncovered_noun_for_people_gets_its_noun_phrase_proposed_when_asked(monkeypatch):
    from spacy.tokens import Doc

    from spacy_entmem.pipeline import span_proposals
    from spacy_entmem.pipeline.span_proposals import mention_segments, noun_phrase_pairs

    nlp = spacy.blank("en")
    words = ["A", "landlord", "called", "the", "old", "waiter", "and", "the", "coach", "driver", "."]
    tags = ["DT", "NN", "VBD", "DT", "JJ", "NN", "CC", "DT", "NN", "NN", "."]
    heads = [1, 2, 2, 5, 5, 2, 5, 9, 9, 5, 2]
    deps = ["det", "nsubj", "ROOT", "det", "amod", "dobj", "cc", "det", "compound", "conj", "punct"]
    doc = Doc(nlp.vocab, words=words, tags=tags, heads=heads, deps=deps)
    nouns = {"landlord", "waiter", "coach", "driver"}
    segment = mention_segments(doc)
    none = numpy.zeros((0, 2), dtype="int64")
    # nothing proposed: each noun for people gets its left subtree; "coach" modifies "driver" (compound)
    found = noun_phrase_pairs(doc, none, segment, 20, nouns)
    assert [doc[s: e + 1].text for s, e in found.tolist()] == ["A landlord", "the old waiter",
                                                               "the coach driver"]
    # a noun some candidate covers is left to the finder ("the old waiter and the coach driver" covers both)
    found = noun_phrase_pairs(doc, numpy.array([[3, 9]]), segment, 20, nouns)
    assert [doc[s: e + 1].text for s, e in found.tolist()] == ["A landlord"]
    assert noun_phrase_pairs(doc, none, segment, 2, nouns).tolist() == [[0, 1]]  # shorter than max_length
    plural = Doc(nlp.vocab, words=["Two", "landlords", "called", "."], tags=["CD", "NNS", "VBD", "."],
                 heads=[1, 2, 2, 2], deps=["nummod", "nsubj", "ROOT", "punct"])
    assert noun_phrase_pairs(plural, none, mention_segments(plural), 20, nouns).tolist() == [[0, 1]]  # "landlord"
    # a whole clause the finder proposed (its root a verb: "called") covers nothing, unless switched off
    clause = numpy.array([[0, 9]])
    assert [doc[s: e + 1].text for s, e in noun_phrase_pairs(doc, clause, segment, 20, nouns).tolist()] == [
        "A landlord", "the old waiter", "the coach driver"]
    with switched_off("clauses_cover_nothing"):
        assert noun_phrase_pairs(doc, clause, segment, 20, nouns).shape == (0, 2)
    # a candidate that runs past its root's subtree ("coach driver ." rooted at "driver", no constituent) covers
    # nothing, unless switched off
    fragment = numpy.array([[8, 10]])
    assert [doc[s: e + 1].text for s, e in noun_phrase_pairs(doc, fragment, segment, 20, nouns).tolist()] == [
        "A landlord", "the old waiter", "the coach driver"]
    with switched_off("fragments_cover_nothing"):
        assert [doc[s: e + 1].text for s, e in noun_phrase_pairs(doc, fragment, segment, 20, nouns).tolist()] == [
            "A landlord", "the old waiter"]
    # right dependents but conjuncts belong to the phrase; one too long for max_length falls back to the left
    man = Doc(nlp.vocab, words=["He", "met", "a", "man", "of", "great", "wealth", "."],
              tags=["PRP", "VBD", "DT", "NN", "IN", "JJ", "NN", "."], heads=[1, 1, 3, 1, 3, 6, 4, 1],
              deps=["nsubj", "ROOT", "det", "dobj", "prep", "amod", "pobj", "punct"])
    assert noun_phrase_pairs(man, none, mention_segments(man), 20, {"man"}).tolist() == [[2, 6]]
    assert noun_phrase_pairs(man, none, mention_segments(man), 3, {"man"}).tolist() == [[2, 3]]
    assert noun_phrase_pairs(nlp.make_doc("A landlord called ."), none, segment[:4], 20, nouns).shape == (0, 2)
    # nouns None: every common noun, people or not (a scheme that marks every entity)
    barn = Doc(nlp.vocab, words=["The", "storm", "hit", "the", "old", "barn", "."],
               tags=["DT", "NN", "VBD", "DT", "JJ", "NN", "."], heads=[1, 2, 2, 5, 5, 2, 2],
               deps=["det", "nsubj", "ROOT", "det", "amod", "dobj", "punct"])
    assert noun_phrase_pairs(barn, none, mention_segments(barn), 20).tolist() == [[0, 1], [3, 5]]
    assert noun_phrase_pairs(barn, none, mention_segments(barn), 20, nouns).shape == (0, 2)
    # the finder adds them only when asked, and keeps its other candidates and their order
    scores = numpy.zeros((len(doc), 2), dtype="float32")
    scores[3, 0] = scores[5, 1] = 0.9  # the model proposes "the old waiter"
    for asked, expected in ((False, ["the old waiter"]), (True, ["A landlord", "the old waiter", "the coach driver"])):
        finder = _finder(spacy.blank("en"), threshold=0.5, max_length=20, max_per_token=100.0,
                         propose_pronouns=False, propose_person_nouns=asked)
        finder.set_annotations([doc], scores)
        assert [s.text for s in doc.spans["mention_candidates"]] == expected
    finder = _finder(spacy.blank("en"), threshold=0.5, max_length=20, max_per_token=100.0, propose_pronouns=False,
                     propose_noun_phrases=True)
    finder.set_annotations([barn], numpy.zeros((len(barn), 2), dtype="float32"))
    assert [s.text for s in barn.spans["mention_candidates"]] == ["The storm", "the old barn"]


def test_a_noun_for_people_the_tagger_mistook_is_still_proposed():
    from spacy.tokens import Doc

    from spacy_entmem.pipeline.span_proposals import mention_segments, noun_phrase_pairs

    nlp = spacy.blank("en")
    # The dispatcher poured himself a drink .  (en_core_web_sm tags the rare noun "dispatcher" CD)
    doc = Doc(nlp.vocab, words="The dispatcher poured himself a drink .".split(),
              tags=["DT", "CD", "VBD", "PRP", "DT", "NN", "."], heads=[1, 2, 2, 2, 5, 2, 2],
              deps=["det", "nsubj", "ROOT", "dative", "det", "dobj", "punct"])
    none = numpy.zeros((0, 2), dtype="int64")
    found = noun_phrase_pairs(doc, none, mention_segments(doc), 20, {"dispatcher"})
    assert [doc[s: e + 1].text for s, e in found.tolist()] == ["The dispatcher"]
    # not without a determiner of its own, nor off the list, nor when every noun is wanted (no list)
    bare = Doc(nlp.vocab, words="Dispatcher poured a drink .".split(), tags=["CD", "VBD", "DT", "NN", "."],
               heads=[1, 1, 3, 1, 1], deps=["nsubj", "ROOT", "det", "dobj", "punct"])
    assert noun_phrase_pairs(bare, none, mention_segments(bare), 20, {"dispatcher"}).shape == (0, 2)
    assert noun_phrase_pairs(doc, none, mention_segments(doc), 20, {"waiter"}).tolist() == []
    assert [doc[s: e + 1].text for s, e in noun_phrase_pairs(doc, none, mention_segments(doc), 20).tolist()] == [
        "a drink"]


def test_word_bits_read_each_word_once_and_keep_their_flags(monkeypatch):
    from spacy_entmem.pipeline import span_proposals as sp

    nlp = spacy.blank("en")
    doc = nlp.make_doc("He met US staff and Alan later worked .\nHe")
    bits = sp.word_bits(doc)
    assert bits[0] & sp.PRONOUN_BIT and bits[0] & sp.PRONOUN_START_BIT and bits[0] & sp.PRONOUN_END_BIT
    assert bits[2] & sp.PRONOUN_BIT and not bits[2] & sp.PRONOUN_START_BIT  # "US": all capitals, no pronoun bound
    assert bits[5] & sp.TITLED_BIT and bits[6] & sp.ADVERB_WORD_BIT and bits[7] & sp.VERB_WORD_BIT
    assert bits[8] & sp.SENTENCE_FINAL_BIT and bits[9] & sp.SPLIT_BIT and bits[10] == bits[0]
    # a full table starts again (its bound: the limit or one doc's words) and gives the same flags
    first, second = nlp.make_doc("Mary met him . ' Jane ' said Tom"), nlp.make_doc("She left , said Ann")
    expected = sp.word_bits(first).tolist(), sp.word_bits(second).tolist()
    monkeypatch.setattr(sp, "_word_bits_by_orth", {})
    monkeypatch.setattr(sp, "WORD_BITS_LIMIT", 3)
    assert sp.word_bits(first).tolist() == expected[0] and len(sp._word_bits_by_orth) == 8
    assert sp.word_bits(second).tolist() == expected[1] and len(sp._word_bits_by_orth) == 5
    assert sp.word_bits(nlp.make_doc("")).shape == (0,)


def test_unique_pairs_match_numpy_unique_rows():
    from spacy_entmem.pipeline.span_proposals import unique_pairs

    pairs = numpy.random.default_rng(1).integers(0, 30, size=(200, 2))
    assert unique_pairs(pairs, 30).tolist() == numpy.unique(pairs, axis=0).tolist()
    assert unique_pairs(numpy.zeros((0, 2), dtype="int64"), 5).shape == (0, 2)
