"""Child processes that die with their parent, and SIGTERM taken as an interrupt.

Without this a killed `fanin sweep -j N` leaves its pool workers waiting for tasks forever
(each holds both ends of the task queue, so it never sees the parent go), and a killed
testbed run leaves its capture process running as root.

Pool workers also start without running the caller's script: a plain script that starts a
sweep at top level (no ``if __name__ == "__main__":``) would otherwise start it again in
every worker. What a task needs from ``__main__`` travels with it (see fanin.sweep).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import context, popen_spawn_posix
from typing import Any

_PR_SET_PDEATHSIG = 1
# Looked up once in the parent: a child between fork and exec must not load libraries.
_prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as Ctrl-C is so that the same cleanup runs; exits with 128 + 15."""

    exit_code = 128 + signal.SIGTERM


def die_with_parent(parent: int, sig: int = signal.SIGKILL) -> None:
    """Has the kernel send ``sig`` to this process when ``parent`` exits, whatever kills it (Linux).

    The request follows the thread that started this process, so start children from a thread
    that lives as long as they should.
    """
    if _prctl is None:
        return
    if _prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:  # the parent died before the request: no signal will come
        os.kill(os.getpid(), sig)


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


def popen_dying_with_this_process(args: Sequence[str], **popen: Any) -> subprocess.Popen[str]:
    """``subprocess.Popen(args, **popen)`` of a child that dies when this process does.

    Ctrl-C and SIGTERM wait while the child starts, and reach this process once it has: a
    ``preexec_fn`` makes Python run the at-fork hooks of the parent (logging's among them),
    and an interrupt raised inside one is printed and dropped, so a signalled run went on to
    its end (seen: a SIGTERM while the proxy testbed started its senders). The child gets
    the signal mask back before it runs its program.

    Blocking covers this thread only: a signal sent to the process goes to another thread
    that does not block it (pyarrow's pool starts several), whose Python handler then runs
    here at the next bytecode, inside a hook as likely as not. So Python's raising handlers
    also only take note while the child starts, and raise once it has.
    """
    parent = os.getpid()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)

    def child() -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        die_with_parent(parent)

    try:
        with deferred_interrupts(default_sigterm=False):
            return subprocess.Popen(args, preexec_fn=child, **popen)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _worker_started(parent: int) -> None:
    # Ctrl-C reaches the whole process group; the parent stops the pool, so the workers
    # ignore it rather than each print a traceback. (It was blocked since the worker started,
    # see _WorkerPool; one that came meanwhile is dropped here.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with_parent(parent)


class _WorkerPool(ProcessPoolExecutor):
    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        # Workers start inside submit and inherit this thread's signal mask: with SIGINT blocked,
        # a Ctrl-C while a worker imports waits instead of raising there. This process gets it
        # as soon as the mask is back.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return super().submit(fn, *args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


class _SpawnWithoutMain(popen_spawn_posix.Popen):
    def _launch(self, process_obj: Any) -> None:
        # multiprocessing has a spawned child run __main__'s file (or module) before anything
        # else, so that objects pickled from __main__ are found there: a script without a
        # main guard then runs again in every worker. Shown a __main__ without a file, as in
        # an interactive session, it leaves __main__ alone. The stand-in is in sys.modules
        # only while one worker starts (nothing else in a sweep looks at __main__ meanwhile).
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            super()._launch(process_obj)  # type: ignore[misc]  # (private, absent from the stubs)
        finally:
            sys.modules["__main__"] = main


class _Worker(context.SpawnProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> _SpawnWithoutMain:
        return _SpawnWithoutMain(process_obj)


class _SpawnContext(context.SpawnContext):
    Process = _Worker


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that die with this one and leave Ctrl-C to it; stop it
    early with :func:`kill_pool`. The workers do not import ``__main__``: tasks must name
    functions of importable modules (pickle the rest by value, with cloudpickle).

    Submit from the thread that waits for the results: workers start on submit, and their
    death signal follows the thread that started them.
    """
    ctx = _SpawnContext()  # spawn: no fork of a process holding threads
    return _WorkerPool(max_workers=workers, mp_context=ctx, initializer=_worker_started, initargs=(os.getpid(),))


def default_workers() -> int:
    """How many worker processes a command starts unless told: one per CPU this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def kill_pool(pool: ProcessPoolExecutor) -> None:
    """Kills the workers at once (their running tasks are lost) and waits until they are gone."""
    # What ProcessPoolExecutor.kill_workers() does from Python 3.14 on.
    workers = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for w in workers:
        w.kill()
    for w in workers:
        w.join()


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`Terminated` in the main thread, so ``finally`` and
    ``except BaseException`` cleanups run for it as for Ctrl-C. A handler someone else set (or
    SIGTERM ignored) is left alone, as is everything off the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def deferred_interrupts(*, default_sigterm: bool = True) -> Iterator[Callable[[], None]]:
    """While inside, Ctrl-C and SIGTERM only take note, and the ``check()`` it yields raises
    KeyboardInterrupt or :class:`Terminated` once one came (leaving raises it too).
    ``default_sigterm=False`` leaves a SIGTERM with the default action (ending the process)
    as it is and takes only a :func:`sigterm_interrupts` one.

    For waits inside library code an exception at an arbitrary point would leave locked:
    concurrent.futures.wait holds every future's lock at times, and an interrupt there leaves
    the pool's own thread blocked forever. Handlers someone else set are left alone.
    """
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    came: list[int] = []
    sigterm = (signal.SIG_DFL, _raise_terminated) if default_sigterm else (_raise_terminated,)
    ours = {signal.SIGINT: (signal.default_int_handler,), signal.SIGTERM: sigterm}
    previous = {sig: signal.getsignal(sig) for sig in ours}
    taken = [sig for sig, handlers in ours.items() if previous[sig] in handlers]

    def check() -> None:
        if came:
            raise Terminated() if came[0] == signal.SIGTERM else KeyboardInterrupt()

    for sig in taken:
        signal.signal(sig, lambda signum, frame: came.append(signum))
    try:
        yield check
    finally:
        for sig in taken:
            signal.signal(sig, previous[sig])
    check()  # one that came after the last look is not lost
