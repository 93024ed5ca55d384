import os

import torch
from threadpoolctl import threadpool_info, threadpool_limits

from spacy_entmem.nn import use_one_thread


def _blas_threads():
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_use_one_thread_limits_torch_and_the_blas():
    before = torch.get_num_threads()
    with threadpool_limits(limits=None):  # restores the BLAS's pools afterwards
        try:
            use_one_thread()
            assert torch.get_num_threads() == 1
            assert _blas_threads() and set(_blas_threads()) == {1}
        finally:
            torch.set_num_threads(before)


def test_a_forked_worker_multiplies_on_one_thread():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child reports its pools' sizes and leaves without running the test session's hooks
        try:
            os.write(write, f"{torch.get_num_threads()} {max(_blas_threads())}".encode())
        finally:
            os._exit(0)
    os.close(write)
    report = os.read(read, 100).decode()
    os.waitpid(pid, 0)
    assert report == "1 1"
