"""Reading many texts as one stream: the chapters of a book, the turns of a conversation, the pages of a
transcript. ``Reader`` runs a pipeline over the texts one after the other and hands the entity memory's cells
from each text to the next, so a mention in chapter 5 can join an entity of chapter 1; each entity keeps one id
across the stream (``Span._.entity_id``, the cluster groups' ``attrs["entity_id"]``), and ``Reader.entities()``
lists the stream's entities.

The state is the memory's N cells and its entity counter: bounded, whatever the stream's length
(``to_bytes`` / ``from_bytes`` stop and resume a stream; ``reset`` starts over). The entity table of the stream
(``keep_entities``) keeps one small record per mention, for ``entities()`` and the ``entmem entities`` chart.
"""
import hashlib
from itertools import repeat
from typing import Iterable, Iterator, List, Optional, Union

import srsly
from spacy.language import Language
from spacy.tokens import Doc

from .nn.memory.carry import CarriedMemory
from .pipeline.entities import Entity, EntityTable
from .pipeline.entity_memory import EntityMemory

STATE_FORMAT = 1


def memory_fingerprint(component: EntityMemory) -> str:
    """A digest of the memory's weights and cell layout: a state carries it, so a state written by another
    model (another version of the pipeline, another memory) is refused instead of read as garbage."""
    from .models.memory import torch_memory

    module = torch_memory(component.model)
    if module is None:
        from .models.memory import UNTRAINED_MESSAGE

        raise ValueError(UNTRAINED_MESSAGE)
    digest = hashlib.sha256()
    for name, tensor in sorted(module.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


class Reader:
    """Reads texts as one stream with ``nlp``'s entity memory (``memory``: the component's name) carried from
    text to text. ``read(text, speaker=None)`` annotates one text, ``pipe(texts, speakers=None)`` many, in
    order; a ``speaker`` (a dialogue read turn by turn) makes the text's unquoted I / me / my that speaker:
    one entity across the speaker's turns, joined by later mentions of the speaker's name."""

    def __init__(self, nlp: Language, memory: str = "entity_memory", keep_entities: bool = True):
        if memory not in nlp.pipe_names:
            memories = [name for name, pipe in nlp.pipeline if isinstance(pipe, EntityMemory)]
            raise ValueError(f"[spacy-entmem] Reader: the pipeline has no active component {memory!r}; its entity "
                             f"memories: {memories or 'none'} (pipeline: {nlp.pipe_names})")
        component = nlp.get_pipe(memory)
        if not isinstance(component, EntityMemory):
            raise ValueError(f"[spacy-entmem] Reader: component {memory!r} is a {type(component).__name__}, not an "
                             "entity_memory")
        if component.cfg.get("beam_width", 1) != 1:
            raise ValueError(f"[spacy-entmem] Reader: component {memory!r} has beam_width = "
                             f"{component.cfg['beam_width']}; a stream is read greedily (beam_width = 1)")
        self.nlp = nlp
        self.memory_name = memory
        self.component = component
        position = nlp.pipe_names.index(memory)
        self._before = nlp.pipeline[:position]
        self._after = nlp.pipeline[position + 1:]
        self.fingerprint = memory_fingerprint(component)
        self.keep_entities = keep_entities
        self.state: Optional[CarriedMemory] = None
        self.table: Optional[EntityTable] = EntityTable() if keep_entities else None

    # -- reading ------------------------------------------------------------------------------------
    def read(self, text: Union[str, Doc], speaker: Optional[str] = None) -> Doc:
        """The next text of the stream, annotated (its mentions may join earlier texts' entities)."""
        return next(self.pipe([text], speakers=[speaker]))

    def pipe(self, texts: Iterable[Union[str, Doc]], *, speakers: Optional[Iterable[Optional[str]]] = None,
             batch_size: int = 32) -> Iterator[Doc]:
        """The texts as the stream's next texts, in order (the components before the memory batch them)."""
        docs: Iterable[Doc] = (self._make_doc(text, speaker)
                               for text, speaker in zip(texts, repeat(None) if speakers is None else speakers))
        for _, proc in self._before:
            docs = proc.pipe(docs, batch_size=batch_size) if hasattr(proc, "pipe") else map(proc, docs)
        for doc in docs:
            self.state = self.component.read_in_stream(doc, self.state)
            for _, proc in self._after:
                doc = proc(doc)
            if self.table is not None:
                self.table.add(doc, self.state.texts_read - 1, self.state.tokens_read - len(doc))
            yield doc

    def _make_doc(self, text: Union[str, Doc], speaker: Optional[str]) -> Doc:
        if isinstance(text, Doc):
            doc = text
        elif isinstance(text, str):
            doc = self.nlp.make_doc(text)
        else:
            raise TypeError(f"[spacy-entmem] Reader: expected a str or a Doc, got {type(text).__name__}")
        if speaker is not None:
            doc._.speaker = str(speaker)
        return doc

    # -- what the stream holds ------------------------------------------------------------------------
    @property
    def texts_read(self) -> int:
        return 0 if self.state is None else self.state.texts_read

    @property
    def tokens_read(self) -> int:
        return 0 if self.state is None else self.state.tokens_read

    def entities(self, kind: Optional[str] = None, merge_characters: bool = True) -> List[Entity]:
        """The stream's entities so far, most mentioned first (``kind``: only "person", "place",
        "organisation" or "other"; ``merge_characters``: one row per character, see ``EntityTable.entities``)."""
        if self.table is None:
            raise ValueError("[spacy-entmem] Reader(keep_entities=False) keeps no entity table")
        return self.table.entities(kind, merge_characters=merge_characters)

    def reset(self) -> None:
        """Start a new stream: an empty memory, entity ids from 0, no entities."""
        self.state = None
        self.table = EntityTable() if self.keep_entities else None

    # -- serialisation ----------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The stream's state (memory, entity counter, entity table): ``from_bytes`` on a reader of the same
        pipeline resumes the stream exactly."""
        return srsly.msgpack_dumps({
            "format": STATE_FORMAT,
            "fingerprint": self.fingerprint,
            "memory": self.memory_name,
            "state": None if self.state is None else self.state.to_dict(),
            "entities": None if self.table is None else self.table.to_list(),
        })

    def from_bytes(self, data: bytes) -> "Reader":
        try:
            msg = srsly.msgpack_loads(data)
        except Exception as error:
            raise ValueError(f"[spacy-entmem] Reader.from_bytes: not a reader state ({error})") from error
        if not isinstance(msg, dict) or msg.get("format") != STATE_FORMAT:
            found = msg.get("format") if isinstance(msg, dict) else type(msg).__name__
            raise ValueError(f"[spacy-entmem] Reader.from_bytes: not a reader state of format {STATE_FORMAT} "
                             f"(found {found!r})")
        if msg.get("fingerprint") != self.fingerprint:
            raise ValueError(
                f"[spacy-entmem] Reader.from_bytes: the state was written by another model (memory fingerprint "
                f"{msg.get('fingerprint')!r}, this pipeline's '{self.memory_name}' is {self.fingerprint!r}); a "
                "stream can only be resumed by the pipeline that read it")
        self.state = None if msg["state"] is None else CarriedMemory.from_dict(msg["state"])
        if self.keep_entities:
            self.table = EntityTable.from_list(msg["entities"] or [])
        return self
