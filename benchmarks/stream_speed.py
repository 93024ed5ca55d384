"""A long stream: speed per token and memory of ``spacy_entmem.Reader`` over many pieces, against reading the same
pieces independently in the same process (the reference), and a stream of many tiny texts.

    python benchmarks/stream_speed.py --data-dir ../shared/data/litbank --tokens 1000000 --pieces 200 \
        --tiny 10000 --output metrics/stream_speed.json

The pieces are real LitBank text (the fold-0 test documents, repeated to the length), cut into equal pieces of
words. For each piece read as the stream's next text: seconds, the process's resident memory (VmRSS) after it,
and the size of the reader's state (``to_bytes``, without the entity table: ``keep_entities=False``). Reported:
µs per token of the stream and of the independent reading, their ratio, µs per token of each tenth of the
stream (flat if the memory is bounded), resident memory after the first and the last tenth, and the
state's size at its smallest and largest. ``--tiny``: that many texts of one short sentence each, read as a
stream; resident memory and state size after the first and the last tenth.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).parent))
from long_documents import litbank_words, status_mb  # noqa: E402

from spacy_entmem.evaluation.reporting import report  # noqa: E402

TINY_TEXTS = ("Anna called Ben.", "He said that she was late.", "They met at the station.", "It was raining.",
              "I told her about it.", "", "Ben thanked Anna and paid her.")


def tenths(values):
    n = max(len(values) // 10, 1)
    return values[:n], values[-n:]


def mean(values):
    return sum(values) / len(values)


def run(data_dir: Path, n_tokens: int, n_pieces: int, n_tiny: int) -> dict:
    import torch
    from spacy.tokens import Doc

    import spacy_entmem

    torch.set_num_threads(1)
    nlp = spacy_entmem.load_default()
    words = litbank_words(data_dir, n_tokens)
    size = len(words) // n_pieces
    pieces = [words[k * size:(k + 1) * size] for k in range(n_pieces)]
    nlp(Doc(nlp.vocab, words=pieces[0][:200]))  # warm up

    start = time.perf_counter()
    for piece in pieces:
        nlp(Doc(nlp.vocab, words=piece))
    independent = time.perf_counter() - start

    reader = spacy_entmem.Reader(nlp, keep_entities=False)
    seconds, rss, state_bytes = [], [], []
    for piece in pieces:
        start = time.perf_counter()
        reader.read(Doc(nlp.vocab, words=piece))
        seconds.append(time.perf_counter() - start)
        rss.append(status_mb("VmRSS"))
        state_bytes.append(len(reader.to_bytes()))
    stream = sum(seconds)
    first, last = tenths(seconds)
    rss_first, rss_last = tenths(rss)
    result = {
        "tokens": size * n_pieces, "pieces": n_pieces, "tokens_per_piece": size,
        "independent_us_per_token": 1e6 * independent / (size * n_pieces),
        "stream_us_per_token": 1e6 * stream / (size * n_pieces),
        "stream_over_independent": stream / independent,
        "first_tenth_us_per_token": 1e6 * mean(first) / size, "last_tenth_us_per_token": 1e6 * mean(last) / size,
        "us_per_token_by_tenth": [round(1e6 * mean(list(part)) / size, 1)
                                  for part in numpy.array_split(seconds, min(10, n_pieces))],
        "rss_mb_after_first_tenth": max(rss_first), "rss_mb_after_last_tenth": max(rss_last),
        "peak_rss_mb": status_mb("VmHWM"),
        "state_bytes_min": min(state_bytes), "state_bytes_max": max(state_bytes),
        "entities_started": reader.state.next_entity,
    }
    if n_tiny:
        reader.reset()
        rss, state_bytes = [], []
        start = time.perf_counter()
        for k in range(n_tiny):
            reader.read(TINY_TEXTS[k % len(TINY_TEXTS)])
            if k % 100 == 99:
                rss.append(status_mb("VmRSS"))
                state_bytes.append(len(reader.to_bytes()))
        rss_first, rss_last = tenths(rss)
        bytes_first, bytes_last = tenths(state_bytes)
        result["tiny"] = {
            "texts": n_tiny, "seconds": time.perf_counter() - start,
            "rss_mb_after_first_tenth": max(rss_first), "rss_mb_after_last_tenth": max(rss_last),
            "state_bytes_after_first_tenth": max(bytes_first), "state_bytes_after_last_tenth": max(bytes_last),
            "entities_started": reader.state.next_entity,
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data/litbank"))
    parser.add_argument("--tokens", type=int, default=1_000_000)
    parser.add_argument("--pieces", type=int, default=200)
    parser.add_argument("--tiny", type=int, default=10_000)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    result = run(args.data_dir, args.tokens, args.pieces, args.tiny)
    report(result, args.output)


if __name__ == "__main__":
    main()
