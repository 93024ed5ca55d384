"""What the causal-LM preference (``entmem_lm_preference``) costs: words/s of the shipped pipeline with and
without it on the same texts, in alternating rounds in one process, one thread; and how many pronouns it was
asked about and moved.

    python benchmarks/lm_preference_speed.py [--texts ../shared/data/gap/gap-test.tsv] [--limit 300] [--repeats 2]
"""
import argparse
import json
import time

from speed import read_texts

import spacy_entmem
from spacy_entmem.nn import use_one_thread


def words_per_second(nlp, texts) -> float:
    start = time.perf_counter()
    words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=32))
    return words / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", default="../shared/data/gap/gap-test.tsv")
    parser.add_argument("--limit", type=int, default=300, help="texts read per round")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    use_one_thread()
    texts = read_texts(args.texts)[: args.limit]
    plain, preferring = spacy_entmem.load_default(), spacy_entmem.load_default(lm_preference=True)
    preference = preferring.get_pipe("entmem_lm_preference")
    _ = preference.scorer  # load the LM before timing
    rounds = []
    for _ in range(args.repeats):
        preference.asked = preference.moved = 0
        rounds.append((words_per_second(plain, texts), words_per_second(preferring, texts)))
    best_plain, best_preferring = max(r[0] for r in rounds), max(r[1] for r in rounds)
    print(json.dumps({"texts": len(texts), "words": sum(len(t.split()) for t in texts),
                      "plain_wps": round(best_plain), "lm_preference_wps": round(best_preferring),
                      "ratio": round(best_preferring / best_plain, 3),
                      "rounds_ratio": [round(p / q, 3) for q, p in rounds],
                      "pronouns_asked_per_round": preference.asked, "pronouns_moved_per_round": preference.moved},
                     indent=1))


if __name__ == "__main__":
    main()
