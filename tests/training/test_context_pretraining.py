import json

import pytest
import spacy
import torch
from spacy.tokens import DocBin, Span
from typer.testing import CliRunner

from spacy_entmem.cli import app
from spacy_entmem.nn.lm.context_cloze import load_context_encoder
from spacy_entmem.nn.lm.dntm import BOS, ENTITY, EOS
from spacy_entmem.pipeline.lm_inputs import LMVocabulary
from spacy_entmem.training.context_pretraining import (MAX_SENTENCE, ClozeCorpus, build_cloze_corpus,
                                                       pretrain_context_encoder, raw_texts)

from ..conftest import DATA

WIKITEXT = """ = Ada = 

 Ada wrote a note . She wrote it in 1843 . 

 = = Life = = 

 Ada was born in London . 
 = Bob = 

 Bob wrote nothing . 
"""


def nlp():
    pipeline = spacy.blank("en")
    pipeline.add_pipe("sentencizer")
    return pipeline


def gold(pipeline):
    doc = pipeline.make_doc("Ada wrote a note . She wrote it in London .")
    for i, token in enumerate(doc):
        token.is_sent_start = i in (0, 5)
    doc.spans["coref_clusters_1"] = [Span(doc, 0, 1), Span(doc, 5, 6)]
    return doc


def test_the_cloze_corpus_has_the_lm_docs_as_the_lm_reads_them_and_the_raw_texts(tmp_path):
    pipeline = nlp()
    (tmp_path / "wiki.txt").write_text(WIKITEXT, encoding="utf8")
    train = [gold(pipeline)]
    vocab = LMVocabulary.count(train, 12)
    corpus = build_cloze_corpus(train, [tmp_path / "wiki.txt"], pipeline, vocab)
    first, second = corpus.sentences[:2]
    assert first.tolist() == [BOS, ENTITY, vocab("wrote"), vocab("a"), vocab("note"), vocab("."), EOS]
    assert second[1] == ENTITY  # "She": the same chain
    assert list(corpus.tokens) == ["LM training docs", "wiki.txt"]
    assert corpus.tokens["wiki.txt"] == len("Ada wrote a note . She wrote it in 1843 . Ada was born in London . "
                                            "Bob wrote nothing .".split())
    assert all(s[0] == BOS and s[-1] == EOS for s in corpus.sentences[2:])
    counts = corpus.counts(len(vocab))
    assert counts[:4] == [0, 0, 0, 0] and counts[vocab("wrote")] == 5


def test_raw_texts_read_gap_and_refuse_other_files(tmp_path):
    texts = list(raw_texts(DATA / "gap" / "gap-validation.tsv"))
    rows = len((DATA / "gap" / "gap-validation.tsv").read_text(encoding="utf8").splitlines()) - 1  # 454 in GAP
    assert len(texts) == rows and texts[0].startswith("He admitted making four")
    (tmp_path / "notes.md").write_text("x")
    with pytest.raises(ValueError, match="notes.md: extra cloze text must be a GAP .tsv or a WikiText .txt"):
        list(raw_texts(tmp_path / "notes.md"))


def test_pretraining_keeps_the_epoch_with_the_lowest_held_out_loss():
    sentences = [torch.randint(4, 30, (n,)).numpy() for n in range(3, 40)] * 4
    for s in sentences:
        s[0], s[-1] = BOS, EOS
    corpus = ClozeCorpus()
    for s in sentences:
        corpus.add("random", s)
    records = []
    model = pretrain_context_encoder(corpus, 30, embed_width=8, context_width=4, epochs=3, held_out=0.25,
                                     learn_rate=0.01, log=records.append)
    assert [r["epoch"] for r in records] == [1, 2, 3]
    best = min(records, key=lambda r: r["held_out_loss"])
    assert records[-1]["best_epoch"] == best["epoch"] and not model.training
    # nothing held out: the last epoch is kept
    records = []
    pretrain_context_encoder(corpus, 30, embed_width=8, context_width=4, epochs=2, held_out=0.0,
                             log=records.append)
    assert [(r["held_out_loss"], r["best_epoch"]) for r in records] == [(None, 1), (None, 2)]
    with pytest.raises(ValueError, match="no sentence of more than one word"):
        pretrain_context_encoder(ClozeCorpus(), 30)


def test_long_sentences_are_cut_and_one_word_sentences_dropped():
    corpus = ClozeCorpus()
    corpus.add("x", torch.full((MAX_SENTENCE + 20,), 5).numpy())
    corpus.add("x", torch.tensor([BOS, EOS]).numpy())
    assert len(corpus.sentences) == 1 and len(corpus.sentences[0]) == MAX_SENTENCE


def test_the_command_writes_an_encoder_that_a_dntm_config_loads(tmp_path):
    pipeline = nlp()
    DocBin(docs=[gold(pipeline)] * 3, store_user_data=True).to_disk(tmp_path / "train.spacy")
    (tmp_path / "wiki.txt").write_text(WIKITEXT, encoding="utf8")
    out = tmp_path / "encoder.pt"
    result = CliRunner().invoke(app, ["dntm-pretrain-context", str(tmp_path / "train.spacy"), str(out),
                                      "--text", str(tmp_path / "wiki.txt"), "--vocab-size", "20",
                                      "--embed-width", "8", "--context-width", "4", "--epochs", "2",
                                      "--log", str(tmp_path / "log.jsonl")])
    assert result.exit_code == 0, result.output
    saved = load_context_encoder(out)
    assert saved["words"][:2] == ["wrote", "."] and saved["info"]["epochs"] == 2
    assert saved["state"]["context_embedding.weight"].shape == (len(saved["words"]) + 4, 8)
    assert [json.loads(line)["epoch"] for line in (tmp_path / "log.jsonl").read_text().splitlines()] == [1, 2]
