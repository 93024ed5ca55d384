"""Torch modules of spacy-entmem: plain tensors in, plain tensors out (no spaCy here)."""
import os

import torch
from threadpoolctl import threadpool_limits


def use_one_thread() -> None:
    """This process multiplies on one thread: torch's pool and the BLAS's (numpy's, which the pipelines'
    thinc layers use, see ``pipeline.numpy_blas``). For worker processes: one worker per core."""
    torch.set_num_threads(1)
    threadpool_limits(limits=1, user_api="blas")


def _single_thread_after_fork() -> None:
    """A process forked after torch's OpenMP pool started deadlocks in its first parallel op (seen with
    nlp.pipe(n_process=2)); workers of a multi-process pipe run one thread each instead. A multi-threaded
    BLAS in every worker would oversubscribe the cores (two workers on two cores: 0.72x one process)."""
    use_one_thread()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_single_thread_after_fork)
