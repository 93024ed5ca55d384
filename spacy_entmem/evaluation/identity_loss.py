"""Where a stream loses who is who: the memory's log replayed over a whole book.

``IdentityLog.add(doc, offset)`` reads each text's memory log (per candidate: action, cell, entity id, span) in
stream order and replays which entity each cell holds. ``summary(key)`` then counts, for a book with a character
key (``character_keys``):

- evictions: new entities that took a cell another entity held; how many of the evicted entities had ten or more
  mentions, how many belonged to a keyed character who is named again later, and how long they had been idle;
- restarts: a keyed character's name that began a new entity although the character had one already, split by
  whether one of that character's entities was still in a cell (``restart_live``) or none was
  (``restart_evicted``); and, with no key, a mention that is a full name and nothing more ("Jo March", not "Tom
  Redruth or young Hawkins") that began a new entity while an entity an earlier such mention belongs to was in a
  cell (``full_name_restart_live``);
- new entities that stayed singletons, by what they are: a speaker's I / you / we, a vocative or "my dear", a span
  of five or more tokens, a span holding another mention, a name, another pronoun, another nominal;
- joins across more than ``TRAINING_SPAN`` tokens (longer than any training document).
"""
from collections import Counter
from dataclasses import dataclass
from statistics import median
from typing import Dict, List, Optional

from spacy.tokens import Doc

from ..pipeline.memory_log import COREF, IGNORE, OVERWRITE
from ..linguistics.lexicon import HONORIFICS, LEADING_WORDS, TITLE_GROUPS
from .character_keys import CharacterKey, mention_name

TRAINING_SPAN = 2500  # tokens: LitBank's documents are about 2,000 words, the longest training texts shorter
SPEAKER_WORDS = {"i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "we", "us", "our", "ours"}
PRONOUN_WORDS = SPEAKER_WORDS | {"he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "they",
                                 "them", "their", "theirs", "themselves", "itself"}
VOCATIVE_BEFORE = {",", "“", '"', "oh", "o", "!", "‘", "'"}
VOCATIVE_AFTER = {",", "!", "?", "”", '"'}
SINGLETON_KINDS = ("speaker I / you / we", "vocative or 'my dear'", "five or more tokens", "holds another mention",
                   "name", "other pronoun", "other nominal")


@dataclass
class Step:
    position: int  # stream token of the candidate's start
    end: int
    action: int
    cell: int
    entity: int
    text: str
    kind: str  # the singleton kind it would have (SINGLETON_KINDS)


def mention_kind(doc: Doc, start: int, end: int, nested: bool) -> str:
    """What a mention is, for the singleton breakdown (the first kind of ``SINGLETON_KINDS`` that fits)."""
    words = [token.lower_ for token in doc[start:end]]
    if len(words) == 1 and words[0] in SPEAKER_WORDS:
        return SINGLETON_KINDS[0]
    before = doc[start - 1].lower_ if start > 0 else ""
    after = doc[end].lower_ if end < len(doc) else ""
    if words[0] == "my" and len(words) > 1 and words[1] == "dear" or words[0] == "dear" or (
            before in VOCATIVE_BEFORE and after in VOCATIVE_AFTER and words[0] not in PRONOUN_WORDS):
        return SINGLETON_KINDS[1]
    if len(words) >= 5:
        return SINGLETON_KINDS[2]
    if nested:
        return SINGLETON_KINDS[3]
    if len(words) == 1 and words[0] in PRONOUN_WORDS:
        return SINGLETON_KINDS[5]
    if any(token.is_title for token in doc[start:end]) and not doc[start].is_sent_start or doc[start].tag_ in (
            "NNP", "NNPS"):
        return SINGLETON_KINDS[4]
    return SINGLETON_KINDS[6]


def full_name(text: str) -> Optional[tuple]:
    """The lowercased name words of a mention that is a full name and nothing more: an optional title, then
    two or more capitalised name words ("Jo March", "Mr. Theodore Laurence"; not "poor Jim Hawkins", "Ben Gunn's
    the man", "Alexander Smollett, master", "A Millennium Fulcrum Edition", "PROJECT GUTENBERG"); else None."""
    words = text.split()
    if words and (words[0].lower() in TITLE_GROUPS or words[0].lower() in HONORIFICS):
        words = words[1:]
    if len(words) < 2 or words[0].lower() in LEADING_WORDS or text.isupper() or not all(
            word[:1].isupper() and word.replace("-", "").replace("'", "").replace("’", "").isalpha() for word in words):
        return None
    return tuple(word.lower() for word in words)


class IdentityLog:
    """The steps of a stream's memory, text after text (see the module docstring)."""

    def __init__(self) -> None:
        self.steps: List[Step] = []

    def add(self, doc: Doc, offset: int) -> None:
        log = doc._.entity_memory_log
        if not log or "spans" not in log or "entity_id" not in log:
            raise ValueError("[spacy-entmem] IdentityLog: the doc has no span memory log with entity ids")
        spans = log["spans"].tolist()
        acted = [(s, e) for (s, e), a in zip(spans, log["action"].tolist()) if a != IGNORE]
        for (start, end), action, cell, entity in zip(spans, log["action"].tolist(), log["cell"].tolist(),
                                                      log["entity_id"].tolist()):
            if action == IGNORE:
                continue
            nested = any(s >= start and e <= end and (s, e) != (start, end) for s, e in acted
                         if s < end and e > start)
            self.steps.append(Step(offset + start, offset + end, action, cell, entity, doc[start:end].text,
                                   mention_kind(doc, start, end, nested)))

    def summary(self, key: Optional[CharacterKey] = None) -> Dict[str, object]:
        index = key.name_index() if key is not None else {}
        counts = Counter(step.entity for step in self.steps)
        character_of_entity: Dict[int, Counter] = {}
        last_named: Dict[str, int] = {}
        characters = [index.get(mention_name(step.text)) for step in self.steps]
        for step, character in zip(self.steps, characters):
            if character is not None:
                character_of_entity.setdefault(step.entity, Counter())[character] += 1
                last_named[character] = step.position
        cells: Dict[int, int] = {}  # cell -> entity it holds
        last_use: Dict[int, int] = {}  # entity -> stream token of its last mention
        seen: Dict[int, int] = Counter()  # entity -> mentions so far
        character_entities: Dict[str, set] = {}
        evictions, big_evicted, main_evicted, idle = 0, 0, 0, []
        restart_live = restart_evicted = full_name_restarts = 0
        restarted_names: List[str] = []  # the full names that began a second entity, in stream order
        full_name_entities: Dict[tuple, set] = {}  # a full name ("Jo March") -> the entities it was a mention of
        long_joins = joins = 0
        for step, character in zip(self.steps, characters):
            full = full_name(step.text)
            if step.action == OVERWRITE:
                evicted = cells.get(step.cell)
                if evicted is not None and evicted != step.entity:
                    evictions += 1
                    idle.append(step.position - last_use.get(evicted, step.position))
                    big_evicted += seen[evicted] >= 10
                    named = character_of_entity.get(evicted)
                    if named and last_named.get(named.most_common(1)[0][0], -1) > step.position:
                        main_evicted += 1
                if full is not None and full_name_entities.get(full, set()) & (
                        set(cells.values()) - {cells.get(step.cell)}):
                    full_name_restarts += 1  # (the entity the new one evicts was in memory until this step)
                    restarted_names.append(f"{step.text} @{step.position}")
                if character is not None and character_entities.get(character, set()) - {step.entity}:
                    held = set(cells.values())
                    if character_entities[character] & held:
                        restart_live += 1
                    else:
                        restart_evicted += 1
                cells[step.cell] = step.entity
            elif step.action == COREF:
                joins += 1
                long_joins += step.position - last_use.get(step.entity, step.position) > TRAINING_SPAN
                cells[step.cell] = step.entity
            if character is not None:
                character_entities.setdefault(character, set()).add(step.entity)
            if full is not None:
                full_name_entities.setdefault(full, set()).add(step.entity)
            last_use[step.entity] = step.end
            seen[step.entity] += 1
        new_entities = sum(step.action == OVERWRITE for step in self.steps)
        first_step = {}
        for step in self.steps:
            first_step.setdefault(step.entity, step)
        singletons = Counter(first_step[e].kind for e, n in counts.items() if n == 1)
        return {
            "mentions": len(self.steps),
            "new_entities": new_entities,
            "singletons": sum(singletons.values()),
            "singleton_kinds": {kind: singletons.get(kind, 0) for kind in SINGLETON_KINDS},
            "evictions": evictions,
            "evicted_with_10_mentions": big_evicted,
            "evicted_keyed_character_named_later": main_evicted,
            "median_idle_of_evicted": median(idle) if idle else 0,
            "restart_live": restart_live,
            "restart_evicted": restart_evicted,
            "full_name_restart_live": full_name_restarts,
            "full_name_restarts_at": restarted_names,
            "joins": joins,
            "joins_past_training_span": long_joins,
        }
