"""Command line: ``entmem annotate | gap-convert | gap-evaluate`` (also ``python -m spacy_entmem``)."""
import json
from pathlib import Path
from typing import List, Optional

import typer
from wasabi import msg

app = typer.Typer(help="spacy-entmem: entity-memory coreference for spaCy", no_args_is_help=True)


def load_pipeline(model: Optional[str]):
    import spacy

    import spacy_entmem

    return spacy_entmem.load_default() if model in (None, "", "default") else spacy.load(model)


@app.command("gap-convert")
def gap_convert(
    input_tsv: Path = typer.Argument(..., exists=True, dir_okay=False, help="GAP TSV file"),
    output: Path = typer.Argument(..., help="Output .spacy file"),
    lang: str = typer.Option("en", help="Language of the tokenizer"),
) -> None:
    """Convert a GAP TSV file to a .spacy corpus with sparse supervision."""
    import spacy

    from .gap.convert import convert_gap_file

    report = convert_gap_file(spacy.blank(lang), input_tsv, output)
    msg.good(f"{input_tsv} -> {output}")
    print(report.summary())


@app.command("gap-evaluate")
def gap_evaluate(
    model: str = typer.Argument(..., help="Pipeline directory or package ('default' for the shipped one)"),
    validation: Path = typer.Argument(..., exists=True, help="GAP validation TSV (threshold selection)"),
    test: Path = typer.Argument(..., exists=True, help="GAP test TSV"),
    output_dir: Path = typer.Option(Path("metrics"), help="Where to write system TSVs and scores JSON"),
    batch_size: int = typer.Option(64, help="nlp.pipe batch size"),
) -> None:
    """Select the threshold on validation, then score validation and test with the official GAP logic."""
    from .gap.evaluate import evaluate_gap

    nlp = load_pipeline(model)
    result = evaluate_gap(nlp, validation, test, output_dir, batch_size=batch_size)
    print(json.dumps(result, indent=2))


@app.command("annotate")
def annotate(
    inputs: List[Path] = typer.Argument(..., exists=True, help="Text files (one document each)"),
    model: str = typer.Option("default", help="Pipeline directory or package"),
    html: Optional[Path] = typer.Option(None, help="Write an HTML view of the clusters here"),
    output: Optional[Path] = typer.Option(None, help="Write the annotated docs to this .spacy file"),
) -> None:
    """Annotate text files and print each document's clusters."""
    from spacy.tokens import DocBin

    from .display import clusters_html, format_clusters

    nlp = load_pipeline(model)
    texts = [path.read_text(encoding="utf8") for path in inputs]
    docs = list(nlp.pipe(texts))
    for path, doc in zip(inputs, docs):
        msg.divider(str(path))
        print(format_clusters(doc))
    if html is not None:
        html.write_text(clusters_html(docs, [str(p) for p in inputs]), encoding="utf8")
        msg.good(f"HTML view written to {html}")
    if output is not None:
        DocBin(docs=docs, store_user_data=True).to_disk(output)
        msg.good(f"{len(docs)} docs written to {output}")


@app.command("ship-default")
def ship_default(
    source: Path = typer.Argument(..., exists=True, file_okay=False, help="Trained pipeline directory"),
    target: Optional[Path] = typer.Option(None, help="Where to copy it (default: inside the package)"),
    description: str = typer.Option("", help="What it was trained on and with which config (goes to meta.json)"),
) -> None:
    """Copy a trained pipeline into the package as the default one, check it loads and annotates."""
    import shutil

    import spacy
    import srsly

    import spacy_entmem

    target = target or spacy_entmem.DEFAULT_PIPELINE
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    meta = srsly.read_json(target / "meta.json")
    meta.update({"name": "entmem_default", "version": spacy_entmem.__version__, "description": description,
                 "author": "spacy-entmem developers", "license": "MIT"})
    srsly.write_json(target / "meta.json", meta)
    nlp = spacy.load(target)
    samples = sorted((Path(spacy_entmem.__file__).parent / "samples").glob("*.txt"))
    docs = list(nlp.pipe(path.read_text(encoding="utf8") for path in samples))
    size = sum(f.stat().st_size for f in target.rglob("*") if f.is_file())
    msg.good(f"{source} -> {target} ({size / 1e6:.1f} MB); annotated {len(docs)} samples")


if __name__ == "__main__":
    app()
