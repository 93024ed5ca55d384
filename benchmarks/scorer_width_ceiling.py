"""What a cheaper pair scorer could save at most: the shipped memory's CPU time on GAP test paragraphs with its
similarity MLP (``mlp_width`` 200) swapped for narrower ones of random weights, alternating in one process.

    python benchmarks/scorer_width_ceiling.py [--texts ../shared/data/gap/gap-test.tsv] [--limit 800]

The loop reads the same candidates (pruning reads the mention and new-entity scores, which are kept); the random
scorers decide differently, so the cells in use differ a little. A trained narrower scorer is what the figure bounds.
"""
import argparse
import time

import torch
from speed import read_texts, upstream_components

from spacy_entmem.cli import load_pipeline
from spacy_entmem.models.memory import torch_memory
from spacy_entmem.nn import use_one_thread
from spacy_entmem.nn.memory.petra import SplitInputMLP

WIDTHS = (100, 50)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", default="../shared/data/gap/gap-test.tsv")
    parser.add_argument("--limit", type=int, default=800)
    args = parser.parse_args()
    use_one_thread()
    nlp = load_pipeline("default")
    docs = [nlp.make_doc(text) for text in read_texts(args.texts)[: args.limit]]
    for _name, component in upstream_components(nlp):
        docs = list(component.pipe(docs, batch_size=64))
    memory = nlp.get_pipe("entity_memory")
    module = torch_memory(memory.model)
    shipped = module.similarity_mlp
    scorers = {shipped.rest[1].in_features: shipped}
    torch.manual_seed(0)
    for width in WIDTHS:
        scorers[width] = SplitInputMLP(shipped.token_proj.in_features,
                                       [proj.in_features for proj in shipped.memory_projs], width, 1)
    list(memory.pipe(docs[:64], batch_size=64))  # warm up
    best = {width: float("inf") for width in scorers}
    for _ in range(3):
        for width, scorer in scorers.items():
            module.similarity_mlp = scorer
            start = time.process_time()
            list(memory.pipe(docs, batch_size=64))
            best[width] = min(best[width], time.process_time() - start)
    module.similarity_mlp = shipped
    reference = best[shipped.rest[1].in_features]
    for width, seconds in best.items():
        print(f"mlp_width {width}: entity_memory {seconds:.2f} CPU s ({seconds / reference:.2f}x the shipped scorer's)")


if __name__ == "__main__":
    main()
