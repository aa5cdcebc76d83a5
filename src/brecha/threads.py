"""Independent pieces of numerical work run on the machine's cores, in threads, results in a fixed order.

numpy lets go of Python's global lock while it draws random numbers, sorts, gathers and sums arrays, so
pieces of work that are independent of each other (a bootstrap's periods, each with its own generator) run
side by side on several cores in threads of one process: nothing is copied or pickled, and the results come
back in the order of the pieces, whatever order they finish in, so the output does not depend on the
number of threads (the same bytes with 1 or 8).

How many: ``BRECHA_JOBS`` (a whole number >= 1; 1 runs everything in the calling thread) or else the
cores this process may use (``os.sched_getaffinity``, capped by a container's CPU quota:
:func:`brecha.cores.usable`), never more than the pieces. An error in a piece is
raised in the caller as it was raised in the piece; on Ctrl-C the pieces not started are cancelled.

The linear-algebra library's own threads (OpenBLAS) are another matter: on the small dense problems brecha
solves (BYM2's 347 x 347 factorisations, a block of replicates times a few columns) two of them wait for
each other far longer than they compute (one factorisation took 1.3 ms of CPU with one thread and 23 ms with
two on a busy 2-core machine), and the number of them can change the last bits of a sum. The command line
therefore runs OpenBLAS in one thread (:func:`one_blas_thread`) and uses the cores through the pieces above.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from .i18n import Catalog

MSG = Catalog({
    "bad_jobs": ("BRECHA_JOBS={value}: debe ser un número entero mayor o igual a 1 (1: sin hilos)",
                 "BRECHA_JOBS={value}: must be a whole number of at least 1 (1: no threads)"),
    "bad_jobs_hint": ("corrija o borre la variable de entorno BRECHA_JOBS (sin ella se usan todos los núcleos)",
                      "correct or unset the environment variable BRECHA_JOBS (without it every core is used)"),
})
BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


def one_blas_thread() -> bool:
    """Ask the linear-algebra library for one thread (see the module docstring), unless the user set its
    variables. Takes effect only before numpy is first imported (the command line calls it at start-up);
    returns whether it could."""
    if "numpy" in sys.modules:
        return False
    for name in BLAS_VARIABLES:
        os.environ.setdefault(name, "1")
    return True


def blas_in_one_thread():
    """A context in which the linear-algebra libraries already loaded (numpy's and scipy's OpenBLAS) run in
    one thread, whatever the environment said (threadpoolctl): for the dense factorisations of a small
    problem called from Python (``brecha.spatial.bym2`` from a script or a notebook, where
    :func:`one_blas_thread` came too late). Measured on the pooled Chilean BYM2 (347 x 347 factorisations),
    two OpenBLAS threads on a busy 2-core machine: 17.4 s of CPU, one thread: 1.5 s; the results agree to
    1e-9 (the order of a sum). Enter it after the libraries are imported: it limits those loaded then."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


_ONE_THREAD: contextvars.ContextVar[bool] = contextvars.ContextVar("brecha_one_thread", default=False)


@contextlib.contextmanager
def one_thread():
    """A context in which :func:`worker_count` is 1: the pieces run one after the other in the calling thread.
    For work that already has its own process beside others doing the same (the report's analyses computed
    ahead in children: :mod:`brecha.report.ahead`): the cores are taken, and threads there only add the cost
    of sharing the global lock (the Chilean report's decompositions, 16 periods: 0.71-0.75 s of CPU in one
    thread, 0.77-0.83 s in two; issue 19). The same results: the pieces do not depend on the threads."""
    token = _ONE_THREAD.set(True)
    try:
        yield
    finally:
        _ONE_THREAD.reset(token)


def worker_count(pieces: int | None = None) -> int:
    """Threads to use for ``pieces`` independent pieces (see the module docstring); 1 inside
    :func:`one_thread`."""
    raw = os.environ.get("BRECHA_JOBS", "").strip()
    try:
        wanted = int(raw) if raw else 0
    except ValueError:
        wanted = -1
    if wanted < 0 or (raw and wanted == 0):
        from .errors import InputError

        raise InputError(MSG("bad_jobs", value=raw), hint=MSG("bad_jobs_hint"))
    if wanted < 1:
        from .cores import usable

        wanted = usable()
    if pieces is not None:
        wanted = min(wanted, max(int(pieces), 1))
    if _ONE_THREAD.get():
        return 1
    return max(wanted, 1)


def map_in_threads(fn, items, jobs: int | None = None) -> list:
    """``[fn(item) for item in items]``, the items shared among ``jobs`` threads (default
    :func:`worker_count`); the results in the items' order."""
    return list(imap_in_threads(fn, items, jobs))


def imap_in_threads(fn, items, jobs: int | None = None):
    """:func:`map_in_threads` as a generator: each result is given as soon as it and those before it are
    done (a progress bar can follow it)."""
    items = list(items)
    jobs = worker_count(len(items)) if jobs is None else max(1, min(int(jobs), len(items) or 1))
    if jobs <= 1 or len(items) <= 1:
        for item in items:
            yield fn(item)
        return
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="brecha")
    futures = [pool.submit(fn, item) for item in items]
    try:
        for f in futures:
            yield f.result()
    finally:  # after an error, Ctrl-C or a caller that stops early: drop the pieces not started
        for f in futures:
            f.cancel()
        pool.shutdown(wait=True)
