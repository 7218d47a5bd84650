"""Atomic writes: a reader sees the old content or the new, never a half-written one."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MANIFEST = "manifest.json"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Writes ``data`` to a temporary file next to ``path``, then renames it into place."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
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


def check_replaceable(target: Path) -> None:
    """Refuses to replace anything but an empty directory or an earlier fanin result."""
    if not target.exists():
        return
    if not target.is_dir():
        raise FileExistsError(f"{target} exists and is not a directory")
    if any(target.iterdir()) and not (target / MANIFEST).is_file():
        raise FileExistsError(f"{target} exists and is not a fanin result directory (no {MANIFEST})")


@contextmanager
def atomic_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yields a temporary directory next to ``path``; on success it replaces ``path``.

    On any error the temporary directory is removed and ``path`` is left as it was.
    """
    target = Path(path)
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700
        yield tmp
        check_replaceable(target)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.replace(target, old / target.name)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
