"""The entities that left the memory's cells, kept so that a returning name can bring its entity back.

A bounded memory must evict; a book's cast outlives any N cells. When a new entity takes a cell, the entity it
evicts is archived with what the cell knew of it: its vector, its per-cell fields and sets (``carry.CELL_ARRAYS``,
``CELL_SETS``: names, strings, gender, ...) and its titles. A later name that would begin a new entity looks
its name words up in the archive (``EntityArchive.lookup``): an archived entity whose names hold all of them,
with no clash of gender or title, is restored into the cell the new entity would have taken, with its entity id,
and the mention joins it. Several matches: the most mentioned. (This is Dual Cache's global side and Toshniwal
et al.'s unbounded entity list, kept outside the scoring loop: the work per step is a dictionary lookup.)

The archive is bounded by entities, not tokens: past ``capacity`` the least mentioned archived entity is
dropped (ties: the earliest archived).
"""
import heapq
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import numpy

DEFAULT_CAPACITY = 5000


@dataclass
class ArchivedEntity:
    """One evicted entity: its id, its cell's vector (H,), per-cell fields and sets as ``CellState`` holds them,
    and the order it was archived in."""

    entity: int
    vector: numpy.ndarray
    arrays: Dict[str, Any]
    sets: Dict[str, Set]
    order: int = 0

    @property
    def count(self) -> int:
        return int(self.arrays["count"])

    @property
    def names(self) -> Set[int]:
        return self.sets["names"]

    def to_list(self) -> list:
        return [self.entity, self.vector.astype("float32").tolist(),
                {name: plain(value) for name, value in self.arrays.items()},
                {name: sorted(map(plain, cell)) for name, cell in self.sets.items()}, self.order]

    @classmethod
    def from_list(cls, row: list) -> "ArchivedEntity":
        entity, vector, arrays, sets, order = row
        return cls(int(entity), numpy.asarray(vector, dtype="float32"), dict(arrays),
                   {name: set(map(hashable, cell)) for name, cell in sets.items()}, int(order))


class EntityArchive:
    """Archived entities indexed by name word (see the module docstring)."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY):
        if capacity < 1:
            raise ValueError(f"[spacy-entmem] an entity archive holds at least one entity, got capacity {capacity}")
        self.capacity = capacity
        self.entities: Dict[int, ArchivedEntity] = {}
        self.by_name: Dict[int, Set[int]] = {}
        self._heap: List[Tuple[int, int, int]] = []  # (count, order, entity): who is dropped first (lazy)
        self._order = 0

    def __len__(self) -> int:
        return len(self.entities)

    def store(self, archived: ArchivedEntity) -> None:
        """Archive an evicted entity (only one that holds a name: nothing else can be looked up); past capacity,
        drop the least mentioned."""
        if not archived.names:
            return
        if archived.entity in self.entities:
            self.take(archived.entity)
        archived.order = self._order
        self._order += 1
        self.entities[archived.entity] = archived
        for word in archived.names:
            self.by_name.setdefault(word, set()).add(archived.entity)
        heapq.heappush(self._heap, (archived.count, archived.order, archived.entity))
        while len(self.entities) > self.capacity:
            count, order, entity = heapq.heappop(self._heap)
            held = self.entities.get(entity)
            if held is not None and held.order == order:
                self.take(entity)

    def take(self, entity: int) -> ArchivedEntity:
        """Remove an archived entity and return it (it goes back into a cell)."""
        archived = self.entities.pop(entity)
        for word in archived.names:
            holders = self.by_name.get(word)
            if holders is not None:
                holders.discard(entity)
                if not holders:
                    del self.by_name[word]
        return archived

    def lookup(self, words: Set[int], accept: Callable[[ArchivedEntity], bool]) -> Optional[ArchivedEntity]:
        """The most mentioned archived entity whose names hold all of ``words`` and that ``accept`` allows
        (ties: the latest archived); None if there is none."""
        if not words:
            return None
        holders: Optional[Set[int]] = None
        for word in words:
            found = self.by_name.get(word)
            if not found:
                return None
            holders = set(found) if holders is None else holders & found
            if not holders:
                return None
        best = None
        for entity in holders:
            archived = self.entities[entity]
            if accept(archived) and (best is None or (archived.count, archived.order) > (best.count, best.order)):
                best = archived
        return best

    def to_list(self) -> list:
        return [self.capacity, self._order, [archived.to_list() for archived in self.entities.values()]]

    @classmethod
    def from_list(cls, data: list) -> "EntityArchive":
        capacity, order, rows = data
        archive = cls(int(capacity))
        for row in rows:
            archived = ArchivedEntity.from_list(row)
            archive.entities[archived.entity] = archived
            for word in archived.names:
                archive.by_name.setdefault(word, set()).add(archived.entity)
            heapq.heappush(archive._heap, (archived.count, archived.order, archived.entity))
        archive._order = int(order)
        return archive

    def copy(self) -> "EntityArchive":
        """An archive that can change without changing this one (the archived entities are shared: they are
        not changed once archived)."""
        out = EntityArchive(self.capacity)
        out.entities = dict(self.entities)
        out.by_name = {word: set(holders) for word, holders in self.by_name.items()}
        out._heap = list(self._heap)
        out._order = self._order
        return out


def plain(value):
    """A value as msgpack / JSON holds it: a tuple as a list, a numpy scalar as a Python number."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, numpy.generic):
        return value.item()
    return value


def hashable(value):
    """The other way round: a list (a tuple written as msgpack / JSON) back as a tuple, to go into a set."""
    return tuple(value) if isinstance(value, list) else value
