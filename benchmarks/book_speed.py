"""The book-length settings' cost in time: a book's first chapters read as a stream with the settings off and on,
alternating in the same process (one thread), rounds × each; the ratio of the medians of seconds per token.

    python benchmarks/book_speed.py --book ../shared/data/novels/little_women.txt --chapters "CHAPTER [A-Z]+$" \
        --first 4 --rounds 3
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from book_settings import OFF  # noqa: E402


def seconds_per_token(nlp, texts) -> float:
    from spacy_entmem.reader import Reader

    reader = Reader(nlp)
    start = time.perf_counter()
    for _ in reader.pipe(texts, batch_size=1):
        pass
    return (time.perf_counter() - start) / reader.tokens_read


def main() -> None:
    import torch

    import spacy_entmem
    from spacy_entmem.books import split_chapters

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--book", type=Path, required=True)
    parser.add_argument("--chapters", default=None)
    parser.add_argument("--first", type=int, default=4, help="chapters read (after the front matter)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    chapters = split_chapters(args.book.read_text(encoding="utf8"), args.chapters)
    texts = [c.text for c in chapters if c.title != "front matter"][:args.first]
    before = spacy_entmem.load_default(config={"components": {"entity_memory": OFF}})
    now = spacy_entmem.load_default()
    seconds_per_token(now, texts[:1])  # warm up both
    seconds_per_token(before, texts[:1])
    times = {"off": [], "on": []}
    for _ in range(args.rounds):
        times["off"].append(seconds_per_token(before, texts))
        times["on"].append(seconds_per_token(now, texts))
    ratio = statistics.median(times["on"]) / statistics.median(times["off"])
    print(json.dumps({"book": args.book.name, "chapters": len(texts), "us_per_token": {
        k: [round(1e6 * v, 1) for v in vs] for k, vs in times.items()}, "ratio_on_to_off": round(ratio, 3)}))


if __name__ == "__main__":
    main()
