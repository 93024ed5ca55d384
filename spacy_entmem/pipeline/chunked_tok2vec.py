"""``entmem_tok2vec``: spaCy's ``tok2vec`` that reads a long document in overlapping chunks.

A CNN tok2vec (``MaxoutWindowEncoder``: ``depth`` layers of ``window_size`` tokens each side) sees
``depth × window_size`` tokens to each side of a token: its receptive field. Run over a whole document at
once, its activations grow with the length (~1.5 GB at 100k tokens, ~15 GB at 1M). At inference this
component runs the same model on chunks of ``chunk_size`` tokens, each read with ``margin`` tokens of context
on both sides and trimmed back; with ``margin`` ≥ the receptive field every token's vector is the one the
whole-document pass gives, and peak memory no longer depends on the document's length. Training (``update``)
is spaCy's, unchanged; the weights and their files are those of ``tok2vec``.
"""
from typing import Iterable, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.pipeline.tok2vec import Tok2Vec
from spacy.attrs import NORM
from spacy.tokens import Doc
from thinc.api import Model


@Language.factory(
    "entmem_tok2vec",
    assigns=["doc.tensor"],
    default_config={"model": {"@architectures": "spacy.HashEmbedCNN.v2", "width": 96, "depth": 4,
                              "embed_size": 2000, "window_size": 1, "maxout_pieces": 3,
                              "subword_features": True, "pretrained_vectors": None},
                    "chunk_size": 2000, "margin": 4},
)
def make_chunked_tok2vec(nlp: Language, name: str, model: Model, chunk_size: int, margin: int) -> "ChunkedTok2Vec":
    if chunk_size < 1:
        raise ValueError(f"[spacy-entmem] {name}: chunk_size must be >= 1, got {chunk_size}")
    if margin < 0:
        raise ValueError(f"[spacy-entmem] {name}: margin must be >= 0 (the encoder's receptive field), got {margin}")
    return ChunkedTok2Vec(nlp.vocab, model, name, chunk_size=chunk_size, margin=margin)


class ChunkedTok2Vec(Tok2Vec):
    def __init__(self, vocab, model: Model, name: str = "tok2vec", *, chunk_size: int = 2000, margin: int = 4):
        super().__init__(vocab, model, name)
        self.chunk_size, self.margin = chunk_size, margin
        self._digest: Optional[str] = None

    @property
    def digest(self) -> str:
        """The digest of its weights (``listeners.model_digest``), computed once (again after an update)."""
        if self._digest is None:
            from .listeners import model_digest

            self._digest = model_digest(self.model)
        return self._digest

    def set_annotations(self, docs: Sequence[Doc], tokvecses) -> None:
        """As spaCy's, and each doc is stamped with the digest of the weights that made its vectors
        (``listeners.VECTORS_STAMP``): a listening entity memory checks it is the tok2vec it was trained with."""
        from .listeners import VECTORS_STAMP

        super().set_annotations(docs, tokvecses)
        for doc in docs:
            doc.user_data[VECTORS_STAMP] = self.digest

    def update(self, examples, **kwargs):
        self._digest = None  # the weights change
        return super().update(examples, **kwargs)

    def predict(self, docs: Iterable[Doc]):
        docs = list(docs)
        long = {i for i, doc in enumerate(docs) if len(doc) > self.chunk_size}
        if not long:
            return super().predict(docs)
        short = [i for i in range(len(docs)) if i not in long]
        vectors = dict(zip(short, super().predict([docs[i] for i in short]) if short else []))
        vectors.update((i, self._predict_long(docs[i])) for i in long)
        return [vectors[i] for i in range(len(docs))]

    def _predict_long(self, doc: Doc):
        # the chunks are built from arrays read once: Span.as_doc reads the whole document's arrays each
        # time, which made a 1M-token document quadratic (184 s against 6 s at 100k tokens)
        words = [token.text for token in doc]
        spaces = [bool(token.whitespace_) for token in doc]
        norms = doc.to_array([NORM])
        pieces = []
        for start, end in self.chunks(len(doc)):
            left, right = max(0, start - self.margin), min(len(doc), end + self.margin)
            chunk = Doc(doc.vocab, words=words[left:right], spaces=spaces[left:right])
            chunk.from_array([NORM], norms[left:right])  # tokenizer exceptions set norms ("n't" → "not")
            (vectors,) = self.model.predict([chunk])
            pieces.append(vectors[start - left: end - left])
        return self.model.ops.xp.concatenate(pieces)

    def chunks(self, n_tokens: int) -> List[Tuple[int, int]]:
        """(start, end) of the chunks a document of ``n_tokens`` is read in, before the margins are added."""
        return [(s, min(s + self.chunk_size, n_tokens)) for s in range(0, n_tokens, self.chunk_size)]


def receptive_field(model_config: dict) -> int:
    """Tokens to each side a CNN tok2vec config sees (``depth × window_size``); ValueError for others."""
    encode = model_config.get("encode", model_config)
    if "depth" not in encode or "window_size" not in encode:
        raise ValueError("[spacy-entmem] not a CNN tok2vec (no depth / window_size): its receptive field is unknown")
    return int(encode["depth"]) * int(encode["window_size"])


def use_chunked_tok2vec(config, chunk_size: int = 2000) -> List[str]:
    """Switch every CNN ``tok2vec`` component of a pipeline config to ``entmem_tok2vec`` (same weights) with a
    margin equal to its receptive field; the names of the components switched."""
    switched = []
    for name, component in config.get("components", {}).items():
        if component.get("factory") != "tok2vec":
            continue
        try:
            margin = receptive_field(component["model"])
        except ValueError:
            continue
        component.update({"factory": "entmem_tok2vec", "chunk_size": chunk_size, "margin": margin})
        switched.append(name)
    return switched
