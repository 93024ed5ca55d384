"""A book stream's time per token against an earlier release of the package: its code and shipped pipeline checked
out from git into a temporary worktree, each release read in its own process (two releases cannot be imported
side by side), alternating rounds, one thread; CPU seconds per token of reading the stream (loading excluded).

    python benchmarks/release_speed.py --revision 3ba4428^ --book ../shared/data/novels/little_women.txt \
        --chapters "CHAPTER [A-Z]+$" --first 4 --rounds 3
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# run by each release's own interpreter process, with that release's package first on the path
READ_STREAM = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import catalogue, torch
torch.set_num_threads(1)

def entry_points_of_this_tree(registry):
    # the installed distribution's entry points may name modules this release does not have; its own import
    # registers what it has
    loaded = {}
    for entry_point in registry._get_entry_points():
        try:
            loaded[entry_point.name] = entry_point.load()
        except ImportError:
            pass
    return loaded

catalogue.Registry.get_entry_points = entry_points_of_this_tree
import spacy_entmem
from spacy_entmem.reader import Reader
chapters = json.loads(open(sys.argv[2], encoding="utf8").read())
reader = Reader(spacy_entmem.load_default())
start = time.process_time()
for _ in reader.pipe(chapters, batch_size=1):
    pass
print(json.dumps({"seconds_per_token": (time.process_time() - start) / reader.tokens_read,
                  "tokens": reader.tokens_read, "package": spacy_entmem.__file__}))
"""


def read_once(tree: Path, chapters_file: Path) -> dict:
    """One release reads the chapters as one stream in a fresh process; what it printed last."""
    done = subprocess.run([sys.executable, "-c", READ_STREAM, str(tree), str(chapters_file)], capture_output=True,
                          text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    if done.returncode != 0:
        raise SystemExit(f"the release in {tree} failed to read the stream:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["package"].startswith(str(tree)):
        raise SystemExit(f"imported {result['package']}, not the release in {tree}")
    return result


def main() -> None:
    from spacy_entmem.books import split_chapters

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--revision", required=True, help="the earlier release (a git revision of this repository)")
    parser.add_argument("--book", type=Path, required=True)
    parser.add_argument("--chapters", default=None, help="the chapter-heading regex (as for entmem entities)")
    parser.add_argument("--first", type=int, default=4, help="chapters read (after the front matter)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    chapters = split_chapters(args.book.read_text(encoding="utf8"), args.chapters)
    chapters = [c.text for c in chapters if c.title != "front matter"][:args.first]
    with tempfile.TemporaryDirectory() as scratch:
        earlier = Path(scratch) / "earlier"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(earlier), args.revision],
                       check=True, capture_output=True)
        try:
            chapters_file = Path(scratch) / "chapters.json"
            chapters_file.write_text(json.dumps(chapters), encoding="utf8")
            times = {"earlier": [], "this": []}
            for round_ in range(args.rounds):
                for name, tree in (("earlier", earlier), ("this", REPO)):
                    result = read_once(tree, chapters_file)
                    times[name].append(result["seconds_per_token"])
                    print(f"round {round_}: {name} {result['seconds_per_token'] * 1e6:.0f} µs per token "
                          f"({result['tokens']} tokens)", flush=True)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(earlier)], check=False)
    print(json.dumps({
        "revision": args.revision, "book": args.book.name, "chapters": len(chapters),
        "ratio_of_medians": statistics.median(times["this"]) / statistics.median(times["earlier"]),
        "ratio_of_best": min(times["this"]) / min(times["earlier"]),
        "seconds_per_token": times}, indent=2))


if __name__ == "__main__":
    main()
