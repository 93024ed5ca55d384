"""Torch modules of spacy-entmem: plain tensors in, plain tensors out (no spaCy here)."""
import os

import torch


def _single_thread_after_fork() -> None:
    """A process forked after torch's OpenMP pool started deadlocks in its first parallel op (seen with
    nlp.pipe(n_process=2)); workers of a multi-process pipe run one thread each instead."""
    torch.set_num_threads(1)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_single_thread_after_fork)
