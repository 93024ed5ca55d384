"""Pre-train the Dynamic Neural Text Model's context encoder on a cloze task (``nn.lm.context_cloze``) over the
LM's training docs (anonymised as the LM reads them) and extra raw text, with the vocabulary the LM will
build from the same training docs. The paper pre-trained on Gigaword; here the extra text is whatever held-out-
safe text the user names (the project uses GAP development + validation and WikiText-2 validation)."""
import copy
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence

import numpy
import torch
from spacy.language import Language
from spacy.tokens import Doc

from ..corpora.gap import read_gap_rows
from ..corpora.zero_shot import wikitext_articles
from ..nn.lm.context_cloze import ContextCloze, cloze_positions, negative_sampler
from ..nn.lm.dntm import N_SPECIAL
from ..pipeline.lm_inputs import LMVocabulary, lm_document

MAX_SENTENCE = 100  # longer sentences are cut (the cloze needs local context only)


@dataclass
class ClozeCorpus:
    """Sentences as word-id arrays ``<bos> … <eos>`` and how many came from each source."""

    sentences: List[numpy.ndarray] = field(default_factory=list)
    tokens: Dict[str, int] = field(default_factory=dict)

    def add(self, source: str, sentence: numpy.ndarray) -> None:
        if len(sentence) > 2:
            self.sentences.append(sentence[:MAX_SENTENCE])
            self.tokens[source] = self.tokens.get(source, 0) + len(sentence) - 2

    def summary(self) -> str:
        return "; ".join(f"{name}: {n:,} tokens" for name, n in self.tokens.items())

    def counts(self, vocab_size: int) -> List[int]:
        """How often each word id occurs (the special tokens never: they are not sampled as negatives)."""
        counts = numpy.bincount(numpy.concatenate(self.sentences), minlength=vocab_size)
        counts[:N_SPECIAL] = 0
        return counts.tolist()


def raw_texts(path: Path) -> Iterator[str]:
    """The texts of a GAP TSV (its Text column) or a WikiText file (its articles, without their headings)."""
    if path.suffix == ".tsv":
        yield from (row.text for row in read_gap_rows(path))
    elif path.suffix == ".txt":
        for article in wikitext_articles(path):
            lines = article.text.splitlines()
            yield "\n".join(line for line in lines if not (line.startswith("=") and line.endswith("=")))
    else:
        raise ValueError(f"[spacy-entmem] {path}: extra cloze text must be a GAP .tsv or a WikiText .txt file")


def build_cloze_corpus(train_docs: Sequence[Doc], extra: Iterable[Path], nlp: Language, vocab: LMVocabulary,
                       cluster_prefix: str = "coref_clusters", n_slots: int = 80) -> ClozeCorpus:
    """The LM's training docs as the LM reads them, then each extra file's texts split into sentences by
    ``nlp`` (which must set sentence boundaries) and read the same way (they have no clusters, so only words)."""
    corpus = ClozeCorpus()
    sources = [("LM training docs", train_docs)]
    sources += [(Path(path).name, nlp.pipe(raw_texts(Path(path)), batch_size=64)) for path in extra]
    for source, docs in sources:
        for doc in docs:
            for sentence in lm_document(doc, vocab, cluster_prefix, n_slots).words:
                corpus.add(source, sentence)
    return corpus


def length_batches(sentences: List[numpy.ndarray], batch_size: int, rng: random.Random) -> List[List[int]]:
    """Indices of the sentences in batches of similar length, in random order."""
    order = sorted(range(len(sentences)), key=lambda i: (len(sentences[i]), rng.random()))
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(batches)
    return batches


def pad(sentences: List[numpy.ndarray]):
    lengths = torch.tensor([len(s) for s in sentences])
    words = torch.zeros(len(sentences), int(lengths.max()), dtype=torch.int64)
    for i, s in enumerate(sentences):
        words[i, :len(s)] = torch.from_numpy(s)
    return words, lengths


def pretrain_context_encoder(corpus: ClozeCorpus, vocab_size: int, *, embed_width: int = 256,
                             context_width: int = 128, dropout: float = 0.3, epochs: int = 3,
                             batch_size: int = 64, n_negatives: int = 5, learn_rate: float = 0.001,
                             held_out: float = 0.02, seed: int = 0,
                             log: Callable[[Dict], None] = lambda record: None) -> ContextCloze:
    """Train ``ContextCloze`` with Adam (gradient norm clipped at 1, as the paper's LM) and return it with
    the weights of the epoch with the lowest loss on ``held_out`` of the sentences (the last epoch's if none
    are held out); ``log`` gets one record per epoch with the mean training and held-out losses."""
    if not corpus.sentences:
        raise ValueError("[spacy-entmem] the cloze corpus has no sentence of more than one word")
    rng = random.Random(seed)
    torch.manual_seed(seed)
    sentences = list(corpus.sentences)
    rng.shuffle(sentences)
    n_held = int(len(sentences) * held_out)
    held, train = sentences[:n_held], sentences[n_held:]
    weights = negative_sampler(corpus.counts(vocab_size))
    model = ContextCloze(vocab_size, embed_width, context_width, dropout)
    optimizer = torch.optim.Adam(model.parameters(), lr=learn_rate)

    def batch_loss(batch: List[numpy.ndarray], generator: Optional[torch.Generator] = None) -> torch.Tensor:
        words, lengths = pad(batch)
        n_positions = len(cloze_positions(words, lengths)[0])
        negatives = torch.multinomial(weights, n_positions * n_negatives, replacement=True, generator=generator)
        return model.loss(words, lengths, negatives.view(n_positions, n_negatives))

    best = None  # (held-out loss, epoch, state)
    for epoch in range(epochs):
        model.train()
        total, n = 0.0, 0
        for indices in length_batches(train, batch_size, rng):
            loss = batch_loss([train[i] for i in indices])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total, n = total + float(loss.detach()), n + 1
        model.eval()
        with torch.no_grad():
            fixed = torch.Generator().manual_seed(seed)  # the same negatives every epoch: comparable losses
            held_losses = [float(batch_loss([held[i] for i in indices], fixed))
                           for indices in length_batches(held, batch_size, random.Random(0))]
        held_loss = float(numpy.mean(held_losses)) if held_losses else None
        if best is None or not held_losses or held_loss < best[0]:
            best = (held_loss, epoch + 1, copy.deepcopy(model.state_dict()))
        log({"epoch": epoch + 1, "train_loss": total / max(n, 1),
             "held_out_loss": held_loss, "best_epoch": best[1]})
    model.load_state_dict(best[2])
    model.eval()
    return model
