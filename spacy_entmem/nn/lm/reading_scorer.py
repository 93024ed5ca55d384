"""Which of several readings of a sentence a frozen causal LM finds likelier: each reading is a prefix that
ends where a pronoun stood, with the pronoun replaced by one candidate's words, and all share the rest of the
sentence. A reading's score is the log-probability of that shared rest given its own prefix (Trinh and Le,
2018, "partial" scoring: the candidate's own words are not scored, so a long or rare name costs nothing)."""
from typing import List, Sequence

import torch


class ReadingScorer:
    """Scores readings with a Hugging Face causal LM and its fast tokenizer (``nn.lm.base_lm.load_base_lm``)."""

    def __init__(self, model, tokenizer):
        self.model, self.tokenizer = model, tokenizer
        if tokenizer.pad_token is None:  # Llama / SmolLM2 tokenizers have none; padding is masked anyway
            tokenizer.pad_token = tokenizer.eos_token
        tokenizer.padding_side = "right"  # positions count from each text's start

    def continuation_log_probs(self, prefixes: Sequence[str], continuation: str) -> List[float]:
        """Σ log p(continuation's tokens | prefix) for each prefix, in one padded batch. The continuation is
        tokenised with each prefix (``prefix + continuation``) and its tokens are those whose characters start
        at or after the prefix's end, so a word split differently after each prefix is still scored whole."""
        if not prefixes:
            return []
        if not continuation.strip():
            raise ValueError("[spacy-entmem] a reading needs a continuation to score (the text after the pronoun)")
        texts = [prefix + continuation for prefix in prefixes]
        encoded = self.tokenizer(texts, return_offsets_mapping=True, return_tensors="pt", padding=True,
                                 add_special_tokens=False)
        ids, mask, offsets = encoded["input_ids"], encoded["attention_mask"], encoded["offset_mapping"]
        scored = torch.zeros_like(ids, dtype=torch.bool)
        for row, prefix in enumerate(prefixes):
            scored[row] = (offsets[row, :, 0] >= len(prefix)) & mask[row].bool()
        scored[:, 0] = False  # the first token has no left context to be predicted from
        with torch.inference_mode():
            logits = self.model(input_ids=ids, attention_mask=mask).logits
        log_probs = torch.log_softmax(logits[:, :-1].float(), dim=-1)
        token_log_probs = log_probs.gather(-1, ids[:, 1:, None]).squeeze(-1)
        return (token_log_probs * scored[:, 1:]).sum(dim=1).tolist()
