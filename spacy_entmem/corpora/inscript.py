"""InScript (Modi et al. 2017) ``.drs`` stories → coreference documents, and the human-prediction slots of
EntityNLM's entity-prediction task (Ji et al. 2017, §5.3).

A story is blocks of ``#id=N`` / ``#text=…`` header lines, then one token per line with six tab-separated
columns (id ``sentence-token``, word, head verb + relation, verb lemma, POS, participant label). Every token
whose label is not ``O`` is one mention of the referent the label names (InScript labels heads: "hot water"
labels "water" only), so each labelled token is a one-token mention and the label is the cluster. The
split lists come from ``dataSplit.json``; stories listed there without a file are skipped (18 test stories,
dropped upstream).
"""
import json
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

from .brackets import CorefFormatError, Mention
from .docs import CorefDocument

SPLIT_FOLDERS = {"train": "trainFiles", "dev": "devFiles", "test": "testFiles"}
N_COLUMNS = 6
NO_LABEL = "O"


def read_drs(path: Path) -> CorefDocument:
    """One story; a malformed line fails with the file and line number."""
    words: List[str] = []
    sentence_lengths: List[int] = []
    mentions: List[Mention] = []
    expected_sentence = None
    with open(path, encoding="utf8") as f:
        for line_no, line in enumerate(f, start=1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#id="):
                sentence_lengths.append(0)
                expected_sentence = line[len("#id="):].strip()
                continue
            if line.startswith("#"):
                continue
            columns = line.split("\t")
            where = f"{path}:{line_no}"
            if len(columns) != N_COLUMNS:
                raise CorefFormatError(f"[spacy-entmem] {where}: expected {N_COLUMNS} tab-separated columns, "
                                       f"got {len(columns)}")
            if expected_sentence is None:
                raise CorefFormatError(f"[spacy-entmem] {where}: token line before any #id= header")
            sentence, _, token = columns[0].partition("-")
            if sentence != expected_sentence or not token.isdigit() or int(token) != sentence_lengths[-1] + 1:
                raise CorefFormatError(f"[spacy-entmem] {where}: token id {columns[0]!r} out of order (expected "
                                       f"{expected_sentence}-{sentence_lengths[-1] + 1})")
            if not columns[1]:
                raise CorefFormatError(f"[spacy-entmem] {where}: empty word")
            if columns[5] != NO_LABEL:
                mentions.append(Mention(len(words), len(words) + 1, columns[5]))
            words.append(columns[1])
            sentence_lengths[-1] += 1
    sentence_lengths = [n for n in sentence_lengths if n]
    return CorefDocument(path.name.split(".")[0], words, sentence_lengths, mentions, meta={"source": "inscript"})


def read_inscript(data_dir: Path) -> Dict[str, List[CorefDocument]]:
    """{split: stories} in the order of ``dataSplit.json``."""
    data_dir = Path(data_dir)
    splits = json.loads((data_dir / "dataSplit.json").read_text(encoding="utf8"))
    out: Dict[str, List[CorefDocument]] = {}
    for split, folder in SPLIT_FOLDERS.items():
        files = {p.name.split(".")[0]: p for p in (data_dir / "data" / folder).glob("*/*.drs")}
        out[split] = [read_drs(files[story]) for story in splits[split] if story in files]
    return out


def prediction_slots(data_dir: Path) -> Dict[str, List[Tuple[int, int]]]:
    """{story: [(sentence, token), …]} (both 1-based) of the human-prediction slots of the test stories."""
    predictions = json.loads((Path(data_dir) / "humanPredictions.json").read_text(encoding="utf8"))
    return {story: [tuple(int(x) for x in key.split("_")) for key in slots] for story, slots in predictions.items()}


def human_accuracy(data_dir: Path) -> Dict[str, float]:
    """Human referent prediction: ``majority`` (the most frequent of the 20 guesses per slot, ties to the
    first named, is the true referent) and ``per_guess`` (the share of all guesses that are)."""
    predictions = json.loads((Path(data_dir) / "humanPredictions.json").read_text(encoding="utf8"))
    right = guesses_right = slots = guesses_total = 0
    for labelled_slots in predictions.values():
        for labelled in labelled_slots.values():
            for true_label, guesses in labelled.items():
                right += bool(guesses) and Counter(guesses).most_common(1)[0][0] == true_label
                guesses_right += sum(guess == true_label for guess in guesses)
                slots += 1
                guesses_total += len(guesses)
    return {"majority": right / slots if slots else 0.0,
            "per_guess": guesses_right / guesses_total if guesses_total else 0.0}


def slot_tokens(sentence_lengths: List[int], slots: List[Tuple[int, int]]) -> List[int]:
    """Document token index of each 1-based (sentence, token) slot."""
    offsets = [0]
    for n in sentence_lengths:
        offsets.append(offsets[-1] + n)
    return [offsets[sentence - 1] + token - 1 for sentence, token in slots]
