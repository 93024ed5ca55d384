"""One document's memory handed to the next (reading a book or a conversation as one stream).

The mention memory's state after a text is its cells' vectors and the symbolic ``CellState`` of those cells
(which entity each holds, its gender, number, strings, names, ...). ``CarriedMemory`` holds one document's
row of both, with positions made relative to the *next* text, so that text starts where the last one left
off: a cell last mentioned 30 tokens before the end of chapter 1 is 30 + t tokens away from token t of
chapter 2, as in one long document. What only means something inside its own text is cut loose: parse
positions of held mentions (the binding constraints never look across texts), the sentence of each cell's last
mention (the sentence distance is unknown across texts) and the speaker turns of held persons (a new text is a
new turn). Entity ids keep counting, so they are stable across the stream.

The state is bounded: N cells, each with the sets of at most the strings its mentions had (a cell's sets
are emptied when a new entity takes it), and an archive of at most ``capacity`` evicted entities that hold a
name (``archive``), whatever the length of the stream.
"""
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

import numpy

from ...linguistics.values import NO_SENTENCE  # (the SENTENCE column's unknown)
from .archive import EntityArchive, hashable, plain

# the per-cell arrays of ``CellState`` (row b of each is one document's)
CELL_ARRAYS = ("entity", "usage", "last_end", "count", "gender", "number", "last_pronoun", "last_quoted", "proper",
               "inanimate", "temporal", "untimed", "narrator", "noun_numbers", "person_noun", "last_role",
               "last_sentence", "third_person")
# the per-cell sets of ``CellState`` (``strings``: ("n" / "h", id); ``persons``: (turn, person))
CELL_SETS = ("strings", "names", "roots", "persons", "titles")
PAST_TURN = -2  # the turn of every person mention of an earlier text: never a current turn (those are >= 0)
FORMAT = 5  # bump when the fields change: ``from_dict`` refuses other formats


@dataclass
class CarriedMemory:
    """One stream's memory between two texts: ``vectors`` (N, H) the cells' vectors, ``arrays`` the per-cell
    fields (``CELL_ARRAYS``, each (N,)), ``sets`` the per-cell sets (``CELL_SETS``, each N sets), and
    ``next_entity`` the id the next new entity takes."""

    vectors: numpy.ndarray
    arrays: Dict[str, numpy.ndarray]
    sets: Dict[str, List[Set]]
    next_entity: int = 0
    texts_read: int = 0
    tokens_read: int = 0
    extra: Dict[str, Any] = field(default_factory=dict)
    archive: Optional[EntityArchive] = None  # the entities evicted so far (``archive``; None: none kept)

    @property
    def n_cells(self) -> int:
        return int(self.vectors.shape[0])

    def after_text(self, n_tokens: int) -> "CarriedMemory":
        """This state moved past a text of ``n_tokens`` tokens: positions relative to the next text's start,
        parse positions and turns of the text left behind cut loose (see the module docstring)."""
        arrays = {name: value.copy() for name, value in self.arrays.items()}
        arrays["last_end"] = arrays["last_end"] - n_tokens
        arrays["last_sentence"] = numpy.full_like(arrays["last_sentence"], NO_SENTENCE)  # (sentences: per text)
        sets = {
            "strings": [set(cell) for cell in self.sets["strings"]],
            "names": [set(cell) for cell in self.sets["names"]],
            "roots": [set() for _ in self.sets["roots"]],
            "persons": [{(PAST_TURN, person) for _, person in cell} for cell in self.sets["persons"]],
            "titles": [set(cell) for cell in self.sets["titles"]],
        }
        return CarriedMemory(self.vectors.copy(), arrays, sets, self.next_entity, self.texts_read + 1,
                             self.tokens_read + n_tokens, dict(self.extra),
                             self.archive)  # (import_row copies it: a state is never changed by reading on)

    def to_dict(self) -> Dict[str, Any]:
        """Plain lists and numbers (msgpack / JSON ready)."""
        return {
            "format": FORMAT,
            "vectors": self.vectors.astype("float32").tolist(),
            "arrays": {name: value.tolist() for name, value in self.arrays.items()},
            "sets": {name: [sorted(map(plain, cell)) for cell in cells] for name, cells in self.sets.items()},
            "next_entity": self.next_entity,
            "texts_read": self.texts_read,
            "tokens_read": self.tokens_read,
            "extra": self.extra,
            "archive": None if self.archive is None else self.archive.to_list(),
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "CarriedMemory":
        if data.get("format") != FORMAT:
            raise ValueError(f"[spacy-entmem] this memory state has format {data.get('format')!r}; this version of "
                             f"spacy-entmem reads format {FORMAT}")
        missing = [name for name in CELL_ARRAYS if name not in data["arrays"]] + [
            name for name in CELL_SETS if name not in data["sets"]]
        if missing:
            raise ValueError(f"[spacy-entmem] this memory state lacks the fields {missing}")
        arrays = {name: numpy.asarray(data["arrays"][name], dtype=_DTYPES.get(name, "int64")) for name in CELL_ARRAYS}
        sets = {name: [set(map(hashable, cell)) for cell in data["sets"][name]] for name in CELL_SETS}
        archive = None if data.get("archive") is None else EntityArchive.from_list(data["archive"])
        return cls(numpy.asarray(data["vectors"], dtype="float32"), arrays, sets, int(data["next_entity"]),
                   int(data.get("texts_read", 0)), int(data.get("tokens_read", 0)), dict(data.get("extra", {})),
                   archive)


_DTYPES = {"usage": "float64", "inanimate": bool, "temporal": bool, "untimed": bool, "narrator": "int64",
           "person_noun": bool, "third_person": bool}


def export_row(state, vectors: numpy.ndarray, row: int) -> CarriedMemory:
    """Row ``row`` of a ``CellState`` and its cells' ``vectors`` (N, H) as a ``CarriedMemory`` (copies)."""
    arrays = {name: getattr(state, name)[row].copy() for name in CELL_ARRAYS}
    sets = {name: [set(cell) for cell in getattr(state, name)[row]] for name in CELL_SETS}
    return CarriedMemory(numpy.array(vectors, dtype="float32"), arrays, sets, int(state.next_entity[row]),
                         archive=state.archives[row])


def import_row(state, row: int, carried: CarriedMemory) -> None:
    """Set row ``row`` of a fresh ``CellState`` to ``carried`` (its string index rebuilt from the cells' strings)."""
    n_cells = state.entity.shape[1]
    if carried.n_cells != n_cells:
        raise ValueError(f"[spacy-entmem] the memory state has {carried.n_cells} cells, this memory {n_cells}")
    for name in CELL_ARRAYS:
        getattr(state, name)[row] = carried.arrays[name]
    for name in CELL_SETS:
        getattr(state, name)[row] = [set(cell) for cell in carried.sets[name]]
    index: Dict[Tuple[str, int], Set[int]] = {}
    for cell, keys in enumerate(state.strings[row]):
        for key in keys:
            index.setdefault(key, set()).add(cell)
    state.cells_with[row] = index
    state.next_entity[row] = carried.next_entity
    if carried.archive is not None and state.archives[row] is not None:
        state.archives[row] = carried.archive.copy()
    state.derive_person_flags(row)
