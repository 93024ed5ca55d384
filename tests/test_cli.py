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
