"""Maintainer commands, not part of the user CLI: ``python -m spacy_entmem.maintainer ship-default ...``
(the project's ``ship-default`` step runs it)."""
import json
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

app = typer.Typer(help="spacy-entmem maintainer commands", no_args_is_help=True)


@app.callback()
def maintainer() -> None:
    """spacy-entmem maintainer commands (a callback keeps ``ship-default`` a named sub-command)."""


@app.command("ship-default")
def ship_default(
    source: Path = typer.Argument(..., exists=True, file_okay=False, help="Trained pipeline directory"),
    target: Optional[Path] = typer.Option(None, help="Where to copy it (default: inside the package)"),
    description: str = typer.Option("", help="What it was trained on and with which config (goes to meta.json)"),
    entity_threshold: Optional[float] = typer.Option(None, help="Set entity_memory's entity_threshold (e.g. the "
                                                     "one coref-evaluate --select-on chose)"),
    new_entity_bias: Optional[float] = typer.Option(None, help="Set entity_memory's new_entity_bias"),
    decisions_from: Optional[Path] = typer.Option(None, exists=True, dir_okay=False,
                                                  help="Take the decision settings (memory and span finder) "
                                                       "from a coref-evaluate --select-on JSON"),
) -> None:
    """Copy a trained pipeline into the package as the default one, check it loads and annotates."""
    import shutil

    import spacy
    import srsly
    from thinc.api import Config

    import spacy_entmem

    from .pipeline.chunked_tok2vec import use_chunked_tok2vec
    from .evaluation.coref_evaluate import decisions_by_component

    target = target or spacy_entmem.DEFAULT_PIPELINE
    chosen = {"entity_threshold": entity_threshold, "new_entity_bias": new_entity_bias}
    if decisions_from is not None:
        chosen.update(json.loads(decisions_from.read_text(encoding="utf8")))
    if chosen["entity_threshold"] is not None and not 0.0 <= chosen["entity_threshold"] <= 1.0:
        msg.fail(f"entity_threshold must be in [0, 1], got {chosen['entity_threshold']}", exits=1)
    if chosen["new_entity_bias"] is not None and not chosen["new_entity_bias"] > 0:
        msg.fail(f"new_entity_bias must be > 0, got {chosen['new_entity_bias']}", exits=1)
    # copy, set and check next to the target; only a pipeline that loads and annotates replaces it
    staging = target.with_name(target.name + ".staging")
    if staging.exists():
        shutil.rmtree(staging)
    shutil.copytree(source, staging)
    config = Config().from_disk(staging / "config.cfg", interpolate=False)
    for component, settings in decisions_by_component(chosen).items():
        if not (staging / component / "cfg").exists():
            continue
        cfg = srsly.read_json(staging / component / "cfg")
        cfg.update(settings)
        srsly.write_json(staging / component / "cfg", cfg)
        config["components"][component].update(settings)
    use_chunked_tok2vec(config)  # same weights; bounded memory on long documents
    config.to_disk(staging / "config.cfg")
    meta = srsly.read_json(staging / "meta.json")
    meta.update({"name": "entmem_default", "version": spacy_entmem.__version__, "description": description,
                 "author": "spacy-entmem developers", "license": "MIT"})
    srsly.write_json(staging / "meta.json", meta)
    try:
        nlp = spacy.load(staging)
        samples = sorted((Path(spacy_entmem.__file__).parent / "samples").glob("*.txt"))
        docs = list(nlp.pipe(path.read_text(encoding="utf8") for path in samples))
    except Exception as error:  # noqa: BLE001 (any failure keeps the old pipeline)
        shutil.rmtree(staging)
        msg.fail(f"{source} does not load or annotate after setting it up ({error}); {target} left as it was",
                 exits=1)
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    size = sum(f.stat().st_size for f in target.rglob("*") if f.is_file())
    msg.good(f"{source} -> {target} ({size / 1e6:.1f} MB); annotated {len(docs)} samples")


if __name__ == "__main__":
    app()
