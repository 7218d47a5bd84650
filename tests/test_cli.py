"""The `fanin` command: results on success; one line, exit 2, nothing written on error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import tomli_w

import fanin
from conftest import DEMO, ROOT, fanin_cli, one_line
from fanin import Scenario


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(tomli_w.dumps(data))
    return path


def assert_one_clean_line(stderr: str) -> None:
    one_line(stderr)


def test_validate_ok() -> None:
    r = fanin_cli("validate", str(DEMO))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok: incast-dumbbell"


def test_validate_starts_without_pandas() -> None:
    """`fanin validate` makes no DataFrame, so it must not pay pandas' import (about half a
    second of every command's start before it was deferred)."""
    code = (
        "import sys\n"
        "from fanin.cli import main\n"
        f"sys.argv = ['fanin', 'validate', {str(DEMO)!r}]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print('pandas' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["ok: incast-dumbbell", "False"]


def test_validate_bad_cc(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    small_incast["transport"]["cc"] = "warp-speed"
    r = fanin_cli("validate", str(write(tmp_path / "bad.toml", small_incast)))
    assert r.returncode == 2
    assert_one_clean_line(r.stderr)
    assert "transport.cc" in r.stderr and "dctcp" in r.stderr


def test_validate_missing_file_and_bad_toml(tmp_path: Path) -> None:
    r = fanin_cli("validate", str(tmp_path / "nope.toml"))
    assert r.returncode == 2
    assert_one_clean_line(r.stderr)
    (tmp_path / "broken.toml").write_text("name = [\n")
    r = fanin_cli("validate", str(tmp_path / "broken.toml"))
    assert r.returncode == 2
    assert_one_clean_line(r.stderr)


def test_run_writes_results_and_plot(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    scenario = write(tmp_path / "s.toml", small_incast)
    out = tmp_path / "out" / "res"
    r = fanin_cli("run", str(scenario), "-o", str(out), "--plot", str(tmp_path / "fig.png"))
    assert r.returncode == 0, r.stderr
    names = {p.name for p in out.iterdir()}
    assert {"flows.parquet", "incasts.parquet", "queues.parquet", "manifest.json"} <= names
    assert (tmp_path / "fig.png").stat().st_size > 0
    assert "flows" in r.stdout and "packet-hops" in r.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert Scenario.from_toml(manifest["scenario"]) == Scenario.load(scenario)


def test_run_says_what_did_not_finish(tmp_path: Path, cut_off: dict[str, Any]) -> None:
    r = fanin_cli("run", str(write(tmp_path / "s.toml", cut_off)), "-o", str(tmp_path / "res"))
    assert r.returncode == 0, r.stderr
    assert "4 of 8 completed" in r.stdout and "1 of 2 completed" in r.stdout
    assert_one_clean_line(r.stderr)
    assert r.stderr.strip().startswith("warning: 4 of 8 flows and 1 of 2 incasts did not finish"), r.stderr


def test_run_seed_override_and_quiet(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    scenario = write(tmp_path / "s.toml", small_incast)
    r = fanin_cli("run", str(scenario), "-o", str(tmp_path / "res"), "--seed", "5", "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert '"seed": 5' in (tmp_path / "res" / "manifest.json").read_text()


def test_run_bad_scenario_writes_nothing(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    small_incast["workload"][0]["degree"] = 10_000
    scenario = write(tmp_path / "bad.toml", small_incast)
    out = tmp_path / "out" / "res"
    r = fanin_cli("run", str(scenario), "-o", str(out), "--plot", str(tmp_path / "fig.png"))
    assert r.returncode == 2
    assert_one_clean_line(r.stderr)
    assert "workload[0]" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_run_refuses_a_foreign_output_dir(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    r = fanin_cli("run", str(DEMO), "-o", str(tmp_path))
    assert r.returncode == 2
    assert_one_clean_line(r.stderr)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_version_and_help() -> None:
    r = fanin_cli("version")
    assert r.returncode == 0 and r.stdout.startswith("fanin ")
    option = fanin_cli("--version")
    assert option.returncode == 0 and option.stdout == r.stdout == f"fanin {fanin.__version__}\n"
    r = fanin_cli("--help", cwd=ROOT)
    assert r.returncode == 0 and "run" in r.stdout and "bench" in r.stdout and "--version" in r.stdout


def test_names_that_look_like_emoji_codes_print_as_written(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    small_incast["workload"][0]["receiver"] = "s:x:0"
    r = fanin_cli("validate", str(write(tmp_path / "s.toml", small_incast)))
    assert r.returncode == 2
    assert_one_clean_line(r.stderr)
    assert "no host named `s:x:0`" in r.stderr and "\u274c" not in r.stderr
    r = fanin_cli("validate", str(tmp_path / ":smile:[bold].toml"))
    assert r.returncode == 2
    assert f"scenario file not found: {tmp_path}/:smile:[bold].toml" in r.stderr


def test_a_name_with_markup_runs_with_its_progress_bar(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    small_incast["name"] = "x[/i] :x:"
    r = fanin_cli("run", str(write(tmp_path / "s.toml", small_incast)), "-o", str(tmp_path / "res"))
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "res" / "manifest.json").read_text())["name"] == "x[/i] :x:"


def test_bench_rejects_unknown_names() -> None:
    r = fanin_cli("bench", "--only", "a,zz")
    assert r.returncode == 2
    assert_one_clean_line(r.stderr)


def _commands(cmd: Any, path: str = "fanin") -> Any:
    """Every command under `cmd` (click objects), with the words that call it."""
    yield path, cmd
    for name, sub in getattr(cmd, "commands", {}).items():
        yield from _commands(sub, f"{path} {name}")


def test_help_texts_print_every_word() -> None:
    """Typer reads help as rich markup, so a bracketed word such as `[partition]` vanished
    from `fanin run --help` unless escaped (`\\[partition]`)."""
    import typer
    from rich.text import Text

    from fanin.cli import app

    seen = 0
    for where, cmd in _commands(typer.main.get_command(app)):
        texts = [(f"{where}: its help", cmd.help or "")]
        texts += [(f"{where} {p.name}", getattr(p, "help", None) or "") for p in cmd.params]
        for what, text in texts:
            wanted = text.replace("\\[", "[")
            assert Text.from_markup(text).plain == wanted, f"{what} prints {Text.from_markup(text).plain!r}"
            seen += "[" in wanted
    assert seen >= 4, "the bracketed help texts this test was written for are gone"
