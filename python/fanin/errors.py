"""The one error a user can cause: a scenario that cannot be run."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from fanin import _native


class ScenarioError(ValueError):
    """A scenario that cannot be run.

    ``path`` is the dotted field path (``"transport.cc"``, ``"workload[0].degree"``; empty
    when the problem is the file as a whole), ``message`` says what is wrong, and ``allowed``
    lists the accepted values where the choice is closed. ``str()`` is one line.
    """

    def __init__(self, path: str, message: str, allowed: Iterable[str] = ()) -> None:
        self.path = path
        self.message = message
        self.allowed = list(allowed)
        super().__init__(self._line())

    def _line(self) -> str:
        line = f"{self.path}: {self.message}" if self.path else self.message
        if self.allowed:
            line += f" (allowed: {', '.join(self.allowed)})"
        return line

    def __str__(self) -> str:
        return self._line()

    def __reduce__(self) -> tuple[type[ScenarioError], tuple[str, str, list[str]]]:
        return (type(self), (self.path, self.message, self.allowed))

    @classmethod
    def from_native(cls, exc: _native.ScenarioError) -> ScenarioError:
        """Converts the native exception, whose args are ``(line, path, allowed)``."""
        line, path, allowed = exc.args
        message = line
        prefix = f"{path}: "
        if path and message.startswith(prefix):
            message = message[len(prefix) :]
        suffix = f" (allowed: {', '.join(allowed)})"
        if allowed and message.endswith(suffix):
            message = message[: -len(suffix)]
        return cls(path, message, allowed)


@contextmanager
def native_errors() -> Iterator[None]:
    """Re-raises the native ``ScenarioError`` as :class:`fanin.ScenarioError`."""
    try:
        yield
    except _native.ScenarioError as exc:
        raise ScenarioError.from_native(exc) from None
