import json

import pytest

from typer.testing import CliRunner

from spacy_entmem.cli import app

from .conftest import GAP

runner = CliRunner()


def flat(result) -> str:
    """The command's output with wasabi's line wrapping undone."""
    return " ".join(result.output.split())


def test_gap_convert_command(tmp_path):
    output = tmp_path / "dev.spacy"
    result = runner.invoke(app, ["gap-convert", str(GAP / "gap-validation.tsv"), str(output)])
    assert result.exit_code == 0, result.output
    rows = len((GAP / "gap-validation.tsv").read_text(encoding="utf8").splitlines()) - 1  # 454 in the corpus
    assert f"{rows} documents, {3 * rows} spans" in result.output
    assert output.exists()


def test_annotate_command_with_a_trained_pipeline(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "pipe")
    text = tmp_path / "a.txt"
    text.write_text("Anna met Bob. She said he was late.", encoding="utf8")
    html = tmp_path / "view.html"
    out = tmp_path / "docs"
    result = runner.invoke(
        app, ["annotate", str(text), "--model", str(tmp_path / "pipe"), "--html", str(html), "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "1 documents annotated" in result.output
    assert html.read_text(encoding="utf8").startswith("<!DOCTYPE html>")
    assert (out / "part-00000.spacy").exists() and (out / "part-00000.ids").read_text() == f"{text}\n"


def test_annotate_corpus_goes_on_past_bad_files_and_resumes(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("Anna met Bob. She said he was late.", encoding="utf8")
    (corpus / "b.txt").write_bytes(b"\x00\x01\x02")
    (corpus / "c.txt").write_text("", encoding="utf8")
    out = tmp_path / "out.jsonl"
    first = runner.invoke(app, ["annotate", str(corpus), "-o", str(out), "--no-progress"])
    assert first.exit_code == 1
    assert "2 documents annotated" in flat(first) and "1 failed" in flat(first)
    assert f"{corpus / 'b.txt'}: binary file (NUL bytes), not text" in flat(first)
    records = [json.loads(line) for line in out.read_text(encoding="utf8").splitlines()]
    assert [r["id"] for r in records] == [str(corpus / "a.txt"), str(corpus / "c.txt")]
    assert records[0]["resolved"] == "Anna met Bob. Anna said Bob was late."
    (corpus / "b.txt").write_text("Cleo ran.", encoding="utf8")
    second = runner.invoke(app, ["annotate", str(corpus), "-o", str(out), "--no-progress"])
    assert second.exit_code == 0, second.output
    assert "1 documents annotated" in flat(second) and "2 already in the output, skipped" in flat(second)
    assert len(out.read_text(encoding="utf8").splitlines()) == 3
    wrong = runner.invoke(app, ["annotate", str(corpus), "-o", str(tmp_path / "x.spacy")])
    assert wrong.exit_code == 1 and "DocBin output is a folder" in flat(wrong)


def test_annotate_reads_jsonl_from_stdin_and_prints_clusters():
    result = runner.invoke(app, ["annotate", "-", "--no-progress"],
                           input='{"id": "s1", "text": "Anna met Bob. She said he was late."}\n')
    assert result.exit_code == 0, result.output
    assert "coref_clusters_1 [Anna]: 'Anna'@0, 'She'@4" in result.output


def test_memory_log_command_writes_image_and_html(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "pipe")
    image, html = tmp_path / "log.png", tmp_path / "clusters.html"
    result = runner.invoke(app, ["memory-log", str(tmp_path / "pipe"), str(image), "--gap-tsv",
                                 str(GAP / "gap-validation.tsv"), "--gap-id", "validation-2", "--html", str(html)])
    assert result.exit_code == 0, result.output
    assert image.read_bytes()[:4] == b"\x89PNG"
    assert "Kathleen Nott" in html.read_text(encoding="utf8")
    missing = runner.invoke(app, ["memory-log", str(tmp_path / "pipe"), str(image), "--gap-tsv",
                                  str(GAP / "gap-validation.tsv"), "--gap-id", "validation-9999"])
    assert missing.exit_code == 1 and "no row with ID 'validation-9999'" in missing.output
    neither = runner.invoke(app, ["memory-log", str(tmp_path / "pipe"), str(image)])
    assert neither.exit_code == 1 and "exactly one of --text-file or --gap-tsv" in neither.output


def test_count_evaluate_command(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "pipe")
    counts = tmp_path / "counts.tsv"
    counts.write_text("ID\tCount\nvalidation-1\t4\nvalidation-2\t3\n", encoding="utf8")
    out = tmp_path / "counts.json"
    result = runner.invoke(app, ["count-evaluate", str(tmp_path / "pipe"), str(GAP / "gap-validation.tsv"),
                                 str(counts), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 docs: α = " in result.output and "of the entity table: " in result.output
    assert json.loads(out.read_text())["n_docs"] == 2


def test_sweep_report_command(tmp_path):
    for name, f1 in [("petra_n2_s0", 61.0), ("rr_n2_s0", 58.0)]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "gap_scores.json").write_text(json.dumps(
            {"threshold": 0.1, "validation": {"f1": f1}, "test": {"f1": f1 + 1}}))
    result = runner.invoke(app, ["sweep-report", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "| PeTra | 62.0 (n=1) |" in (tmp_path / "results.md").read_text()
    assert (tmp_path / "validation_f1.png").exists()


def test_lm_evaluate_and_lm_table(tmp_path):
    """lm-evaluate writes perplexity by group and position; lm-table puts runs in one table with the paper."""
    import json

    from spacy.tokens import DocBin

    from .pipeline.test_entity_lm_scorer import TEXTS, gold_doc, trained

    nlp, _, _ = trained(steps=3)
    nlp.to_disk(tmp_path / "lm")
    DocBin(docs=[gold_doc(nlp, t, c) for t, c in TEXTS]).to_disk(tmp_path / "test.spacy")
    result = runner.invoke(app, ["lm-evaluate", str(tmp_path / "lm"), str(tmp_path / "test.spacy"),
                                 "--output", str(tmp_path / "a.json")])
    assert result.exit_code == 0, result.output
    scores = json.loads((tmp_path / "a.json").read_text())
    assert scores["dynamic"] == "both" and scores["tokens"]["all"] == sum(len(t.split()) + 3 for t, _ in TEXTS)
    assert scores["tokens"]["reappearing"] == 7 and len(scores["perplexity_by_position"]) == 10
    result = runner.invoke(app, ["lm-table", str(tmp_path / "a.json"), "--output", str(tmp_path / "t.md"),
                                 "--plot", str(tmp_path / "p.png")])
    assert result.exit_code == 0, result.output
    table = (tmp_path / "t.md").read_text()
    assert "With dynamic input & output (D)" in table and "60.7 / 34.0 / 106.8 / 67.6, 0.642" in table
    assert 0 <= scores["cloze_mq"] <= 1 and scores["clozes"] == 7
    assert (tmp_path / "p.png").stat().st_size > 1000
    missing = runner.invoke(app, ["lm-evaluate", str(tmp_path / "lm"), str(tmp_path / "nope.spacy"),
                                  "--output", str(tmp_path / "b.json")])
    assert missing.exit_code != 0


def test_lm_evaluate_on_docs_without_chains_says_n_a(tmp_path):
    from spacy.tokens import DocBin

    from .pipeline.test_entity_lm_scorer import trained

    nlp, _, _ = trained(steps=2)
    nlp.to_disk(tmp_path / "lm")
    DocBin(docs=[nlp.make_doc("Zebras graze . Nobody knows why .")]).to_disk(tmp_path / "plain.spacy")
    result = runner.invoke(app, ["lm-evaluate", str(tmp_path / "lm"), str(tmp_path / "plain.spacy"),
                                 "--output", str(tmp_path / "a.json"), "--cloze-per-doc", "0"])
    assert result.exit_code == 0, result.output
    assert "reappearing n/a" in " ".join(result.output.split())


@pytest.mark.corpus  # InScript: no license stated, so no excerpt ships with the tests
def test_entity_prediction_and_lm_marginal_commands(tmp_path):
    import json

    from spacy.tokens import DocBin

    from .conftest import DATA
    from .pipeline.test_entity_lm_scorer import TEXTS, TINY_ENTITYNLM, gold_doc, trained

    small, _, _ = trained(steps=1, base=TINY_ENTITYNLM)
    small.to_disk(tmp_path / "small")
    result = runner.invoke(app, ["entity-prediction", str(tmp_path / "small"), str(DATA / "inscript"),
                                 "--output", str(tmp_path / "ep.json")])
    assert result.exit_code != 0 and "min_mentions = 1" in str(result.exception)
    model, _, _ = trained(steps=3, base=dict(TINY_ENTITYNLM, n_slots=80), min_mentions=1)
    proposal, _, _ = trained(steps=3, base=dict(TINY_ENTITYNLM, n_slots=80, discriminative=True), min_mentions=1)
    model.to_disk(tmp_path / "p")
    proposal.to_disk(tmp_path / "q")
    result = runner.invoke(app, ["entity-prediction", str(tmp_path / "p"), str(DATA / "inscript"),
                                 "--output", str(tmp_path / "ep.json")])
    assert result.exit_code == 0, result.output
    scores = json.loads((tmp_path / "ep.json").read_text())
    assert scores["slots"] == 3346 and scores["always_new"] == pytest.approx(0.311, abs=0.001)
    assert 0 <= scores["entitynlm"] <= 1 and scores["shallow"] > scores["always_new"]
    DocBin(docs=[gold_doc(model, t, c) for t, c in TEXTS]).to_disk(tmp_path / "test.spacy")
    result = runner.invoke(app, ["lm-marginal", str(tmp_path / "p"), str(tmp_path / "q"), str(tmp_path / "test.spacy"),
                                 "--samples", "4", "--repeats", "2", "--output", str(tmp_path / "m.json")])
    assert result.exit_code == 0, result.output
    marginal = json.loads((tmp_path / "m.json").read_text())
    assert len(marginal["runs"]) == 2 and marginal["perplexity"] > 1
    assert marginal["method"] == "importance sampling"
    result = runner.invoke(app, ["lm-marginal", str(tmp_path / "p"), str(tmp_path / "q"), str(tmp_path / "test.spacy"),
                                 "--samples", "4", "--repeats", "1", "--resample-below", "1",
                                 "--output", str(tmp_path / "smc.json")])
    assert result.exit_code == 0 and "sequential Monte Carlo" in result.output, result.output
    assert json.loads((tmp_path / "smc.json").read_text())["resamples_per_document"] == 2
    too_high = runner.invoke(app, ["lm-marginal", str(tmp_path / "p"), str(tmp_path / "q"), str(tmp_path / "test.spacy"),
                                   "--resample-below", "2", "--output", str(tmp_path / "y.json")])
    assert too_high.exit_code != 0 and "resample-below" in too_high.output
    itself = runner.invoke(app, ["lm-marginal", str(tmp_path / "p"), "locally-optimal", str(tmp_path / "test.spacy"),
                                 "--samples", "4", "--repeats", "1", "--resample-below", "0.5", "--every-token",
                                 "--output", str(tmp_path / "lo.json")])
    assert itself.exit_code == 0 and "locally optimal" in itself.output, itself.output
    assert json.loads((tmp_path / "lo.json").read_text())["proposal_kind"].startswith("locally optimal")
    swapped = runner.invoke(app, ["lm-marginal", str(tmp_path / "q"), str(tmp_path / "p"), str(tmp_path / "test.spacy"),
                                  "--output", str(tmp_path / "x.json")])
    assert swapped.exit_code != 0 and "discriminative" in str(swapped.exception)


def test_coref_rerank_command_writes_lists_and_a_table(tmp_path):
    from spacy.tokens import DocBin

    from .pipeline.test_entity_lm_scorer import TEXTS, TINY_ENTITYNLM, gold_doc, trained

    lm, _, _ = trained(steps=3, base=TINY_ENTITYNLM)
    lm.to_disk(tmp_path / "lm")
    DocBin(docs=[gold_doc(lm, t, c) for t, c in TEXTS]).to_disk(tmp_path / "gold.spacy")
    args = ["coref-rerank", "default", str(tmp_path / "lm"), str(tmp_path / "gold.spacy"), str(tmp_path / "gold.spacy"),
            "--output-dir", str(tmp_path / "out"), "--k", "4"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "rerank.json").read_text())
    assert report["k"] == 4 and 1 <= report["mean_list_size"] <= 4
    assert list(report["rows"])[0] == "1-best (entity_memory)"
    lists = json.loads((tmp_path / "out" / "test_candidates.json").read_text())
    assert len(lists) == 2 and lists[0]["gold"] == [[[0, 1], [4, 5], [11, 12]], [[2, 3], [6, 7]]]
    assert "| 1-best (entity_memory) |" in (tmp_path / "out" / "rerank.md").read_text()
    no_lm = runner.invoke(app, args[:2] + ["default"] + args[3:])
    assert no_lm.exit_code != 0 and "needs an EntityNLM 'entity_lm_scorer'" in str(no_lm.exception)
    dntm, _, _ = trained(steps=1)
    dntm.to_disk(tmp_path / "dntm")
    not_entitynlm = runner.invoke(app, args[:2] + [str(tmp_path / "dntm")] + args[3:])
    assert "with another architecture" in str(not_entitynlm.exception)
    assert runner.invoke(app, args[:-1] + ["0"]).exit_code != 0


def test_inanimate_nouns_command_counts_typed_docs_and_needs_an_input(tmp_path):
    import spacy
    from spacy.tokens import DocBin

    from spacy_entmem.corpora.inanimate_nouns import load_inanimate_nouns

    nlp = spacy.blank("en")
    doc = nlp("The park was green . The park was big . The park closed . Anna came .")
    doc.spans["coref_clusters_1"] = [doc.char_span(doc[s].idx, doc[s + 1].idx + len(doc[s + 1]), label="place")
                                     for s in (0, 5, 10)]
    doc.spans["coref_clusters_2"] = [doc.char_span(doc[14].idx, doc[14].idx + 4, label="person")]
    DocBin(docs=[doc]).to_disk(tmp_path / "typed.spacy")
    output = tmp_path / "nouns.json"
    result = runner.invoke(app, ["inanimate-nouns", str(output), "--typed-docs", str(tmp_path / "typed.spacy"),
                                 "--docs", str(tmp_path / "typed.spacy")])
    assert result.exit_code == 0, result.output
    assert load_inanimate_nouns(output) == {"park"} and "1 inanimate head nouns of 2 counted" in flat(result)
    result = runner.invoke(app, ["inanimate-nouns", str(output)])
    assert result.exit_code == 1 and "needs --litbank or at least one --typed-docs file" in flat(result)


def test_person_nouns_command_learns_from_typed_heads_and_checks_its_inputs(tmp_path):
    import spacy
    from spacy.tokens import DocBin

    from spacy_entmem.corpora.person_nouns import load_person_nouns

    people = ["farmer", "sailor", "soldier", "baker", "teacher", "nurse"]
    things = ["bucket", "ladder", "pencil", "carpet", "window", "kettle"]
    nlp = spacy.blank("en")
    words = [w for noun in people + things for w in ("The", noun, "was", "there", ".") * 3]
    words += ["The", "widow", "saw", "the", "teaspoon", "."]
    doc = spacy.tokens.Doc(nlp.vocab, words=words)
    for k, noun in enumerate(people + things):
        label = "person" if noun in people else "object"
        doc.spans[f"coref_clusters_{k + 1}"] = [spacy.tokens.Span(doc, 15 * k + 5 * r, 15 * k + 5 * r + 2, label)
                                                for r in range(3)]
    DocBin(docs=[doc]).to_disk(tmp_path / "typed.spacy")
    output = tmp_path / "people.json"
    result = runner.invoke(app, ["person-nouns", str(output), "--typed-docs", str(tmp_path / "typed.spacy"),
                                 "--docs", str(tmp_path / "typed.spacy"), "--threshold", "0.5"])
    assert result.exit_code == 0, result.output
    assert load_person_nouns(output) == {"widow"} and "1 learnt person nouns of" in flat(result)
    result = runner.invoke(app, ["person-nouns", str(output), "--typed-docs", str(tmp_path / "typed.spacy")])
    assert result.exit_code == 1 and "needs at least one --docs file" in flat(result)
    result = runner.invoke(app, ["person-nouns", str(output), "--typed-docs", str(tmp_path / "typed.spacy"),
                                 "--docs", str(tmp_path / "typed.spacy"), "--threshold", "1.5"])
    assert result.exit_code == 1 and "--threshold is a probability between 0 and 1, got 1.5" in flat(result)


def test_gap_evaluate_select_finder_needs_a_span_finder(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "pipe")  # a token-level pipeline: no span finder to tune
    tsv = GAP / "gap-validation.tsv"
    result = runner.invoke(app, ["gap-evaluate", str(tmp_path / "pipe"), str(tsv), str(tsv), "--output-dir",
                                 str(tmp_path / "out"), "--select-finder"])
    assert result.exit_code == 1
    assert "--select-finder needs a 'span_finder' component" in result.output
    assert not (tmp_path / "out").exists()
    refused = runner.invoke(app, ["gap-evaluate", str(tmp_path / "pipe"), str(tsv), str(tsv), "--output-dir",
                                  str(tmp_path / "out"), "--setting", "name_genders=maybe"])
    assert refused.exit_code == 1 and "must be JSON" in flat(refused)
    assert not (tmp_path / "out").exists()


def test_replace_component_refuses_a_finder_trained_over_another_encoder(tmp_path):
    from .training.test_assembly import finder_pipeline

    finder_pipeline(0).to_disk(tmp_path / "pipe")
    finder_pipeline(1).to_disk(tmp_path / "other")
    finder_pipeline(0).to_disk(tmp_path / "same")
    out = tmp_path / "out"
    result = runner.invoke(app, ["replace-component", str(tmp_path / "pipe"), str(tmp_path / "other"), str(out)])
    assert result.exit_code == 1 and "trained over another 'tok2vec'" in flat(result) and not out.exists()
    result = runner.invoke(app, ["replace-component", str(tmp_path / "pipe"), str(tmp_path / "same"), str(out),
                                 "--set", "threshold=0.25"])
    assert result.exit_code == 0, result.output
    import spacy

    assert spacy.load(out).get_pipe("span_finder").cfg["threshold"] == 0.25
    result = runner.invoke(app, ["replace-component", str(tmp_path / "pipe"), str(tmp_path / "same"), str(out),
                                 "--set", "threshold"])
    assert result.exit_code == 1 and "expected NAME=VALUE" in flat(result)


def test_annotate_names_the_mention_schemes_when_given_an_unknown_one(tmp_path):
    text = tmp_path / "a.txt"
    text.write_text("Anna met Bob.", encoding="utf8")
    result = runner.invoke(app, ["annotate", str(text), "--mention-scheme", "ace"])
    assert result.exit_code == 1 and "unknown mention scheme 'ace'" in flat(result)
    assert "'gum', 'litbank'" in flat(result)


def test_gap_gender_swap_command_writes_a_gap_tsv_and_reports_what_it_left_out(tmp_path):
    from spacy_entmem.corpora.gap import COLUMNS, read_gap_rows

    source = tmp_path / "gap.tsv"
    source.write_text("\n".join(["\t".join(COLUMNS),
                                 "t-1\tAnna met Bob. She gave him her book.\tShe\t14\tAnna\t0\tTRUE\tBob\t9\tFALSE\tu",
                                 "t-2\tAnnabel met Bob. She left.\tShe\t17\tAnna\t0\tTRUE\tBob\t12\tFALSE\tu"]) + "\n",
                      encoding="utf8")
    output = tmp_path / "swapped.tsv"
    result = runner.invoke(app, ["gap-gender-swap", str(source), str(output)])
    assert result.exit_code == 0, result.output
    assert "1 of 2 rows swapped" in flat(result) and "1 rows left out" in flat(result) and "t-2" in flat(result)
    (row,) = read_gap_rows(output)
    assert row.id == "t-1-swapped" and row.spans[0][1] == "He"
    assert row.text.endswith(" He gave her his book.")



def test_gap_queries_command_writes_queries_and_refuses_a_corpus_without_clusters(tmp_path):
    import spacy
    from spacy.tokens import DocBin

    from spacy_entmem.corpora.gap import read_gap_rows

    doc = spacy.blank("en").make_doc("Mary met Anna . Later she said that Anna was tired , and she left .")
    doc.spans["coref_clusters_1"] = [doc[0:1], doc[5:6]]                # Mary, she
    doc.spans["coref_clusters_2"] = [doc[2:3], doc[8:9], doc[13:14]]    # Anna, Anna, she
    DocBin(docs=[doc]).to_disk(tmp_path / "gold.spacy")
    result = runner.invoke(app, ["gap-queries", str(tmp_path / "gold.spacy"), "--output", str(tmp_path / "q.tsv")])
    assert result.exit_code == 0, result.output
    assert "2 queries (A 1, B 1, neither 0)" in flat(result)
    assert [(row.a_coref, row.b_coref) for row in read_gap_rows(tmp_path / "q.tsv")] == [(True, False), (False, True)]
    DocBin(docs=[spacy.blank("en")("No clusters .")]).to_disk(tmp_path / "plain.spacy")
    result = runner.invoke(app, ["gap-queries", str(tmp_path / "plain.spacy"), "-o", str(tmp_path / "none.tsv")])
    assert result.exit_code == 1 and "none of the 1 documents" in flat(result) and "coref_clusters_N" in flat(result)
    # several corpora are read as one: the same doc twice gives every query twice
    result = runner.invoke(app, ["gap-queries", str(tmp_path / "gold.spacy"), str(tmp_path / "gold.spacy"),
                                 "-o", str(tmp_path / "q2.tsv")])
    assert result.exit_code == 0 and "4 queries (A 2, B 2, neither 0)" in flat(result), result.output
    result = runner.invoke(app, ["gap-queries", str(tmp_path / "gold.spacy"), "-o", str(tmp_path / "q.tsv"),
                                 "--keep-neither", "2"])
    assert result.exit_code == 1 and "keep_neither must be in [0, 1]" in flat(result)


def test_help_lists_the_user_commands_and_loads_no_spacy():
    """`entmem --help` shows the user commands and the research group, and imports neither spaCy nor torch."""
    import subprocess
    import sys

    code = ("import sys; from typer.testing import CliRunner; from spacy_entmem_cli.commands import app; "
            "out = CliRunner().invoke(app, ['--help']).output; "
            "print('spacy' in sys.modules, 'torch' in sys.modules); print(out)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    first, help_text = result.stdout.split("\n", 1)
    assert first == "False False"
    for command in ("annotate", "coref-evaluate", "gap-evaluate", "litbank-convert", "research"):
        assert command in help_text
    assert "memory-sweep" not in help_text and "average-checkpoints" not in help_text


def test_research_commands_answer_in_their_group_and_unlisted_at_the_top():
    grouped = runner.invoke(app, ["research", "--help"])
    assert grouped.exit_code == 0 and "average-checkpoints" in grouped.output and "memory-sweep" in grouped.output
    assert runner.invoke(app, ["average-checkpoints", "--help"]).exit_code == 0


def test_an_interrupted_run_says_that_a_rerun_resumes(tmp_path, monkeypatch):
    import spacy_entmem.batch

    (tmp_path / "a.txt").write_text("Anna came.", encoding="utf8")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(spacy_entmem.batch, "annotate_stream", interrupted)
    result = runner.invoke(app, ["annotate", str(tmp_path), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 130
    assert "run the same command again and it resumes" in " ".join(result.output.split())


def test_annotate_reads_latin1_with_encoding(tmp_path):
    (tmp_path / "old.txt").write_bytes("Élodie met René. She thanked him.".encode("latin-1"))
    bad = runner.invoke(app, ["annotate", str(tmp_path)])
    assert bad.exit_code == 1 and "not UTF-8 text" in bad.output
    good = runner.invoke(app, ["annotate", str(tmp_path), "--encoding", "latin-1"])
    assert good.exit_code == 0, good.output
    assert runner.invoke(app, ["annotate", str(tmp_path), "--encoding", "klingon"]).exit_code == 2


def test_entities_command_writes_the_table_and_the_chart(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("CHAPTER I\nAnna Smith met Ben Jones in London.\n\nCHAPTER II\nBen wrote to Anna. She answered "
                    "him.\n", encoding="latin-1")
    out_csv, out_png = tmp_path / "entities.csv", tmp_path / "chart.png"
    result = runner.invoke(app, ["entities", str(book), "--chapters", "CHAPTER [IVX]+", "--csv", str(out_csv),
                                 "--plot", str(out_png), "--encoding", "latin-1"])
    assert result.exit_code == 0, result.output
    printed = " ".join(result.output.split())  # the message wraps with the length of the temporary path
    assert "2 chapter(s)" in printed and "Anna Smith" in printed
    lines = out_csv.read_text(encoding="utf8").splitlines()
    assert lines[0].startswith("entity_id,name,kind") and any(line.split(",")[1] == "Anna Smith" for line in lines)
    anna = next(line.split(",") for line in lines if line.split(",")[1] == "Anna Smith")
    assert anna[2] == "person" and anna[-2:] == ["CHAPTER I", "CHAPTER II"]  # first and last chapter
    assert out_png.read_bytes()[:4] == b"\x89PNG"
    people = runner.invoke(app, ["entities", str(book), "--kind", "person", "--chapters", "CHAPTER [IVX]+"])
    assert people.exit_code == 0 and "of kind person" in people.output and "Anna Smith" in people.output
    unmatched = runner.invoke(app, ["entities", str(book), "--chapters", "PART [0-9]+"])  # read in pieces instead
    said = " ".join(unmatched.output.split())
    assert unmatched.exit_code == 0 and "matches no line" in said and "1 chapter(s)" in said
    wrong_kind = runner.invoke(app, ["entities", str(book), "--kind", "animal"])
    assert wrong_kind.exit_code == 2 and "--kind must be" in wrong_kind.output
    assert runner.invoke(app, ["entities", str(book), "--chapters", "CHAPTER ["]).exit_code == 2


def test_annotate_and_entities_share_one_convention_for_exit_codes(tmp_path):
    """2: a wrong option or a missing file; 1: a file that is no text; 0: an empty file (nothing to read)."""
    empty, binary = tmp_path / "empty.txt", tmp_path / "binary.txt"
    empty.write_text("", encoding="utf8")
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" * 50)
    for command in ("annotate", "entities"):
        missing = runner.invoke(app, [command, str(tmp_path / "nope.txt")])
        assert missing.exit_code == 2, (command, missing.output)
        assert runner.invoke(app, [command, str(empty)]).exit_code == 0, command
        refused = runner.invoke(app, [command, str(binary), "--encoding", "latin-1"])
        said = " ".join(refused.output.split())
        assert refused.exit_code == 1 and "binary file (NUL bytes)" in said, (command, said)
        assert runner.invoke(app, [command, str(empty), "--encoding", "klingon"]).exit_code == 2, command


def test_entities_repairs_mis_decoded_punctuation_and_skips_a_table_of_contents(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("Contents\n\nChapter 1. Arrival\n\nChapter 2. Departure\n\n\nChapter 1. Arrival\n\nAnna Smith "
                    "met Ben Jones\u00e2\u20ac\u201dthe baker.\n\nChapter 2. Departure\n\nBen wrote to Anna.\n",
                    encoding="utf8")
    result = runner.invoke(app, ["entities", str(book), "--chapters", "Chapter \\d+\\."])
    assert result.exit_code == 0, result.output
    printed = " ".join(result.output.split())
    assert "1 mis-decoded characters put back" in printed and "3 chapter(s)" in printed  # front matter + 2


def test_entities_leaves_out_a_project_gutenberg_header_and_licence(tmp_path):
    from tests.test_books import GUTENBERG

    book = tmp_path / "book.txt"
    book.write_text(GUTENBERG, encoding="utf8")
    result = runner.invoke(app, ["entities", str(book), "--chapters", "CHAPTER [IVX]+"])
    printed = " ".join(result.output.split())
    assert result.exit_code == 0, printed
    assert "header (5 lines) and licence (5 lines) left out" in printed and "1 chapter(s)" in printed
    assert "Michael Hart" not in printed and "Anna" in printed
    kept = runner.invoke(app, ["entities", str(book), "--chapters", "CHAPTER [IVX]+", "--keep-boilerplate"])
    said = " ".join(kept.output.split())
    assert kept.exit_code == 0 and "left out" not in said and "2 chapter(s)" in said  # front matter + chapter I
    book.write_text("Header\n*** START OF THE PROJECT GUTENBERG EBOOK Y ***\nAnna met Ben.\n", encoding="utf8")
    header = " ".join(runner.invoke(app, ["entities", str(book)]).output.split())
    assert "Project Gutenberg's header (2 lines) left out" in header and "licence" not in header


def test_help_lists_the_commands_a_user_runs_first():
    import click
    from typer.main import get_command

    cli = get_command(app)
    assert cli.list_commands(click.Context(cli))[:2] == ["annotate", "entities"]
    result = runner.invoke(app, ["--help"])
    assert result.output.index("annotate") < result.output.index("entities") < result.output.index("gap-convert")


def test_the_cli_reference_page_lists_every_user_command_and_option():
    """docs/cli.md (written by scripts/cli_reference.py): a section per listed command holding each of its
    options, and no section for a command that is gone."""
    import re
    from pathlib import Path

    import click
    from typer.main import get_command

    page = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf8")
    sections = dict(re.findall(r"^## (\S+)\n\n```\n(.*?)```", page, flags=re.S | re.M))
    cli = get_command(app)
    ctx = click.Context(cli)
    listed = [n for n in cli.list_commands(ctx) if not cli.get_command(ctx, n).hidden and n != "research"]
    assert sorted(sections) == sorted(listed)
    for name in listed:
        for param in cli.get_command(ctx, name).params:
            for option in getattr(param, "opts", []):
                if option.startswith("--"):
                    assert option in sections[name], (name, option)


def test_grammar_corpus_writes_templates_and_swapped_copies_keeping_clusters(tmp_path):
    import spacy
    from spacy.tokens import Doc, DocBin, Span

    vocab = spacy.blank("en").vocab
    doc = Doc(vocab, words=["John", "met", "Anna", "and", "thanked", "her", "."])
    doc.spans["coref_clusters_1"] = [Span(doc, 2, 3), Span(doc, 5, 6)]
    train = tmp_path / "train.spacy"
    DocBin(docs=[doc]).to_disk(train)
    items = tmp_path / "items.jsonl"
    items.write_text('{"text": "The florist waved at Greta."}\n', encoding="utf8")
    out = tmp_path / "extra"
    result = runner.invoke(app, ["research", "grammar-corpus", str(out), "--templates", "8", "--swap", str(train),
                                 "--held-out-items", str(items)])
    assert result.exit_code == 1 and "shared with a held-out set: ['florist']" in flat(result)
    items.write_text('{"text": "Greta waved."}\n', encoding="utf8")
    result = runner.invoke(app, ["research", "grammar-corpus", str(out), "--templates", "8", "--swap", str(train),
                                 "--held-out-items", str(items)])
    assert result.exit_code == 0, result.output
    templates = list(DocBin().from_disk(out / "templates.spacy").get_docs(vocab))
    assert len(templates) == 8 and not any("Greta" in d.text for d in templates)
    swapped = list(DocBin().from_disk(out / f"train_{tmp_path.name}_swapped.spacy").get_docs(vocab))
    assert swapped[0].text.strip().endswith("thanked him .") and swapped[0][0].text != "John"
    assert [s.text for s in swapped[0].spans["coref_clusters_1"]] == [swapped[0][2].text, "him"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf8")
    result = runner.invoke(app, ["research", "grammar-corpus", str(out), "--held-out-items", str(bad)])
    assert result.exit_code == 1 and "bad.jsonl:1: not a JSON object" in flat(result)
