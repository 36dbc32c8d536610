"""Every ``unoduo … --help`` reads as plain words (issue 33, point 7).

The commands' help comes from their docstrings, written with reST's ``literal`` marks; Typer's
default "rich" markup mode showed those backticks as they are, and read any ``[word]`` as a
style tag and dropped it. The root app renders help as Markdown (cli/main.py), once for every
command: a literal is shown as code without its marks, brackets stay. ``tournament rule
--help`` names the rulings from the one list (engine/game/rulings.py), not a literal that fell behind.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer.core
import typer.main
from typer._click.core import Command  # Typer's own copy of click
from typer.testing import CliRunner

from cli.main import app
from engine.game.rulings import LAST_RULING, RULING_RANGE

BORDERS = re.compile(r"[│╭╮╰╯─]")


def commands() -> Iterator[tuple[list[str], Command]]:
    def walk(command: Command, path: list[str]) -> Iterator[tuple[list[str], Command]]:
        yield path, command
        if isinstance(command, typer.core.TyperGroup):
            for name, sub in command.commands.items():
                yield from walk(sub, [*path, name])

    yield from walk(typer.main.get_command(app), [])


def words(text: str) -> str:
    """``text`` as a run of words: no panel borders, no reST or Markdown code marks, one space."""
    return " ".join(BORDERS.sub(" ", text.replace("`", "")).split())


def help_of(path: list[str]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "250", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result.output


EVERY = list(commands())


@pytest.mark.parametrize("path", [p for p, _ in EVERY], ids=[" ".join(p) or "unoduo" for p, _ in EVERY])
def test_help_shows_no_markup_marks_and_loses_no_words(path: list[str]) -> None:
    command = dict((" ".join(p), c) for p, c in EVERY)[" ".join(path)]
    shown = help_of(path)
    assert "`" not in shown, shown
    said = words(shown)
    first_paragraph = (command.help or "").split("\n\n")[0]
    assert words(first_paragraph) in said, (first_paragraph, said)
    for param in command.params:
        text = getattr(param, "help", None)
        if text:
            assert words(text) in said, (param.name, text, said)


def test_tournament_rule_help_names_every_ruling() -> None:
    shown = words(help_of(["tournament", "rule"]))
    assert f"the ruling of RULES.md cited, {RULING_RANGE}" in shown
    assert f"D{LAST_RULING}" in shown and "D17" not in shown
