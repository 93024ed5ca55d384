"""The Dynamic Neural Text Model's cloze by sentence likelihood (§5.2.3, Table 4): at each mention of an entity
that appeared in an earlier sentence, the sentence is filled with every entity seen before it; the model ranks
the fillings by the sentence's likelihood given the document before it. Mean quantile (Eq. 11): the share of
wrong candidates that score below the right one, averaged over the clozes (ties count half)."""
from typing import Dict, List

import numpy
import torch

from ..models.entity_lm import pad_documents
from ..nn.lm.dntm import score_continuations
from ..pipeline.lm_inputs import LMDocument


def clozes(lm_doc: LMDocument, max_per_doc: int) -> List[tuple]:
    """(sentence index, position in the sentence, right slot, candidate slots) for the first ``max_per_doc``
    clozes of a document (sentences in order), each with at least one wrong candidate."""
    found, seen = [], []
    for s, slots in enumerate(lm_doc.slots):
        for position, slot in enumerate(slots.tolist()):
            if slot >= 0 and slot in seen and len(seen) > 1 and len(found) < max_per_doc:
                found.append((s, position, slot, list(seen)))
        seen.extend(k for k in dict.fromkeys(slots.tolist()) if k >= 0 and k not in seen)
    return found


def mean_quantile(lm, lm_docs: List[LMDocument], max_per_doc: int = 20) -> Dict[str, float]:
    """MQ over the clozes of ``lm_docs`` (a torch DynamicEntityLM in eval mode)."""
    quantiles = []
    with torch.no_grad():
        for lm_doc in lm_docs:
            for s, position, right, candidates in clozes(lm_doc, max_per_doc):
                prefix = lm_doc.sentences(0, s)
                words = torch.from_numpy(numpy.tile(lm_doc.words[s], (len(candidates), 1)))
                slots = torch.from_numpy(numpy.tile(lm_doc.slots[s], (len(candidates), 1)))
                slots[:, position] = torch.tensor(candidates)
                scores = score_continuations(lm, pad_documents([prefix]), words, slots).cpu().numpy()
                right_score = scores[candidates.index(right)]
                wrong = numpy.delete(scores, candidates.index(right))
                quantiles.append(float(((wrong < right_score).sum() + 0.5 * (wrong == right_score).sum()) / len(wrong)))
    return {"cloze_mq": float(numpy.mean(quantiles)) if quantiles else None, "clozes": len(quantiles)}
