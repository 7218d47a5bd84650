"""Atomic writes: a reader sees the old content or the new, never a half-written one.

A write in progress is a hidden ``.<name>.<host>-<pid>.<random>.tmp`` beside its target
(``.old`` for a replaced result on its way out). An interrupt removes it; after a SIGKILL,
the next write into the same folder removes those whose process, on this host, is gone.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fanin._proc import sigterm_interrupts

MANIFEST = "manifest.json"

# Short, so names stay short; a pid alone could name a live writer on another host sharing the folder.
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]
_TEMP = re.compile(r"^\..+\.(?P<host>[0-9a-f]{6})-(?P<pid>\d+)\.[a-z0-9_]+\.(tmp|old)$")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _prefix(target: Path) -> str:
    return f".{target.name}.{_HOST}-{os.getpid()}."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def remove_stale_temps(directory: str | os.PathLike[str]) -> list[Path]:
    """Removes the hidden temporaries in ``directory`` of writers on this host that are gone."""
    removed = []
    try:
        entries = list(os.scandir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return []
    for entry in entries:
        m = _TEMP.match(entry.name)
        if m is None or m["host"] != _HOST or _alive(int(m["pid"])):
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            Path(entry.path).unlink(missing_ok=True)
        removed.append(Path(entry.path))
    return removed


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Writes ``data`` to a temporary file next to ``path``, then renames it into place."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(target.parent)
    with sigterm_interrupts():
        fd, tmp = tempfile.mkstemp(prefix=_prefix(target), suffix=".tmp", dir=target.parent)
        try:
            os.chmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give a normal file's mode
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def check_replaceable(target: Path, marker: str = MANIFEST) -> None:
    """Refuses to replace anything but an empty directory or an earlier result (one holding ``marker``)."""
    if not target.exists():
        return
    if not target.is_dir():
        raise FileExistsError(f"{target} exists and is not a directory")
    if any(target.iterdir()) and not (target / marker).is_file():
        raise FileExistsError(f"{target} exists and is not a fanin result directory (no {marker})")


@contextmanager
def atomic_dir(path: str | os.PathLike[str], marker: str = MANIFEST) -> Iterator[Path]:
    """Yields a temporary directory next to ``path``; on success it replaces ``path``.

    On any error, Ctrl-C or SIGTERM the temporary directory is removed and ``path`` is left
    as it was. ``marker``: the file that makes an existing directory a result to replace.
    """
    target = Path(path)
    check_replaceable(target, marker)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(target.parent)
    with sigterm_interrupts():
        tmp = Path(tempfile.mkdtemp(prefix=_prefix(target), suffix=".tmp", dir=target.parent))
        try:
            os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700
            yield tmp
            check_replaceable(target, marker)
            if target.exists():
                old = Path(tempfile.mkdtemp(prefix=_prefix(target), suffix=".old", dir=target.parent))
                os.replace(target, old / target.name)
                os.replace(tmp, target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
