"""Binding theory read off a dependency parse (spaCy's ClearNLP labels, as en_core_web_sm's parser gives them):
which earlier noun phrases a candidate mention can never refer to, and which one a reflexive must.

- Principle B: a non-reflexive personal pronoun is not a co-argument of its own predicate, nor its understood
  subject: "The pilot thanked the mechanic and paid him" (the coordinated "paid" has the pilot as subject),
  "Mary asked John to help her" (John, the controller of "help"), "he gave him", "the man who saw him".
  Prepositions of place are left out ("John saw a snake near him" may be John).
- Principle C: a name or a nominal is not a third-person pronoun that c-commands it: "He said that John left",
  "She met the doctor" (the subject and the objects of every clause above it; a coordinated clause with a
  subject of its own is not below the first one's arguments).
- i-within-i: a noun phrase is not its own possessor ("his mother" is not "his").
- Principle A: a reflexive's antecedent is its predicate's (understood) subject: "Tom saw himself".

Each candidate is named by its root token (the token of the span whose head lies outside it), so the constraints
hold between candidates whatever their exact boundaries. A doc without a parse gives no constraint.
"""
from typing import AbstractSet, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple, Union

import numpy
from spacy.attrs import DEP, HEAD, LOWER, SENT_START
from spacy.tokens import Doc, Token

from . import switches
from .binding import PLACE_PREPOSITIONS
from .lexicon import COMMON_NOUN_TAGS, names_people
from .switches import PRINCIPLES  # noqa: F401  (read as syntax.PRINCIPLES)
from .values import (N_ROLES, NO_ROLE, NO_SENTENCE, NOT_A_THING, OBJECT, OBLIQUE,  # noqa: F401
                     OTHER_ROLE, PLACE, POSSESSOR, PRONOUNS, SUBJECT, TIME)

SUBJECTS = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
# a small clause or non-finite complement whose subject takes the main verb's case ("let her use", "wished him well")
SMALL_CLAUSES = {"ccomp", "xcomp", "oprd"}
OWN = {"own"}  # the one adjective a possessor stands before ("her own")
# what the parser makes of a small clause's object where it read the clause's verb as a noun ("paint the fence")
MISREAD_OBJECTS = {"appos", "dobj", "oprd"}
OBJECTIVE_PRONOUNS = {"him", "her", "them", "me", "us"}
FINITE_TAGS = {"VBD", "VBZ", "VBP", "MD"}
OBJECTS = {"dobj", "dative", "iobj", "oprd"}
ARGUMENT_PREPOSITIONS = {"prep", "agent", "dative"}
# clause heads whose missing subject is the head clause's: "and paid him", "before paying him", "to help him"
SUBJECT_SHARING = {"conj", "xcomp", "advcl", "acl"}
# a clause a bracket opens shares no subject ("spurring my horse (sent me from home …)": a reduced relative the
# parser may attach as a conjunct; seventh round, an ablation's switch)
OPENING_BRACKETS = {"(", "["}
RELATIVE_PRONOUNS = {"who", "whom", "that", "which"}
REFLEXIVES = {"myself", "yourself", "himself", "herself", "itself", "ourselves", "yourselves", "themselves",
              "oneself", "thyself"}
# the pronouns principle C reads ("her" as an object; possessors are left out; "it" is often an expletive:
# "it is clear that the plan failed")
THIRD_PERSON = {"he", "him", "she", "her", "they", "them"}
PERSONAL = THIRD_PERSON | {"it", "i", "me", "we", "us", "you"}
# a noun phrase in these relations says something of another one, or names it again: "He is a doctor", "he,
# a patriotic islander", "proclaiming himself Emperor" (no principle C)
PREDICATIVE = {"attr", "oprd", "appos", "npadvmod", "acomp", "dep", "xcomp", "ccomp"}
# an object pronoun the parser can read as a possessor ("She sent her the letter": "her" made the possessor of
# "letter"), and the determiners no possessed noun also has ("her the letter" cannot be one noun phrase)
POSSESSOR_LOOKALIKES = {"her", "him", "me", "us", "them"}
ARTICLES = {"a", "an", "the", "this", "that", "these", "those"}
MAX_FORBIDDEN = 4  # constraints kept per candidate (the nearest first)
NO_TOKEN = -1


def span_root(doc: Doc, start: int, end: int) -> int:
    """The root token of doc[start:end] (the first whose head lies outside the span; ``root_of`` over the span's
    heads)."""
    return root_of({i: doc[i].head.i for i in range(start, end)}, start, end)


def is_verb(token: Token) -> bool:
    """A verb or auxiliary by its coarse tag, else by its fine one (VB*, MD: a pipeline with a tagger and no
    attribute ruler, as the shipped default, sets only the fine tags)."""
    return token.pos_ in {"VERB", "AUX"} or token.tag_.startswith("VB") or token.tag_ == "MD"


def is_noun(token: Token) -> bool:
    """A noun or a name by its coarse tag, else by its fine one (NN*)."""
    return token.pos_ in {"NOUN", "PROPN"} or token.tag_.startswith("NN")


def _subjects(verb: Token) -> List[Token]:
    return [child for child in verb.children if child.dep_ in SUBJECTS]


def understood_subjects(verb: Token, depth: int = 0) -> List[Token]:
    """The subject of ``verb``'s clause: its own, else the one it shares with the clause it hangs from (a
    coordinated verb phrase, an adjunct or controlled infinitive: the object controls where the head has one,
    "asked John to help" → John; a relative clause's relative pronoun stands for the noun it modifies)."""
    own = _subjects(verb)
    if own:
        relative = [s for s in own if s.lower_ in RELATIVE_PRONOUNS and verb.dep_ == "relcl"]
        return own + ([verb.head] if relative else [])
    if verb.dep_ == "relcl":
        return [verb.head]
    if verb.dep_ == "pcomp" and verb.head.dep_ == "prep" and depth < 6:  # "before paying him"
        return understood_subjects(verb.head.head, depth + 1)
    if verb.dep_ in SUBJECT_SHARING and verb.head.i != verb.i and depth < 6 and not bracketed(verb):
        if verb.dep_ == "xcomp":
            objects = [child for child in verb.head.children if child.dep_ in {"dobj", "dative"}]
            if objects:
                return objects
        if verb.dep_ == "acl" and is_noun(verb.head):
            return []  # "a reason to like him": no subject to share
        return understood_subjects(verb.head, depth + 1)
    return []


def bracketed(verb: Token) -> bool:
    """Whether an opening bracket attached to ``verb`` stands before it (with the ``brackets`` switch): a
    parenthetical clause, whose missing subject is not the clause's it interrupts."""
    return switches.active().brackets and any(child.i < verb.i and child.dep_ == "punct"
                                           and child.text in OPENING_BRACKETS for child in verb.children)


def misread_dative(token: Token) -> Optional[Token]:
    """The verb whose dative ``token`` is, where the parser made an object pronoun the possessor of the verb's
    object although an article stands between them ("She sent her the letter", "He bought her a car": a noun
    with an article has no possessor before it); None otherwise (and without the ``datives`` switch)."""
    if not switches.active().datives or token.dep_ != "poss" or token.lower_ not in POSSESSOR_LOOKALIKES:
        return None
    noun = token.head
    if not any(child.lower_ in ARTICLES and token.i < child.i < noun.i for child in noun.children):
        return None
    verb = noun.head
    if noun.dep_ in OBJECTS and verb.i != noun.i and is_verb(verb):
        return verb
    return None


def governing_predicate(token: Token) -> Optional[Token]:
    """The predicate ``token`` is an argument of: the verb it is the subject or object of (or the dative of,
    ``misread_dative``), or whose argument preposition it is the object of (not a preposition of place); None
    otherwise."""
    if token.dep_ in SUBJECTS or token.dep_ in OBJECTS:
        return token.head
    if token.dep_ == "poss":
        return misread_dative(token)
    if token.dep_ == "pobj":
        preposition = token.head
        if preposition.lower_ in PLACE_PREPOSITIONS or preposition.dep_ not in ARGUMENT_PREPOSITIONS:
            return None
        if is_verb(preposition.head):
            return preposition.head
    return None


def small_clause_matrix(token: Token) -> Optional[Token]:
    """For an objective pronoun that the parse makes the subject of a clause that is not finite ("let her use the
    shed", "made him feel welcome", "expected them to win", "wished him well"), the main verb it is then an
    argument of for principle B (exceptional case marking: its case is the main verb's); else None."""
    clause = token.head
    if token.dep_ not in SUBJECTS or token.lower_ not in OBJECTIVE_PRONOUNS or clause.dep_ not in SMALL_CLAUSES \
            or clause.head.i == clause.i or not is_verb(clause.head) or clause.tag_ in FINITE_TAGS:
        return None
    if any(child.dep_ == "mark" or (child.dep_ in {"aux", "auxpass"} and child.tag_ in FINITE_TAGS)
           for child in clause.children):
        return None  # "said that him …" misread, "knew whether …", "thought she would …"
    return clause.head


# Measured reason (dev did not move: LitBank 62.74 / 50.65, GUM 49.69 / 38.69 with and without it; 3 gold dev pairs,
# none wrong): the suite's small clauses, whose failures were all this misparse (seventh set 66.7 -> 91.7 %, eighth
# 89.3 -> 97.6 %, ninth 91.7 -> 100 %; docs/grammar.md, issue 73's third round).
def misread_small_clause(token: Token) -> Optional[Token]:
    """For an objective pronoun the parser made the possessor of a small clause's verb read as a noun ("watched
    her paint the fence": "her" PRP$ of the noun "paint", "the fence" its apposition or a second object of
    "watched" right after it; "made her smile": the noun "smile" a clausal complement) or of its adjective
    ("deemed her trustworthy": an adjective has no possessor), the main verb it is then an argument of
    (``small_clause_matrix``); None for a possessor of a noun ("watched her dog", "made her own bed", "heard her
    story": a noun with no object of its own and no clause's place; "saw her brother leave": a noun subject of a
    verb) and without the ``small_clause_subjects`` switch."""
    if not switches.active().small_clause_subjects or token.dep_ != "poss" \
            or token.lower_ not in POSSESSOR_LOOKALIKES:
        return None
    noun = token.head
    if noun.i != token.i + 1 or any(child.i < noun.i and child.i != token.i for child in noun.children):
        return None  # "her own bed", "her little dog": a possessor
    head = noun.head
    if noun.dep_ == "nsubj" and head.i > noun.i and head.dep_ in SMALL_CLAUSES and head.tag_ in COMMON_NOUN_TAGS:
        matrix = head.head  # "saw her paint the fence" read as "her paint", subject of a clause "the fence" (not
        # "found her power inadequate": a possessor in the small clause's subject)
    elif noun.tag_ == "JJ" and noun.lower_ not in OWN and noun.dep_ in SMALL_CLAUSES | OBJECTS:
        matrix = head  # "deemed her trustworthy": an adjective has no possessor (not "made her own")
    elif noun.dep_ in SMALL_CLAUSES or (noun.dep_ in OBJECTS and (
            any(child.i > noun.i and child.dep_ in MISREAD_OBJECTS for child in noun.children)
            or any(other.dep_ == "dobj" and other.left_edge.i == noun.i + 1 for other in head.children))):
        matrix = head  # "made her smile", "watched her paint the fence", "spotted her climb the wall" (two objects)
    else:
        return None
    return matrix if matrix.i < token.i and is_verb(matrix) else None


def coarguments(predicate: Token, token: Token) -> List[Token]:
    """The other arguments of ``predicate``: (understood) subjects, objects, objects of argument prepositions;
    none where the predicate has two subjects (a misparse)."""
    if len(_subjects(predicate)) > 1:
        return []
    found = list(understood_subjects(predicate))
    for child in predicate.children:
        if child.dep_ in OBJECTS:
            found.append(child)
        elif child.dep_ in ARGUMENT_PREPOSITIONS and child.lower_ not in PLACE_PREPOSITIONS:
            found.extend(grand for grand in child.children if grand.dep_ == "pobj")
    # two subjects of one verb are a disfluency or a misparse ("I I can just", "did you — did you")
    return [other for other in found if other.i != token.i
            and not (other.dep_ in SUBJECTS and token.dep_ in SUBJECTS)]


class ParseArrays(NamedTuple):
    """A doc's parse as lists (no Token objects): each token's head (a root its own), dependency label,
    lowercased word and children (in order)."""

    heads: List[int]
    deps: List[str]
    lower: List[str]
    children: List[List[int]]


def parse_arrays(doc: Doc) -> ParseArrays:
    """``doc``'s parse read once as lists (``ParseArrays``)."""
    heads = token_heads(doc)
    strings = doc.vocab.strings
    deps = [strings[dep] for dep in doc.to_array(DEP).tolist()] if len(doc) else []
    lower = [strings[key] for key in doc.to_array(LOWER).tolist()] if len(doc) else []
    children: List[List[int]] = [[] for _ in heads]
    for i, head in enumerate(heads):
        if head != i:
            children[head].append(i)
    return ParseArrays(heads, deps, lower, children)


def c_commanding_pronouns(parse: ParseArrays, i: int) -> List[int]:
    """Third-person pronouns that c-command token ``i``: the subjects and objects of each clause above it (not
    the possessors; a coordinated clause with a subject of its own stops the climb)."""
    heads, deps, lower, children = parse
    found: List[int] = []
    if deps[i] in PREDICATIVE or (deps[i] == "conj" and deps[heads[i]] in PREDICATIVE):
        return found
    node = i
    for _ in range(40):
        head = heads[node]
        if head == node:
            break
        if deps[node] == "conj" and any(deps[child] in SUBJECTS for child in children[node]):
            break
        found.extend(child for child in children[head] if child != node and (
            deps[child] in SUBJECTS or deps[child] in OBJECTS) and lower[child] in THIRD_PERSON)
        node = head
    return found


def _nearest_first(found: Iterable[int], root: int, start: int, end: int) -> List[int]:
    """``found`` (token indices) without repeats, the root and the tokens of [start, end), nearest the root
    first (ties in their order in ``found``)."""
    seen: Set[int] = set()
    kept = []
    for other in sorted(found, key=lambda i: abs(i - root)):
        if other != root and other not in seen and not start <= other < end:
            seen.add(other)
            kept.append(other)
    return kept


def nominal_forbidden(parse: ParseArrays, start: int, end: int, root: int,
                      commanding: Optional[Dict[int, List[int]]] = None) -> List[int]:
    """``forbidden_antecedents`` of a name or noun phrase [start, end) with root token ``root`` (principle C and
    i-within-i); ``commanding``: a cache of the c-commanding pronouns by root, nearest first, shared by the
    candidates of one doc (many overlapping candidates share a root)."""
    found: List[int] = []
    if "C" in switches.active().principles:
        if commanding is None:
            commanding = {}
        if root not in commanding:
            commanding[root] = _nearest_first(c_commanding_pronouns(parse, root), root, root, root)
        found = [i for i in commanding[root] if not start <= i < end]
    poss = [child for child in parse.children[root] if parse.deps[child] == "poss" and start <= child < end] \
        if end - start > 1 and "i-within-i" in switches.active().principles else []
    return (poss + [i for i in found if i not in poss])[:MAX_FORBIDDEN]


def forbidden_antecedents(doc: Doc, start: int, end: int, root_index: Optional[int] = None,
                          parse: Optional[ParseArrays] = None) -> List[int]:
    """Root tokens of the noun phrases the candidate doc[start:end] can never refer to (principles B and C,
    i-within-i), nearest first; empty without a parse. ``root_index``: the span's root if known already;
    ``parse``: the doc's ``parse_arrays`` if read already."""
    if not doc.has_annotation("DEP"):
        return []
    root = doc[span_root(doc, start, end) if root_index is None else root_index]
    if end - start > 1 or root.lower_ not in PRONOUNS:  # a name or a noun phrase, no lone pronoun
        return nominal_forbidden(parse_arrays(doc) if parse is None else parse, start, end, root.i)
    found: List[Token] = []
    if root.lower_ in PERSONAL and "B" in switches.active().principles:  # (a possessor has no predicate)
        predicate = governing_predicate(root)
        if predicate is not None:
            found.extend(coarguments(predicate, root))
            matrix = small_clause_matrix(root) if switches.active().small_clause_subjects else None
        else:  # "watched her paint the fence", "her" parsed a possessor: the small clause's subject all the same
            matrix = misread_small_clause(root)
        if matrix is not None:  # the main verb's arguments (the token stands for none of its subjects)
            found.extend(coarguments(matrix, matrix))
    return _nearest_first([other.i for other in found], root.i, start, end)[:MAX_FORBIDDEN]


def reflexive_binder(doc: Doc, start: int, end: int) -> int:
    """For a one-token reflexive, the root token of its predicate's (understood) subject; else NO_TOKEN."""
    if end - start != 1 or doc[start].lower_ not in REFLEXIVES or not doc.has_annotation("DEP") \
            or "A" not in switches.active().principles:
        return NO_TOKEN
    token = doc[start]
    predicate = governing_predicate(token)
    if predicate is None and token.dep_ in {"npadvmod", "appos"}:  # "Tom himself", "he did it himself"
        predicate = token.head if is_verb(token.head) else None
    if predicate is None:
        return NO_TOKEN
    subjects = [s for s in understood_subjects(predicate) if s.i != token.i and s.lower_ not in RELATIVE_PRONOUNS]
    return subjects[0].i if subjects else NO_TOKEN


def reporting_subject(doc: Doc, start: int, end: int) -> int:
    """For a one-token "they" that is the subject of a reported clause, the root token of the reporting verb's
    one subject ("The gardener said that they would come" → gardener); else NO_TOKEN (and without a parse)."""
    if end - start != 1 or doc[start].lower_ != "they" or not doc.has_annotation("DEP"):
        return NO_TOKEN
    token = doc[start]
    clause = token.head
    if token.dep_ not in SUBJECTS or clause.dep_ != "ccomp" or clause.head.i == clause.i:
        return NO_TOKEN
    subjects = [s for s in _subjects(clause.head) if s.dep_ != "expl"]
    return subjects[0].i if len(subjects) == 1 else NO_TOKEN


TIME_WORDS = set(
    "monday tuesday wednesday thursday friday saturday sunday january february march april june july august "
    "september october november december yesterday today tomorrow tonight morning afternoon evening night noon "
    "midnight dawn dusk week weekend month year decade century hour minute moment season spring summer autumn "
    "winter christmas easter".split())
# where a capitalised name after the preposition is a place: "born in Warsaw", "moved to Paris"
PLACE_PREPOSITIONS_FOR_NAMES = {"in", "into", "inside", "within", "throughout", "near"}
MOTION_VERBS = {"move", "go", "come", "travel", "return", "fly", "sail", "drive", "walk", "run", "emigrate",
                "relocate", "head", "journey", "arrive", "ride", "flee", "escape", "commute", "transfer"}


def may_be_place_or_time(root_text: str) -> bool:
    """Whether ``place_or_time`` can find anything for a mention whose root token reads ``root_text``: a time word,
    a four-digit number or a capitalised word (the others are NOT_A_THING without a look at the parse)."""
    word = root_text.lower()
    return root_text[:1].isupper() or word in TIME_WORDS or (len(word) == 4 and word.isdigit())


def place_or_time(doc: Doc, start: int, end: int, root_index: Optional[int] = None) -> int:
    """TIME for a mention headed by a time word or a year ("yesterday", "last Monday", "1895"); PLACE for a
    capitalised name that is the object of a preposition of place ("in Warsaw", "moved to Paris") or that a
    ", where" follows ("Paris, where she met …"; needs a parse); else NOT_A_THING. ``root_index``: the span's
    root if known already (``binding_columns``' first column)."""
    if end <= start:
        return NOT_A_THING
    if root_index is None:
        root_index = span_root(doc, start, end) if doc.has_annotation("DEP") else end - 1
    root = doc[root_index]
    word = root.lower_
    year = root.like_num and len(word) == 4 and word.isdigit() and word[:2] in {"17", "18", "19", "20"}
    if year or (word in TIME_WORDS and (not root.text[:1].isupper() or not doc.has_annotation("DEP")
                                        or root.dep_ in {"pobj", "npadvmod"})):
        return TIME  # a capitalised day or month only where the parse reads a time adjunct ("April said": a name)
    if not doc.has_annotation("DEP") or not root.text[:1].isupper() or root.lower_ in PRONOUNS:
        return NOT_A_THING
    if root.dep_ == "pobj":
        preposition = root.head
        if preposition.lower_ in PLACE_PREPOSITIONS_FOR_NAMES or (
                preposition.lower_ in {"to", "from"} and preposition.head.lemma_ in MOTION_VERBS):
            return PLACE
    if end + 1 < len(doc) and doc[end].text == "," and doc[end + 1].lower_ == "where":
        return PLACE
    return NOT_A_THING


def grammatical_role(token: Token) -> int:
    """The role of the noun phrase ``token`` heads: SUBJECT, OBJECT (direct, dative, attribute), POSSESSOR,
    OBLIQUE (object of a preposition or passive agent) or OTHER_ROLE; a conjunct has its first conjunct's role
    ("John and he left": both subjects) and a misread dative is an object (``misread_dative``)."""
    for _ in range(len(token.doc)):  # (a conjunct chain is acyclic: bounded all the same)
        if token.dep_ != "conj" or token.head.i == token.i:
            break
        token = token.head
    dep = token.dep_
    if dep in SUBJECTS:
        return SUBJECT
    if dep in OBJECTS or dep == "attr":
        return OBJECT
    if dep == "poss":
        return OBJECT if misread_dative(token) is not None else POSSESSOR
    if dep in {"pobj", "agent"}:
        return OBLIQUE
    return OTHER_ROLE


def role_and_sentence_columns(doc: Doc, roots: Sequence[int]) -> List[Tuple[int, int]]:
    """Per candidate root token: (its grammatical role, the index of its sentence); (NO_ROLE, NO_SENTENCE) for
    a doc without a parse (and a root of NO_TOKEN)."""
    if not doc.has_annotation("DEP"):
        return [(NO_ROLE, NO_SENTENCE)] * len(roots)
    starts = doc.to_array([SENT_START]) == 1
    starts[:1] = True
    sentence_of = (numpy.cumsum(starts) - 1).tolist()
    roles: Dict[int, int] = {}  # (overlapping candidates share roots)
    for root in roots:
        if 0 <= root < len(doc) and root not in roles:
            roles[root] = grammatical_role(doc[root])
    return [(roles[root], sentence_of[root]) if 0 <= root < len(doc) else (NO_ROLE, NO_SENTENCE) for root in roots]


def token_heads(doc: Doc) -> List[int]:
    """Each token's head (a root its own), read as one array: no Token objects."""
    return (numpy.arange(len(doc)) + doc.to_array(HEAD).astype("int64")).tolist() if len(doc) else []


def root_of(heads: Union[Sequence[int], Mapping[int, int]], start: int, end: int) -> int:
    """The first token of [start, end) whose head lies outside it, ``heads[i]`` the head of token i (a
    ``token_heads`` list, or any mapping that holds the span's tokens)."""
    for i in range(start, end):
        head = heads[i]
        if head < start or head >= end or head == i:
            return i
    return end - 1


def tree_ids(heads: Sequence[int]) -> List[int]:
    """Per token, the root of its dependency tree (pointer jumping over ``token_heads``); all 0 where the heads
    do not settle into trees."""
    heads = numpy.asarray(heads, dtype="int64")
    up = heads
    for _ in range(64):
        further = up[up]
        if (further == up).all():
            return up.tolist() if (heads[up] == up).all() else [0] * len(heads)  # (a cycle settles off roots)
        up = further
    return [0] * len(heads)


def binding_columns(doc: Doc, spans: Iterable[Tuple[int, int]]) -> List[Tuple[int, ...]]:
    """Per candidate span: (root token, binder, forbidden roots padded to MAX_FORBIDDEN with NO_TOKEN). The
    parse is read as arrays first: a candidate none of whose constraints can apply (a nominal with no third-person
    pronoun in its sentence's tree and no possessor inside it, a pronoun that is neither personal nor reflexive)
    gets its empty columns without walking the tree."""
    parse = parse_arrays(doc)
    heads, lower = parse.heads, parse.lower
    trees = tree_ids(heads)
    with_third_person = {trees[i] for i, word in enumerate(lower) if word in THIRD_PERSON}
    possessors = [dep == "poss" for dep in parse.deps]
    rows = []
    commanding: Dict[int, List[int]] = {}
    for start, end in spans:
        root = root_of(heads, start, end) if end > start else NO_TOKEN
        single = end - start == 1
        nominal = end > start and (not single or lower[root] not in PRONOUNS)
        if single and lower[root] in PERSONAL:
            forbidden = forbidden_antecedents(doc, start, end, root, parse)
        elif nominal and (trees[root] in with_third_person or any(possessors[start:end])):
            forbidden = nominal_forbidden(parse, start, end, root, commanding)
        else:
            forbidden = []  # (what ``forbidden_antecedents`` finds for it: nothing)
        binder = reflexive_binder(doc, start, end) if single and lower[start] in REFLEXIVES else NO_TOKEN
        rows.append((root, binder) + tuple(forbidden) + (NO_TOKEN,) * (MAX_FORBIDDEN - len(forbidden)))
    return rows


def no_binding(spans: Sequence[Tuple[int, int]]) -> List[Tuple[int, ...]]:
    """The columns of candidates of a doc without a parse (roots still name each span's last token)."""
    return [(end - 1, NO_TOKEN) + (NO_TOKEN,) * MAX_FORBIDDEN for _, end in spans]


MENTION_FORMS = ("pronoun", "name", "person nominal", "other nominal")


def mention_form(doc: Doc, start: int, end: int, person_nouns: AbstractSet[str]) -> str:
    """The form of ``doc[start:end]`` (``MENTION_FORMS``), read off its parse root (``span_root``)."""
    if end - start == 1 and doc[start].lower_ in PRONOUNS:
        return MENTION_FORMS[0]
    head = doc[span_root(doc, start, end)]
    if head.tag_ in ("NNP", "NNPS"):
        return MENTION_FORMS[1]
    if head.tag_ in COMMON_NOUN_TAGS and names_people(head.lower_, head.tag_ == "NNS", person_nouns):
        return MENTION_FORMS[2]
    return MENTION_FORMS[3]
