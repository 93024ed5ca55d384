"""Pre-training of the Dynamic Neural Text Model's context encoder on a sentence-completion (cloze) task, as
Kobayashi et al. (2017, §5.1) did before training the LM with the encoder fixed: the context vector the encoder
gives at a position (Eq. 6, from the words before and after it in the sentence) should predict the word
there, trained with negative sampling (Mikolov et al. 2013; the context2vec objective of Melamud et al. 2016):

    Σ_t log σ(x̂_t · x_{w_t}) + Σ_{v ∈ Neg} log σ(−x̂_t · x_v),    x̂_t = W_c d'_t

where x_w are the encoder's own word embeddings (one set for the inputs and the targets, as the paper) and
negatives are drawn from the unigram distribution raised to 0.75.

The module's encoder parameters carry the names of ``DynamicEntityLM``'s, so its state loads into the LM
(``DynamicEntityLM.load_pretrained``)."""
from pathlib import Path
from typing import Dict, List

import torch
from torch import nn
from torch.nn import functional as F

from .dntm import BOS, ENCODER_PARTS, EOS, UNKNOWN, DynamicEntityLM


class ContextCloze(nn.Module):
    """The DNTM's context encoder (its own word embeddings, the two directions of the sentence LSTM, W_hd)
    plus W_c, which maps a context vector into the word-embedding space for the cloze objective."""

    encode_contexts = DynamicEntityLM.encode_contexts

    def __init__(self, vocab_size: int, embed_width: int = 256, context_width: int = 128, dropout: float = 0.3):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.context_embedding = nn.Embedding(vocab_size, embed_width)
        self.context_forward = nn.LSTM(embed_width, context_width, batch_first=True)
        self.context_backward = nn.LSTM(embed_width, context_width, batch_first=True)
        self.context_projection = nn.Linear(2 * context_width, context_width)
        self.to_target = nn.Linear(context_width, embed_width, bias=False)  # W_c

    def loss(self, words: torch.Tensor, lengths: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
        """Mean negative-sampling loss over the predicted positions of right-padded sentences ``words`` (S, L)
        (``<bos> … <eos>``); negatives (P, n) word ids, one row per predicted position (``cloze_positions``
        order)."""
        n, l = cloze_positions(words, lengths)
        predicted = self.to_target(self.encode_contexts(words, lengths, n, l))  # (P, E)
        targets = self.context_embedding(words[n, l])  # (P, E)
        positive = F.logsigmoid((predicted * targets).sum(-1))
        negative = F.logsigmoid(-torch.einsum("pe,pne->pn", predicted, self.context_embedding(negatives))).sum(-1)
        return -(positive + negative).mean()

    def encoder_state(self) -> Dict[str, torch.Tensor]:
        """The encoder's parameters under ``DynamicEntityLM``'s names."""
        return {name: value.detach().clone() for name, value in self.state_dict().items()
                if name.split(".")[0] in ENCODER_PARTS}


def cloze_positions(words: torch.Tensor, lengths: torch.Tensor):
    """(n, l) of the positions a cloze predicts: real tokens that are not ``<bos>``, ``<eos>`` or unknown."""
    steps = torch.arange(words.shape[1], device=words.device)
    real = steps[None, :] < lengths[:, None]
    keep = real & (words != BOS) & (words != EOS) & (words != UNKNOWN)
    return torch.nonzero(keep, as_tuple=True)


def negative_sampler(counts: List[int], power: float = 0.75) -> torch.Tensor:
    """Sampling weights over word ids: count^power (zero for ids never counted)."""
    weights = torch.tensor(counts, dtype=torch.float64).clamp(min=0) ** power
    if not float(weights.sum()) > 0:
        raise ValueError("[spacy-entmem] no word to sample negatives from: the cloze corpus is empty")
    return weights / weights.sum()


def save_context_encoder(model: ContextCloze, words: List[str], path: Path, **info) -> None:
    """The encoder's state, its vocabulary (words after the special tokens) and ``info`` in one torch file."""
    torch.save({"state": model.encoder_state(), "words": list(words), "info": info}, path)


def load_context_encoder(path: Path) -> Dict:
    """What ``save_context_encoder`` wrote; a clear error for a missing or foreign file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"[spacy-entmem] pretrained context encoder {path}: no such file "
                         "(make one with `entmem dntm-pretrain-context`)")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises several kinds for files it cannot read
        raise ValueError(f"[spacy-entmem] pretrained context encoder {path}: not a torch file ({error})") from error
    missing = [key for key in ("state", "words") if not isinstance(saved, dict) or key not in saved]
    parts = {key.split(".")[0] for key in saved.get("state", {})} if not missing else set()
    if missing or not set(ENCODER_PARTS) <= parts:
        raise ValueError(f"[spacy-entmem] pretrained context encoder {path}: not written by "
                         "`entmem dntm-pretrain-context` (it needs the encoder's state and its words)")
    return saved
