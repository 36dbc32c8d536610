"""``unoduo scenario FILE``: run a stacked-deck script and print every answer as JSON.

``unoduo scenario --from REPLAY --at SEQ [--commands JSON|@FILE] [--hand SEAT=CODES ...]`` is a
what-if instead: the same answer, played from the position a verified replay reached at event SEQ.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from engine.game.errors import ReplayUnreadable, ScenarioError
from engine.game.seat_names import seat_count
from engine.play.scenario import HandEdit, load_scenario, read_text, run_from_replay, run_scenario
from engine.record.replay import parse_replay


def scenario(
    file: Path | None = typer.Argument(None, help="scenario JSON file (docs/PROTOCOL.md), or - for stdin"),
    source: Path | None = typer.Option(
        None, "--from", help="what-if: a replay file (.jsonl) of a finished match to start from, instead of FILE"
    ),
    at: int | None = typer.Option(None, "--at", help="what-if: start after this event (its seq) of the replay"),
    commands: str | None = typer.Option(
        None,
        "--commands",
        help='what-if: a JSON list of [seat, command] pairs or {"seat": ..., "type": ...} objects, or @FILE',
    ),
    hand: list[str] = typer.Option(
        [], "--hand", help="what-if: SEAT=CODES replaces that seat's hand at the start (1=G7,R5,W); once per seat"
    ),
    indent: int | None = typer.Option(None, help="pretty-print the output with this indent"),
) -> None:
    """Run a stacked-deck scenario, or a what-if from a replay: every command answered, then every seat's
    view and the audit view."""
    try:
        if source is None:
            output = _run_file(file, at, commands, hand)
        else:
            output = _run_what_if(file, source, at, commands, hand)
    except json.JSONDecodeError as exc:
        typer.echo(f"unoduo scenario: stdin is not valid JSON: {exc}", err=True)
        raise typer.Exit(2) from None
    except ScenarioError as exc:
        typer.echo(f"unoduo scenario: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(output, indent=indent, ensure_ascii=False))


def _run_file(file: Path | None, at: int | None, commands: str | None, hand: list[str]) -> dict[str, Any]:
    if file is None:
        raise ScenarioError("give a scenario FILE (or -), or --from REPLAY --at SEQ for a what-if")
    if at is not None or commands is not None or hand:
        raise ScenarioError("--at, --commands and --hand go with --from REPLAY; a scenario file holds its own commands")
    spec = json.load(sys.stdin) if str(file) == "-" else load_scenario(file)
    return run_scenario(spec)


def _run_what_if(
    file: Path | None, source: Path, at: int | None, commands: str | None, hand: list[str]
) -> dict[str, Any]:
    if file is not None:
        raise ScenarioError("give either a scenario FILE or --from REPLAY, not both")
    if at is None:
        raise ScenarioError("--from needs --at SEQ: the replay event to start after")
    text = read_text(source)
    seats = _seats_of(text)
    edits = [HandEdit.parse(edit, seats) for edit in hand]
    raw = None if commands is None else _commands_json(commands)
    return run_from_replay(text, at, raw, edits, source=str(source))


def _seats_of(text: str) -> int:
    """The replay's table size, so that ``--hand`` takes any of its seats (2 for a file that cannot
    be read: the what-if then says what is wrong with it)."""
    try:
        header, lines = parse_replay(text)
    except ReplayUnreadable:
        return 2
    first = lines[0].get("data") if lines and lines[0].get("type") == "match_created" else None
    return seat_count(header, first if isinstance(first, dict) else None)


def _commands_json(value: str) -> object:
    """``--commands``: inline JSON, or ``@FILE`` holding it."""
    where = "--commands"
    if value.startswith("@"):
        path = Path(value[1:])
        where = f"--commands file {path}"
        value = read_text(path)
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{where} is not valid JSON: {exc}") from None


def register(app: typer.Typer) -> None:
    app.command("scenario")(scenario)
