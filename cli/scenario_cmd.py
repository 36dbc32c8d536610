"""``unoduo scenario FILE``: run a stacked-deck script and print every answer as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from engine.errors import ScenarioError
from engine.scenario import load_scenario, run_scenario


def scenario(
    file: Path = typer.Argument(..., help="scenario JSON file (docs/PROTOCOL.md), or - for stdin"),
    indent: int | None = typer.Option(None, help="pretty-print the output with this indent"),
) -> None:
    """Run a stacked-deck scenario: every command answered, then both seats' views and the audit view."""
    try:
        spec = json.load(sys.stdin) if str(file) == "-" else load_scenario(file)
        output = run_scenario(spec)
    except json.JSONDecodeError as exc:
        typer.echo(f"unoduo scenario: stdin is not valid JSON: {exc}", err=True)
        raise typer.Exit(2) from None
    except ScenarioError as exc:
        typer.echo(f"unoduo scenario: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(output, indent=indent, ensure_ascii=False))


def register(app: typer.Typer) -> None:
    app.command("scenario")(scenario)
