import json

from typer.testing import CliRunner

from spacy_entmem.cli import app

from .conftest import GAP

runner = CliRunner()


def test_gap_convert_command(tmp_path):
    output = tmp_path / "dev.spacy"
    result = runner.invoke(app, ["gap-convert", str(GAP / "gap-validation.tsv"), str(output)])
    assert result.exit_code == 0, result.output
    assert "454 documents, 1362 spans" in result.output
    assert output.exists()


def test_annotate_command_with_a_trained_pipeline(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "pipe")
    text = tmp_path / "a.txt"
    text.write_text("Anna met Bob. She said he was late.", encoding="utf8")
    html = tmp_path / "view.html"
    out = tmp_path / "docs.spacy"
    result = runner.invoke(
        app, ["annotate", str(text), "--model", str(tmp_path / "pipe"), "--html", str(html), "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert str(text) in result.output
    assert html.read_text(encoding="utf8").startswith("<!DOCTYPE html>")
    assert out.exists()


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
    assert "2 docs: α = " in result.output
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
