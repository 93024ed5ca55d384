"""The zero-shot language-modelling test sets CoreLM reports: WikiText-2 (articles, detokenised) and LAMBADA
(passages whose last word is the target). Read from ``../shared/data``; never copied into the project."""
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

HEADING = re.compile(r"^ = [^=].* = $")


@dataclass
class Article:
    title: str
    text: str
    n_words: int  # whitespace tokens of the original (tokenised) release: what per-word perplexity divides by


def detokenize_wikitext(text: str) -> str:
    """Undo the WikiText release's tokenisation (`` @-@ ``, spaces before punctuation, …), as GPT-2's
    evaluation did; ``<unk>`` stays as it is."""
    for tokenized, plain in ((" @-@ ", "-"), (" @,@ ", ","), (" @.@ ", "."), (" 's", "'s"), (" n't", "n't"),
                             (" , ", ", "), (" . ", ". "), (" : ", ": "), (" ; ", "; "), (" ! ", "! "),
                             (" ? ", "? "), ("( ", "("), (" )", ")"), ("\n ", "\n"), (" \n", "\n")):
        text = text.replace(tokenized, plain)
    text = re.sub(r'" ([^"\n]*?) "', r'"\1"', text)
    return re.sub(r" +\.$", ".", text.strip(), flags=re.M)


def wikitext_articles(path: Path, limit: Optional[int] = None) -> List[Article]:
    """Articles of a WikiText file (split at its top-level `` = Title = `` lines), detokenised."""
    articles: List[List[str]] = []
    for line in Path(path).read_text(encoding="utf8").splitlines():
        if HEADING.match(line):
            articles.append([line])
        elif articles:
            articles[-1].append(line)
    out = [Article(lines[0].strip(" ="), detokenize_wikitext("\n".join(l for l in lines if l.strip())),
                   sum(len(l.split()) for l in lines)) for lines in articles]
    return out[:limit]


@dataclass
class Passage:
    context: str
    target: str


def lambada_passages(path: Path, limit: Optional[int] = None) -> List[Passage]:
    """LAMBADA passages: the context and the last word (after the last space) to predict."""
    out = []
    with Path(path).open(encoding="utf8") as lines:
        for number, line in enumerate(lines, start=1):
            try:
                text = json.loads(line)["text"].rstrip()
            except (json.JSONDecodeError, KeyError, TypeError) as error:
                raise ValueError(f"[spacy-entmem] {path}, line {number}: not a LAMBADA record "
                                 f'{{"text": ...}}: {error}') from error
            context, _, target = text.rpartition(" ")
            if not context or not target:
                raise ValueError(f"[spacy-entmem] {path}, line {number}: a passage needs a context and a last word")
            out.append(Passage(context, target))
            if limit is not None and len(out) >= limit:
                break
    return out
