"""Whole books read as streams, scored against the committed character keys.

    python benchmarks/books.py --novels ../shared/data/novels --output metrics/books.json \
        tests/fixtures/data/books/*.json

Each key names its book (in ``--novels``) and the chapter pattern; the book is read as one stream (``read_book``,
one thread), in a process of its own so that its peak resident memory is its own. Reported per book: the
characters' entities and the share of their name mentions in the largest entity (``character_keys``), the
entities that merge two keyed characters, person entities in the table, tokens, words per second, peak
resident memory, µs per token of the first and last tenth of the stream (by chapters), the share of the
first-person mentions in the row of who says them where a key names the narrator or a quotation's speaker, and
where identity is lost (``identity_loss``: evictions, restarts of a name, singleton kinds). ``--settings`` passes entity_memory
settings (JSON) to compare variants; ``--raw-table`` scores the memory's own entity ids, without the table's
character merge; ``--pipeline DIR`` reads with another pipeline (a candidate memory in a copy of the default).
"""
import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional


def read_one(key_path: Path, novels: Path, settings: dict, raw_table: bool, tables: Optional[Path] = None,
             pipeline: Optional[Path] = None) -> dict:
    import torch

    import spacy_entmem
    from spacy_entmem.books import chapter_speakers, gutenberg_body, split_chapters
    from spacy_entmem.evaluation.character_keys import (load_key, narrator_shares, quoted_first_person, score_entities,
                                                         speaker_shares, unquoted_first_person)
    from spacy_entmem.evaluation.identity_loss import IdentityLog
    from spacy_entmem.reader import Reader

    torch.set_num_threads(1)
    key = load_key(key_path)
    text, _ = gutenberg_body((novels / key.book).read_text(encoding="utf8"))  # (as entmem entities reads it)
    chapters = split_chapters(text, key.chapters)
    config = {"components": {"entity_memory": settings}} if settings else {}
    nlp = spacy_entmem.load_default(config=config) if pipeline is None else spacy_entmem.load_with_scheme(
        pipeline, spacy_entmem.DEFAULT_SCHEME, config=config)
    reader = Reader(nlp)
    log = IdentityLog()
    seconds, tokens = [], []
    words = sum(len(chapter.text.split()) for chapter in chapters)
    started = time.perf_counter()
    last = started
    first_person, quoted = [], []
    speakers = chapter_speakers(chapters)  # (as entmem entities reads a book: a heading's narrator)
    for chapter, doc in zip(chapters, reader.pipe((chapter.text for chapter in chapters), speakers=speakers,
                                                  batch_size=1)):
        now = time.perf_counter()
        seconds.append(now - last)
        tokens.append(len(doc))
        log.add(doc, reader.tokens_read - len(doc))
        first_person.append((chapter.title, unquoted_first_person(doc)))
        if chapter.title in key.speakers:
            quoted.append((chapter.title, quoted_first_person(doc, key.speakers[chapter.title])))
        last = time.perf_counter()  # (the diagnosis is not timed)
    total = sum(seconds)
    if tables is not None:  # the stream's mention records, to score the table again without reading (--rescore)
        tables.mkdir(parents=True, exist_ok=True)
        (tables / f"{key_path.stem}.json").write_text(json.dumps(reader.table.to_list()), encoding="utf8")
    entities = reader.entities(merge_characters=not raw_table)
    score = score_entities(entities, key)
    tenth = max(len(chapters) // 10, 1)
    first_us = 1e6 * sum(seconds[:tenth]) / max(sum(tokens[:tenth]), 1)
    last_us = 1e6 * sum(seconds[-tenth:]) / max(sum(tokens[-tenth:]), 1)
    return {
        "book": key.book,
        "chapters": len(chapters),
        "tokens": reader.tokens_read,
        "words": words,
        "words_per_second": words / total,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "us_per_token_first_tenth": first_us,
        "us_per_token_last_tenth": last_us,
        "person_entities": score.person_entities,
        "mean_entities_per_character": score.mean_entities,
        "max_entities_per_character": score.max_entities,
        "mean_largest_share": score.mean_share,
        "worst_largest_share": score.worst_share,
        "merged_entities": len(score.merged),
        "misplaced_share": score.misplaced_share,
        "narrators": narrator_shares(key, first_person, entities, score),
        "speakers": speaker_shares([pair for _, pairs in quoted for pair in pairs], entities, score),
        "speakers_by_chapter": {title: speaker_shares(pairs, entities, score)["all"] for title, pairs in quoted},
        "characters": {c.character: {"found": c.found, "entities": c.entities, "largest_share": c.largest_share,
                                     "sizes": sorted(c.by_entity.values(), reverse=True)[:8],
                                     "names": [names_of(entities, e) for e in sorted(
                                         c.by_entity, key=c.by_entity.get, reverse=True)[:4]]}
                       for c in score.characters},
        "identity_loss": log.summary(key),
        "settings": settings,
    }


def rescore(key_path: Path, tables: Path, raw_table: bool) -> dict:
    """The scores of a table saved by an earlier run (``--tables``), with this version's character merge."""
    from spacy_entmem.evaluation.character_keys import load_key, score_entities
    from spacy_entmem.pipeline.entities import EntityTable

    key = load_key(key_path)
    table = EntityTable.from_list(json.loads((tables / f"{key_path.stem}.json").read_text(encoding="utf8")))
    entities = table.entities(merge_characters=not raw_table)
    score = score_entities(entities, key)
    return {"book": key.book, "person_entities": score.person_entities, "mean_entities": score.mean_entities,
            "max_entities": score.max_entities, "mean_share": score.mean_share, "worst_share": score.worst_share,
            "merged": len(score.merged), "misplaced_share": score.misplaced_share, "characters": {
                c.character: (c.found, c.entities, round(c.largest_share, 3), [names_of(entities, e) for e in sorted(
                    c.by_entity, key=c.by_entity.get, reverse=True)[:3]]) for c in score.characters}}


def names_of(entities, entity_id: int) -> str:
    """The name and first aliases of the row of an entity id (for reading where a character is split)."""
    for entity in entities:
        if entity.id == entity_id:
            return " | ".join([entity.name] + entity.aliases[:3])
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys", nargs="+", type=Path)
    parser.add_argument("--novels", type=Path, default=Path("../shared/data/novels"))
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--settings", default="{}", help="entity_memory settings as JSON")
    parser.add_argument("--raw-table", action="store_true", help="score the memory's ids, no character merge")
    parser.add_argument("--tables", type=Path, default=None, help="save each stream's mention records here")
    parser.add_argument("--rescore", action="store_true", help="score the tables saved in --tables, reading nothing")
    parser.add_argument("--pipeline", type=Path, default=None, help="read with this pipeline directory (a "
                        "candidate memory put in a copy of the default) instead of the shipped default")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # (the child process)
    args = parser.parse_args()
    settings = json.loads(args.settings)
    if args.rescore:
        for key in args.keys:
            print(json.dumps(rescore(key, args.tables, args.raw_table), indent=1))
        return
    if args.one:
        print(json.dumps(read_one(args.keys[0], args.novels, settings, args.raw_table, args.tables, args.pipeline)))
        return
    results = []
    for key in args.keys:
        command = [sys.executable, __file__, str(key), "--novels", str(args.novels), "--settings", args.settings,
                   "--one"] + (["--raw-table"] if args.raw_table else []) + (
                       ["--tables", str(args.tables)] if args.tables else []) + (
                       ["--pipeline", str(args.pipeline)] if args.pipeline else [])
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        result = json.loads(out.strip().splitlines()[-1])
        results.append(result)
        loss = result["identity_loss"]
        print(f"{result['book']}: {result['tokens']:,} tokens, {result['words_per_second']:.0f} words/s, peak "
              f"{result['peak_rss_mb']:.0f} MB, µs/token first/last tenth {result['us_per_token_first_tenth']:.0f}"
              f"/{result['us_per_token_last_tenth']:.0f}; people {result['person_entities']}; entities per "
              f"character mean {result['mean_entities_per_character']:.1f} max "
              f"{result['max_entities_per_character']}; largest share mean {result['mean_largest_share']:.3f} "
              f"worst {result['worst_largest_share']:.3f}; merged {result['merged_entities']}; "
              f"misplaced {result['misplaced_share']:.3f}" + "".join(
                  f"; narrator {name}: {row['mentions']} unquoted I / me / my, {row['share']:.3f} in their row"
                  for name, row in result["narrators"].items()) + "".join(
                  f"; keyed speakers' quoted I / me / my in their row: {row['share']:.3f} of {row['mentions']}"
                  for name, row in result["speakers"].items() if name == "all"))
        for name, row in result["characters"].items():
            print(f"    {name:28s} found {row['found']:5d}  entities {row['entities']:4d}  largest "
                  f"{row['largest_share']:.3f}  sizes {row['sizes']}  {row['names']}")
        print("    identity loss:", json.dumps(loss))
        sys.stdout.flush()
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=2), encoding="utf8")


if __name__ == "__main__":
    main()
