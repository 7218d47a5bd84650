"""What every `fanin` command shares: the consoles, the one-line error and its exit codes,
and the options several commands take. Command modules import these, never `fanin.cli`,
which imports them all."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from fanin.errors import ScenarioError


def console(**options: Any) -> Console:
    """A console for the CLI's output: text as given, no number colouring, and no emoji
    codes (a host or path named `s:x:0` must not print as an emoji)."""
    return Console(highlight=False, emoji=False, **options)


out = console()
err = console(stderr=True)

SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="PATH=VALUE",
        help="override a scenario field, e.g. --set transport.cc=newreno --set workload[0].degree=32 (repeatable)",
    ),
]


def fail(message: str, code: int = 2) -> NoReturn:
    """One red line on stderr, then exit: no traceback."""
    err.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turns what a user can get wrong into one line and exit code 2."""
    try:
        yield
    except typer.Exit:  # a RuntimeError subclass: let it through untouched
        raise
    except ScenarioError as e:
        fail(str(e))
    except (FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError, PermissionError) as e:
        fail(str(e) if not e.filename else f"{e.strerror or e}: {e.filename}")
    except RuntimeError as e:  # an engine invariant failed: still no trace, but not exit 2
        fail(str(e), code=1)
    except KeyboardInterrupt as e:  # Ctrl-C: 130; SIGTERM where fanin turns it into an interrupt: 143
        fail("interrupted", code=getattr(e, "exit_code", 130))


DataDirOption = Annotated[
    list[Path] | None,
    typer.Option("--data-dir", help="also read the files a scenario names from this folder (repeatable)"),
]


def data_dirs(dirs: list[Path] | None) -> list[Path]:
    """The --data-dir folders, each checked to exist."""
    for d in dirs or []:
        if not d.is_dir():
            fail(f"--data-dir {d}: no such folder")
    return list(dirs or [])
