"""``unoduo play``: the command is there, and what it refuses before any screen opens."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli.main import app


def test_play_is_a_command() -> None:
    result = CliRunner().invoke(app, ["play", "--help"])
    assert result.exit_code == 0
    assert "--server" in result.output and "--name" in result.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["play", "--server", " "], "--server must not be empty"),
        (["play", "--name", " "], "--name must not be empty"),
    ],
)
def test_refused_arguments(args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1
