"""Cheap, symbolic attributes of candidate mentions (no torch): what the mention memory compares with its
cells besides the span vectors — pronoun person / number / gender, gender cues of nominals (honorifics and
kinship words), a normalised string and a head word for string matching, whether the mention sits inside a
quotation, and whether it looks like a proper name.

English pronouns are a closed class, so a word list serves and no tagger has to run. Strings become ids
through ``StringIds`` (hashes), so the memory compares integers.
"""
from typing import AbstractSet, Dict, Iterable, List, Optional, Tuple

import numpy
from spacy.attrs import IS_TITLE, LOWER, ORTH, SENT_START, TAG
from spacy.tokens import Doc

from . import switches, syntax
from .binding import bound_subject_end
from .columns import ATTRIBUTE_FIELDS, N_NAME_WORDS, N_OF_WORDS
from .lexicon import HONORIFICS, LEADING_WORDS, NARRATOR_VOICE, NO_NAME_WORDS, NO_NOMINAL, NUMBER_OF_TAG_ID, PLURAL_NOUN_TAG, PROPER_NOUN_TAG_IDS, StringIds, apposed_nominals, complement_words, cue_gender, family_names, follows_sentence_boundary, given_name, head_index, name_words, names_people, speaker_gender, title_group, titled_name
from .speakers import NO_SPEAKER, candidate_speakers, narrator_addressed, read_quotations, vocatives
from .values import FIRST_SINGULAR, PERSON_NOUN, PRONOUN_CLASS, PRONOUNS, SECOND_PERSON, UNKNOWN
from .values import TIME as TIME_EXPRESSION
from .turns import read_turns, speaker_labels


NO_OF_WORDS = (-1,) * N_OF_WORDS  # (a candidate's "of" complement words, ``columns.OF_WORDS``, where it has none)


def _sentence_initial_flags(lower: List[str], sent_starts: List[bool]) -> List[bool]:
    """Per token: first of the doc or of a sentence (parsed, or ``follows_sentence_boundary``)."""
    return [i == 0 or starts or follows_sentence_boundary(lower[i - 1]) for i, starts in enumerate(sent_starts)]


def _syntax_and_turn_columns(doc: Doc, texts: List[str], spans: List[Tuple[int, int]], quoted: List[bool],
                             quotes: List[Tuple[int, int]], things: bool, reader_you: bool = False
                             ) -> Tuple[List[Tuple[int, ...]], List[int], List[Tuple[int, int, int]]]:
    """Per candidate (``texts``: the doc's token texts): its binding columns from the parse
    (``syntax.binding_columns``), its person and the id of the speaker's turn it stands in (``turns``); with
    ``things``, whether it is a place or a time expression
    (``syntax.place_or_time``; NOT_A_THING for all without); and the last columns: the root of its reporter if
    it is a reported "they" (``syntax.reporting_subject``), its grammatical role and its sentence
    (``syntax.role_and_sentence_columns``)."""
    binding = syntax.binding_columns(doc, spans) if doc.has_annotation("DEP") else syntax.no_binding(spans)
    turns, persons = read_turns(texts, quoted, quotes, spans, reader_you)
    kinds = [syntax.place_or_time(doc, start, end, columns[0])
             if things and end > start and syntax.may_be_place_or_time(texts[columns[0]]) else syntax.NOT_A_THING
             for columns, (start, end) in zip(binding, spans)]
    reporters = [syntax.reporting_subject(doc, start, end) if end - start == 1 and texts[start].lower() == "they"
                 else syntax.NO_TOKEN for start, end in spans]  # (only a "they" has one: no Token made for the rest)
    roles = syntax.role_and_sentence_columns(doc, [columns[0] for columns in binding])
    return [columns + (person, turns[start] if start < len(turns) else -1)
            for columns, person, (start, _) in zip(binding, persons, spans)], kinds, \
        [(reporter,) + role for reporter, role in zip(reporters, roles)]


def speaker_voice(doc: Doc, ids: StringIds) -> Tuple[int, Tuple[int, ...]]:
    """The voice of the doc's unquoted I / me / my (``mention_memory.VOICE``: 0 for an unnamed narrator, 1 + the
    speaker's id where ``doc._.speaker`` names who says the text) and the ids of the speaker's name words (its
    lowercased words but honorifics; -1 padded)."""
    speaker = doc._.speaker if Doc.has_extension("speaker") else None
    return named_voice(str(speaker), ids) if speaker else (NARRATOR_VOICE, NO_NAME_WORDS)


def named_voice(speaker: str, ids: StringIds) -> Tuple[int, Tuple[int, ...]]:
    """The voice of a named speaker (1 + the id of the name) and the ids of its name words (lowercased, honorifics
    left out, -1 padded)."""
    words = [word for word in speaker.lower().split() if word not in HONORIFICS][:N_NAME_WORDS]
    names = tuple(ids(word) for word in words)
    return ids(" ".join(speaker.split())) + 1, names + NO_NAME_WORDS[len(names):]


def label_voices(texts: List[str], ids: StringIds) -> List[Optional[Tuple[int, Tuple[int, ...]]]]:
    """Per token, with the ``labelled_voices`` switch, the voice of the speaker label whose turn it stands in ("Nurse: How
    are you? / Patient: My daughter …": "My" is the patient's; ``named_voice``); None before the first label and
    in a text without labels."""
    voices: List[Optional[Tuple[int, Tuple[int, ...]]]] = [None] * len(texts)
    labels = speaker_labels(texts) if switches.active().labelled_voices else []
    for (start, end), (following, _) in zip(labels, labels[1:] + [(len(texts), len(texts))]):
        voice = named_voice(" ".join(texts[start:end]), ids)
        voices[end:following] = [voice] * (following - end)
    return voices


def mention_attributes(doc: Doc, spans: Iterable[Tuple[int, int]], ids: StringIds,
                       name_genders: Optional[Dict[str, int]] = None,
                       inanimate_nouns: Optional[AbstractSet[str]] = None,
                       person_nouns: Optional[AbstractSet[str]] = None, reader_you: bool = False) -> numpy.ndarray:
    """(M, len(ATTRIBUTE_FIELDS)) int64, one row per candidate span [start, end) of ``doc``: norm (id of the
    lowercased text without a leading article or demonstrative; -1 for a pronoun), head (id of the lowercased
    head word; -1 for a pronoun), pronoun class (0: not a pronoun), gender (UNKNOWN / MASCULINE / FEMININE /
    NEUTER), number (UNKNOWN / SINGULAR / PLURAL), quoted (1 inside a quotation), proper (1 if a word other
    than a sentence-initial one is capitalised). ``name_genders`` (given name → gender, see
    ``corpora.name_genders``) gives a gender to names that carry no honorific or kinship cue. Last column:
    inanimate (1 if the mention has no gender and its head word is in ``inanimate_nouns``, see
    ``corpora.inanimate_nouns``: "Bletchley Park", "mathematics"; always 0 without the list; ``PERSON_NOUN`` if
    it has none of these and its head word is in ``person_nouns``: "the gardener"); noun number
    (a nominal's head word tagged NN / NNP: SINGULAR, NNS / NNPS: PLURAL; UNKNOWN for pronouns, other tags
    and docs without tags)."""
    # the token attributes as arrays: no Token objects (quotes and line breaks have no case, so the
    # lowercased words serve for the quotation flags)
    columns = doc.to_array([LOWER, IS_TITLE, SENT_START]).reshape(-1, 3).tolist() if len(doc) else []
    strings = doc.vocab.strings
    lower = [strings[row[0]] for row in columns]
    titles = [bool(row[1]) for row in columns]
    sent_starts = [row[2] == 1 for row in columns] if doc.has_annotation("SENT_START") else [False] * len(doc)
    # tag hashes, looked up only at the candidates' head words
    tags = doc.to_array([TAG]).tolist() if doc.has_annotation("TAG") else [0] * len(doc)
    quoted, quotes = read_quotations(lower)
    initial = _sentence_initial_flags(lower, sent_starts)
    capitalised = [title and not first for title, first in zip(titles, initial)]
    spans = [(int(start), int(end)) for start, end in spans]
    first_person = [end - start == 1 and PRONOUN_CLASS.get(lower[start]) == FIRST_SINGULAR and quoted[start]
                    for start, end in spans]
    second_person = [end - start == 1 and PRONOUN_CLASS.get(lower[start]) == SECOND_PERSON and quoted[start]
                     for start, end in spans]
    called = vocatives(lower, quoted, spans, [end - start == 1 and lower[start] in PRONOUN_CLASS
                                              for start, end in spans])
    speakers = narrator_addressed(lower, quoted, candidate_speakers(
        lower, spans, first_person, quotes, [you or vocative for you, vocative in zip(second_person, called)]), called)
    family = family_names(lower, titles, capitalised, name_genders.keys()) if name_genders else {}
    nominals = apposed_nominals(lower, capitalised, tags, spans, inanimate_nouns)
    texts = [strings[orth] for orth in doc.to_array(ORTH).tolist()] if len(doc) else []  # (no Token objects)
    extra, things, last_columns = _syntax_and_turn_columns(doc, texts, spans, quoted, quotes,
                                                        things=inanimate_nouns is not None, reader_you=reader_you)
    voice, speaker_names = speaker_voice(doc, ids)
    labelled = label_voices(texts, ids)
    rows = []
    for start, end in spans:
        words = lower[start:end]
        pronoun = PRONOUN_CLASS.get(words[0], 0) if len(words) == 1 else 0
        if pronoun:
            _, number, gender = PRONOUNS[words[0]]
            if switches.active().speaker_genders and speakers[len(rows)] != NO_SPEAKER and not gender:
                s0, s1 = speakers[len(rows)]  # a quoted I / you is as its speaker / addressee is
                gender = speaker_gender(lower[s0:s1], titles[s0:s1], name_genders)
            bound_end = bound_subject_end(lower, tags, start)
            narrating = pronoun == FIRST_SINGULAR and not quoted[start]  # the narrator's or the speaker's I
            own_voice, own_names = labelled[start] if narrating and labelled[start] else (voice, speaker_names)
            rows.append((-1, -1, pronoun, gender, number, int(quoted[start]), 0, 0, UNKNOWN, bound_end, 0)
                        + (own_names if narrating else NO_NAME_WORDS) + speakers[len(rows)] + NO_NOMINAL
                        + extra[len(rows)] + (own_voice,) + last_columns[len(rows)] + (0,) + NO_OF_WORDS)
            continue
        content = words[1:] if len(words) > 1 and words[0] in LEADING_WORDS else words
        head = head_index(words)
        gender = cue_gender(words[: head + 1], titles[start:start + head + 1], name_genders or frozenset())
        cased = titles[start:end]
        mention_names = name_words(words, cased, head) if any(cased) else []
        if not gender and name_genders:
            first_name = given_name(words, cased)
            family_name = len(mention_names) == 1 and family.get(first_name, len(doc)) <= start
            gender = UNKNOWN if family_name else name_genders.get(first_name, UNKNOWN)
        inanimate = 0
        title = title_group(words, cased, head) if mention_names else 0
        if inanimate_nouns is not None:  # the animacy rule is on
            thing = things[len(rows)]
            if thing == TIME_EXPRESSION and not title:  # ("Mrs. March", "Aunt May": a person, not a month)  # "on Friday", "in June": no name, whatever the name lexicon says
                inanimate, gender = TIME_EXPRESSION, UNKNOWN
            elif not gender:
                inanimate = thing or int(words[head] in inanimate_nouns)
                if not inanimate and person_nouns is not None and names_people(
                        words[head], tags[start + head] == PLURAL_NOUN_TAG, person_nouns) and not (
                        switches.active().person_nouns_not_names and tags[start + head] in PROPER_NOUN_TAG_IDS):
                    inanimate = PERSON_NOUN
        proper = any(capitalised[start:end])
        noun_number = NUMBER_OF_TAG_ID.get(tags[start + head], UNKNOWN)
        names = [ids(word) for word in mention_names[:N_NAME_WORDS]]
        titled = int(bool(names) and titled_name(words, cased, head))
        complement = [ids(word) for word in complement_words(words, cased, head)[:N_OF_WORDS]] if names else []
        rows.append((ids(" ".join(content)), ids(words[head]), 0, gender, UNKNOWN, int(quoted[start]),
                     int(proper), inanimate, noun_number, -1, titled) + tuple(names) + NO_NAME_WORDS[len(names):]
                    + speakers[len(rows)] + nominals[len(rows)] + extra[len(rows)] + (voice,) + last_columns[len(rows)]
                    + (title,) + tuple(complement) + NO_OF_WORDS[len(complement):])
    return numpy.asarray(rows, dtype="int64").reshape(-1, len(ATTRIBUTE_FIELDS))

