"""``unoduo --help`` and ``unoduo play`` import only what they use (issue 34, point 4).

A child process runs the command and says which packages it imported (``sys.modules`` at its
exit); no timing is asserted (``unoduo bench startup`` measures). The root's listing shows each
command by the summary of cli/main.py's ``COMMANDS``: it must read as the command's own help.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.core import TyperGroup

from cli.main import COMMANDS, LazyCommands, app, load_command

ROOT = Path(__file__).resolve().parents[2]
SERVER_SIDE = {"server", "sqlalchemy", "fastapi", "starlette", "uvicorn", "alembic"}
RUN_UNODUO = "import sys; sys.argv = ['unoduo', *{args!r}]\ntry:\n    from cli.main import main; main()\nexcept SystemExit:\n    pass\n"
REPORT = "\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"


def modules_after(code: str) -> set[str]:
    """Every module a fresh interpreter has imported once ``code`` has run (its output ignored)."""
    probe = "import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n" + "".join(
        f"    {line}\n" for line in code.splitlines()
    )
    done = subprocess.run(
        [sys.executable, "-c", probe + REPORT],
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "100"},
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stdout.split())


def packages(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_help_imports_no_command_module_nor_what_they_use() -> None:
    loaded = modules_after(RUN_UNODUO.format(args=["--help"]))
    assert not packages(loaded) & (SERVER_SIDE | {"engine", "textual", "httpx", "tui_client", "pydantic"})
    assert not {m for m in loaded if m.startswith("cli.") and m != "cli.main"}


def test_play_help_imports_only_its_command() -> None:
    loaded = modules_after(RUN_UNODUO.format(args=["play", "--help"]))
    assert {m for m in loaded if m.startswith("cli.")} == {"cli.main", "cli.play_cmd"}
    assert not packages(loaded) & (SERVER_SIDE | {"engine", "textual", "httpx"})


def test_play_imports_the_client_not_the_server() -> None:
    """What ``unoduo play`` imports: its command, then (when it runs) the terminal client."""
    code = RUN_UNODUO.format(args=["play", "--help"]) + "import tui_client.apps.play_app\n"
    loaded = modules_after(code)
    assert "textual" in packages(loaded)
    assert not packages(loaded) & SERVER_SIDE


def test_the_client_imports_a_screen_when_it_is_first_opened() -> None:
    """The lobby and the table come with the client; a tournament's and a player's screens, the
    replay scrubber and its model (with the engine's audit) when first opened."""
    loaded = modules_after("import tui_client.apps.play_app\n")
    later = {"tui_client.screens.tournament_screen", "tui_client.screens.player_screen", "tui_client.apps.replay_app"}
    assert not (later | {"tui_client.models.replay_model", "engine.fairness.audit_report"}) & loaded
    assert {"tui_client.screens.lobby_screen", "tui_client.screens.table_screen"} <= loaded


def test_the_server_imports_no_http_client() -> None:
    """A server forwards to its peers with httpx (PostgreSQL, several servers): imported when it
    first forwards, so a server on SQLite never loads it."""
    loaded = modules_after("import server.app, server.connections, cli.serve_cmd\n")
    assert "server.api.forwarding" in loaded and "httpx" not in packages(loaded)


def test_a_server_on_sqlite_imports_neither_postgresql_nor_the_confusables_table(tmp_path: Path) -> None:
    """PostgreSQL's dialect (only leases use it) and the confusables' data (only a name that mixes
    scripts needs it) are imported at their first use: a server on SQLite, its app built on a
    database at the head (a first start migrates, with Alembic, which imports every dialect), has
    loaded neither."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    code = (
        "import server.app, server.connections, cli.serve_cmd\n"
        "from server.settings import Settings\n"
        f"server.app.make_app(Settings(database_url={url!r})).state.store.close()\n"
    )
    modules_after(code)  # the first start: it migrates the new file
    loaded = modules_after(code)
    assert "server.store.leases" in loaded
    assert not {"sqlalchemy.dialects.postgresql", "confusable_homoglyphs.confusables"} & loaded


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_summary_is_the_commands_own_first_paragraph(name: str) -> None:
    command = load_command(name)
    own = command.short_help or command.help or ""
    # How Typer's Markdown listing reads a command's help: its first paragraph, on one line.
    first = inspect.cleandoc(own).split("\n\n")[0].replace("\n", " ").strip()
    assert COMMANDS[name].summary == first


def help_of(group: TyperGroup, capsys: pytest.CaptureFixture[str]) -> str:
    """The root's ``--help`` as this group renders it (Typer prints it)."""
    capsys.readouterr()
    with group.make_context("unoduo", [], resilient_parsing=True) as ctx:
        said = group.get_help(ctx)
    return said + capsys.readouterr().out


def test_the_listing_reads_the_same_once_every_command_is_loaded(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("NO_COLOR", "1")
    lazy, loaded = typer.main.get_command(app), typer.main.get_command(app)
    assert isinstance(lazy, TyperGroup) and isinstance(loaded, TyperGroup)
    for name in COMMANDS:
        assert loaded.commands[name].name == name  # built: its listing shows the command itself
    shown = help_of(lazy, capsys)
    assert "Commands" in shown and COMMANDS["play"].summary[:40] in shown
    assert shown == help_of(loaded, capsys)
    assert isinstance(lazy.commands, LazyCommands) and not lazy.commands.own  # the listing loaded nothing


def test_the_engine_imports_a_module_and_what_it_uses_only() -> None:
    """What the terminal client takes from the engine loads neither pydantic nor the rest of it: the
    package's names are imported when first used, pydantic when a ruleset is first read from data."""
    loaded = modules_after(
        "import engine, engine.game.cards, engine.game.commands, engine.game.rulesets, engine.game.seat_names\n"
    )
    assert "pydantic" not in packages(loaded)
    assert not {"engine.game.decide", "engine.play.match", "engine.protocol.views", "engine.play.scenario"} & loaded


def test_every_name_of_the_engine_is_its_modules_own() -> None:
    """``from engine import decide`` is the function even when ``engine.game.decide`` (its module) was
    imported first, as when the package imported every name at once."""
    code = (
        "import engine.game.decide, engine.game.evolve, engine.play.match\n"
        "import engine\n"
        "from engine import decide, evolve\n"
        "from engine.game.decide import decide as own_decide\n"
        "from engine.game.evolve import evolve as own_evolve\n"
        "assert decide is own_decide and evolve is own_evolve\n"
        "assert engine.decide is own_decide and engine.evolve is own_evolve\n"
        "for name in engine.__all__:\n"
        "    getattr(engine, name)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
