"""Is the work per token flat along a book? The same chapters timed at the start of a stream and after the whole
book, alternating in one process (one thread), so that only the position in the stream differs.

    python benchmarks/book_flatness.py --book ../shared/data/novels/little_women.txt --chapters "CHAPTER [A-Z]+$" \
        --probe 3 --rounds 5

The book is read once as a stream (``Reader``) and its state kept (``Reader.to_bytes``). Each round then reads the
probe (the first ``--probe`` chapters after the front matter) twice: with a fresh reader (start of a stream) and
with a reader resumed from the book's end (``Reader.from_bytes``, not timed). Reported: CPU seconds (``time.process_time``,
less disturbed by other processes than the wall clock) and wall seconds per token of every round, and the ratio
end / start of their medians (and of the fastest rounds', the least disturbed). Text, parse and settings are the same on both sides; the ratio is the cost of having
read the book: the archive, the entity table, the ids.
"""
import argparse
import json
import statistics
import time
from pathlib import Path
from typing import List, Optional, Tuple


def read_probe(reader, texts: List[str]) -> Tuple[float, float, int]:
    """CPU seconds, wall seconds and tokens of reading ``texts`` on with ``reader``."""
    tokens = reader.tokens_read
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in reader.pipe(texts, batch_size=1):
        pass
    return time.process_time() - cpu, time.perf_counter() - wall, reader.tokens_read - tokens


def main(argv: Optional[List[str]] = None) -> None:
    import torch

    import spacy_entmem
    from spacy_entmem.books import split_chapters
    from spacy_entmem.reader import Reader

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--book", type=Path, required=True)
    parser.add_argument("--chapters", default=None, help="the chapter-heading pattern (as `entmem entities`)")
    parser.add_argument("--probe", type=int, default=3, help="chapters timed at the start and at the end")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    split = split_chapters(args.book.read_text(encoding="utf8"), args.chapters)
    chapters = [chapter.text for chapter in split]
    probe = [chapter.text for chapter in split if chapter.title != "front matter"][:args.probe]
    nlp = spacy_entmem.load_default()
    book = Reader(nlp)
    started = time.perf_counter()
    for _ in book.pipe(chapters, batch_size=1):
        pass
    book_seconds = time.perf_counter() - started
    end_state = book.to_bytes()
    read_probe(Reader(nlp), probe[:1])  # warm up
    runs = {"start": [], "end": []}
    for _ in range(args.rounds):
        for where in ("start", "end"):
            reader = Reader(nlp)
            if where == "end":
                reader.from_bytes(end_state)
            runs[where].append(read_probe(reader, probe))
    per_token = {where: {"cpu_us": [round(1e6 * cpu / n, 1) for cpu, _, n in values],
                         "wall_us": [round(1e6 * wall / n, 1) for _, wall, n in values]}
                 for where, values in runs.items()}

    def ratio(clock: str, summary=statistics.median) -> float:
        return summary(per_token["end"][clock]) / summary(per_token["start"][clock])

    print(json.dumps({
        "book": args.book.name, "chapters": len(chapters), "book_tokens": book.tokens_read,
        "book_seconds": round(book_seconds, 1), "state_kb": round(len(end_state) / 1024, 1),
        "probe_chapters": len(probe), "probe_tokens": runs["start"][0][2], "per_token": per_token,
        "end_to_start_cpu": round(ratio("cpu_us"), 3), "end_to_start_cpu_fastest": round(ratio("cpu_us", min), 3),
        "end_to_start_wall": round(ratio("wall_us"), 3)}))


if __name__ == "__main__":
    main()
