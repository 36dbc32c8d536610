"""The harness's shared pieces: the commands its players send, the one server launcher, and the
harness kept out of the wheel (waiting on progress: tests/bench/test_progress.py)."""

from __future__ import annotations

import random
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import typer
from setuptools import find_namespace_packages

from bench.commands import first_legal, shedding_choice, with_color
from bench.launch import ServerProcess, database
from cli import bench_cmd
from tests.cli.serving import ROOT


def test_the_commands_get_a_colour_exactly_when_they_need_one() -> None:
    assert first_legal([{"type": "play", "card": "W+4"}, {"type": "draw"}]) == {
        "type": "play",
        "card": "W+4",
        "color": "red",
    }
    assert first_legal([{"type": "color"}]) == {"type": "color", "color": "red"}
    assert first_legal([{"type": "play", "card": "R5"}]) == {"type": "play", "card": "R5"}
    assert first_legal([{"type": "uno"}, {"type": "draw"}]) == {"type": "uno"}
    listed = {"type": "play", "card": "W"}
    assert with_color(listed, "blue") == {"type": "play", "card": "W", "color": "blue"} and listed == {
        "type": "play",
        "card": "W",
    }
    rng = random.Random(3)
    chosen = [shedding_choice([{"type": "draw"}, {"type": "play", "card": "W"}], rng) for _ in range(40)]
    assert all(c["type"] == "play" and c["color"] in ("red", "yellow", "green", "blue") for c in chosen)
    assert len({c["color"] for c in chosen}) > 1
    assert shedding_choice([{"type": "draw"}], rng) == {"type": "draw"}


def test_the_launcher_starts_kills_restarts_on_the_same_port_and_stops_cleanly(tmp_path: Path) -> None:
    with database("sqlite", "", "unoduo_test_launch") as url:
        server = ServerProcess(url, tmp_path / "server.log", name="server 1")
        try:
            assert server.start() > 0 and server.up
            port = server.port
            server.kill()
            assert not server.up and server.kills == 1
            server.start()
            assert server.port == port and server.starts == 2
        finally:
            assert server.stop() == 0
        assert server.returncode == 0 and server.log_problems() == []
        assert server.log_text().count("===== start") == 2


def test_a_server_that_exits_at_start_is_reported_with_its_log(tmp_path: Path) -> None:
    from bench.launch import BenchError

    server = ServerProcess("nosuchdb://x", tmp_path / "server.log")
    with pytest.raises(BenchError, match="exited at start"):
        server.start()


def test_the_wheel_ships_no_bench_harness() -> None:
    """bench/ runs from a source checkout only: the packages setuptools puts in the wheel (the
    pyproject's ``packages.find``, namespaces included, as setuptools reads it) are the ones a
    server and its client need, not the harness (nor the tests)."""
    found = pyproject()["tool"]["setuptools"]["packages"]["find"]
    packages = find_namespace_packages(where=str(ROOT), include=found["include"])
    assert {p.split(".")[0] for p in packages} == {"cli", "engine", "migrations", "server", "tui_client"}
    assert "bench" not in packages and not any(p.startswith("tests") for p in packages)


def pyproject() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def test_unoduo_bench_says_clearly_when_the_harness_is_not_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As installed from the wheel: no bench package on the path and none beside cli/."""
    monkeypatch.setattr(bench_cmd.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(bench_cmd, "__file__", str(tmp_path / "site-packages" / "cli" / "bench_cmd.py"))
    with pytest.raises(typer.Exit) as exited:
        bench_cmd.need_harness("engine")
    assert exited.value.exit_code == 1
    said = capsys.readouterr().err
    assert "unoduo bench engine: the benchmark harness (the bench package) is not installed" in said
    assert "source checkout" in said


def test_from_a_checkout_the_harness_is_found_beside_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """An editable install maps only the wheel's packages: the checkout's bench/ is put on the path."""
    monkeypatch.setattr(bench_cmd.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != ROOT])
    bench_cmd.need_harness("engine")
    assert sys.path[0] == str(ROOT)
