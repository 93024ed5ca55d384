"""Gender-swapped copies of GAP rows, for training data augmentation (the counterfactual data of Zhao et al.
2018 and Webster et al. 2018's GAP paper): every he / she pronoun takes the other gender, gendered nouns and
titles ("Mr.", "sister", "actress") their counterparts, and every given name that the packaged name lexicon
(``corpora.name_genders``) marks masculine or feminine a name of the other gender, the same one throughout
the row. "her" becomes "his" where the tagger says possessive (PRP$), else "him"; "his" becomes "hers" where
it stands alone (PRP), else "her". The A / B / pronoun offsets follow the new text.

A row whose query spans do not fall on token boundaries cannot be rewritten token by token; it is left out
and counted (``SwapReport``)."""
import csv
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from ..linguistics.values import FEMININE, MASCULINE
from .gap import COLUMNS, GapRow, read_gap_rows

# lowercase word pairs swapped both ways (pronouns with a tag-dependent form are handled apart)
WORD_PAIRS = (
    "he she", "himself herself", "man woman", "men women", "boy girl", "boys girls", "father mother",
    "fathers mothers", "dad mom", "brother sister", "brothers sisters", "son daughter", "sons daughters",
    "uncle aunt", "uncles aunts", "nephew niece", "nephews nieces", "husband wife", "husbands wives",
    "king queen", "kings queens", "prince princess", "princes princesses", "duke duchess", "dukes duchesses",
    "lord lady", "lords ladies", "mr mrs", "mr. mrs.", "sir madam", "grandfather grandmother",
    "grandfathers grandmothers", "grandson granddaughter", "grandsons granddaughters", "emperor empress",
    "monk nun", "monks nuns", "actor actress", "actors actresses", "waiter waitress", "boyfriend girlfriend",
    "stepfather stepmother", "stepson stepdaughter", "widower widow", "heir heiress", "hero heroine",
    "baron baroness", "spokesman spokeswoman", "chairman chairwoman", "businessman businesswoman",
    "male female", "males females", "fiance fiancee", "gentleman lady", "gentlemen ladies", "priest priestess",
    "god goddess", "host hostess", "steward stewardess", "masculine feminine", "brotherhood sisterhood",
)
# one-way swaps: the counterpart maps back to another word above
ONE_WAY = {"ms": "mr", "ms.": "mr.", "miss": "mr.", "hers": "his", "mum": "dad", "mama": "papa", "papa": "mama"}
SWAPPED_WORDS: Dict[str, str] = {**{a: b for a, b in (p.split() for p in WORD_PAIRS)},
                                 **{b: a for a, b in (p.split() for p in WORD_PAIRS)}, **ONE_WAY}
SWAPPED_WORDS["lady"] = "lord"  # "gentleman lady" must not override "lord lady" in reverse
SWAPPED_WORDS["ladies"] = "lords"
POSSESSIVE_TAG = "PRP$"
SWAPPED_SUFFIX = "-swapped"  # of a swapped row's id
# words of the name lexicon that are titles or ordinary words, not given names: never swapped as names, never
# swapped in
NOT_NAMES = frozenset(
    "big chairman congresswoman dad dame de dearest doc doctor dowager ayah ibn invisible irish j judge le "
    "marbles monsignor nasty nonna ottoman pa papa peppermint pink pope preserver president ragged reverend "
    "signora snake temple turkey weary widow".split())


@dataclass
class SwapReport:
    rows: int = 0
    swapped: int = 0
    left_out: List[str] = field(default_factory=list)  # row ids with spans off token boundaries


def match_case(word: str, template: str) -> str:
    """``word`` cased like ``template`` (all capitals, capitalised, or as it is)."""
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def other_gender_names(name_genders: Dict[str, int]) -> Dict[int, List[str]]:
    """Per gender, the sorted names of the *other* gender: the pool a name of that gender is swapped from."""
    names = {gender: sorted(n for n, g in name_genders.items() if g == gender and n not in NOT_NAMES)
             for gender in (MASCULINE, FEMININE)}
    return {MASCULINE: names[FEMININE], FEMININE: names[MASCULINE]}


def swapped_name(name: str, gender: int, pools: Dict[int, List[str]], seed: int = 0) -> str:
    """A given name of the other gender for ``name`` (lowercase), the same for the same name and seed."""
    pool = pools[gender]
    return pool[zlib.crc32(f"{seed}:{name}".encode("utf8")) % len(pool)]


def swapped_token(token: Token, name_genders: Dict[str, int], pools: Dict[int, List[str]], seed: int = 0) -> str:
    """The text of ``token`` in the gender-swapped row."""
    text, lower = token.text, token.lower_
    if lower == "her":
        return match_case("his" if token.tag_ == POSSESSIVE_TAG else "him", text)
    if lower == "his":
        return match_case("her" if token.tag_ == POSSESSIVE_TAG or not token.tag_ else "hers", text)
    if lower == "him":
        return match_case("her", text)
    if lower in SWAPPED_WORDS:
        return match_case(SWAPPED_WORDS[lower], text)
    gender = name_genders.get(lower)
    if text[:1].isupper() and gender in (MASCULINE, FEMININE) and lower not in NOT_NAMES:
        return match_case(swapped_name(lower, gender, pools, seed), text)
    return text


def swap_row(row: GapRow, doc: Doc, name_genders: Dict[str, int], seed: int = 0,
             pools: Optional[Dict[int, List[str]]] = None) -> Optional[GapRow]:
    """The gender-swapped copy of ``row`` (``doc``: its text, tokenized and tagged), or None when a query span
    does not start and end on token boundaries. ``pools``: ``other_gender_names(name_genders)``, made here when
    not given (``swap_rows`` makes it once for all rows)."""
    if doc.text != row.text:
        raise ValueError(f"[spacy-entmem] GAP row {row.id}: the doc's text is not the row's text")
    if len(doc) and not doc.has_annotation("TAG"):
        raise ValueError(f"[spacy-entmem] GAP row {row.id}: gender swapping needs part-of-speech tags (to tell "
                         "possessive 'her' from object 'her'); run a tagger first")
    pools = pools or other_gender_names(name_genders)
    new_start: Dict[int, int] = {}  # old character offset of a token boundary → new offset
    pieces, position = [], 0
    for token in doc:
        new_start[token.idx] = position
        text = swapped_token(token, name_genders, pools, seed)
        pieces.append(text + token.whitespace_)
        position += len(text)
        new_start[token.idx + len(token)] = position
        position += len(token.whitespace_)
    new_text = "".join(pieces)
    spans = []
    for label, span_text, offset in row.spans:
        start, end = new_start.get(offset), new_start.get(offset + len(span_text))
        if start is None or end is None:
            return None
        spans.append((label, new_text[start:end], start))
    return GapRow(id=f"{row.id}{SWAPPED_SUFFIX}", text=new_text, spans=spans, a_coref=row.a_coref,
                  b_coref=row.b_coref, line=row.line)


def swap_rows(rows: Sequence[GapRow], docs: Iterable[Doc], name_genders: Dict[str, int], seed: int = 0
              ) -> Tuple[List[GapRow], SwapReport]:
    """``swap_row`` over rows and their tagged docs, with a report of what was left out."""
    report, swapped = SwapReport(), []
    pools = other_gender_names(name_genders)
    for row, doc in zip(rows, docs):
        report.rows += 1
        new = swap_row(row, doc, name_genders, seed, pools)
        if new is None:
            report.left_out.append(row.id)
        else:
            swapped.append(new)
    report.swapped = len(swapped)
    return swapped, report


def swap_gap_file(nlp: Language, input_tsv: Path, output_tsv: Path, name_genders: Dict[str, int], seed: int = 0,
                  batch_size: int = 64) -> SwapReport:
    """Write the gender-swapped rows of a GAP TSV, tagged by ``nlp``'s tok2vec and tagger."""
    if "tagger" not in nlp.pipe_names:
        raise ValueError(f"[spacy-entmem] gender swapping needs part-of-speech tags; the pipeline has no 'tagger' "
                         f"({nlp.pipe_names})")
    rows = list(read_gap_rows(input_tsv))
    with nlp.select_pipes(enable=[name for name in ("tok2vec", "tagger") if name in nlp.pipe_names]):
        swapped, report = swap_rows(rows, nlp.pipe((row.text for row in rows), batch_size=batch_size),
                                    name_genders, seed)
    output_tsv.parent.mkdir(parents=True, exist_ok=True)
    write_gap_rows(output_tsv, swapped)
    return report


def write_gap_rows(path: Path, rows: Iterable[GapRow]) -> None:
    """Rows as a GAP TSV (the header and the 11 columns that ``read_gap_rows`` reads back; ``GapRow`` keeps no
    URL, so that column is empty)."""
    with open(path, "w", encoding="utf8", newline="") as f:
        writer = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_NONE, quotechar=None, lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in rows:
            (_, p_text, p_off), (_, a_text, a_off), (_, b_text, b_off) = row.spans
            writer.writerow([row.id, row.text, p_text, p_off, a_text, a_off, _flag(row.a_coref), b_text, b_off,
                             _flag(row.b_coref), ""])


def _flag(value: bool) -> str:
    return "TRUE" if value else "FALSE"


def swap_doc(doc: Doc, tagged: Doc, name_genders: Dict[str, int], seed: int = 0,
             pools: Optional[Dict[int, List[str]]] = None) -> Doc:
    """The gender-swapped copy of a coreference document (``tagged``: the same tokens, tagged, which decides
    "her" → "his" / "him"): token by token, so every span group (the gold clusters) keeps its token offsets."""
    if len(doc) != len(tagged):
        raise ValueError(f"[spacy-entmem] swap_doc: the tagged copy of the doc starting {doc.text[:40]!r} has "
                         f"{len(tagged)} tokens, the doc {len(doc)}")
    pools = pools or other_gender_names(name_genders)
    words = [swapped_token(token, name_genders, pools, seed) for token in tagged]
    swapped = Doc(doc.vocab, words=words, spaces=[bool(token.whitespace_) for token in doc])
    for key, group in doc.spans.items():
        swapped.spans[key] = [Span(swapped, span.start, span.end, label=span.label_) for span in group]
        swapped.spans[key].attrs.update(group.attrs)
    return swapped
