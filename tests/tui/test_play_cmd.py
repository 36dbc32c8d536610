"""``unoduo play``: the command is there, and what it refuses before any screen opens."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli.main import app


def test_play_is_a_command() -> None:
    result = CliRunner().invoke(app, ["play", "--help"])
    assert result.exit_code == 0
    assert "--server" in result.output and "--name" in result.output
    assert "--tournament" in result.output and "--director-token" in result.output


def test_web_is_a_command_each_browser_signs_in_and_single_user_stays_on_loopback() -> None:
    from cli.web_cmd import is_loopback, play_command_line

    result = CliRunner().invoke(app, ["web", "--help"])
    assert result.exit_code == 0 and "--host" in result.output and "--single-user" in result.output
    assert "0.0.0.0" in result.output and "127.0.0.1" in result.output
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    assert play_command_line("http://h:1", "ann o'neil").endswith("play --server http://h:1 --name 'ann o'\"'\"'neil'")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["play", "--server", " "], "--server must not be empty"),
        (["play", "--name", " "], "--name must not be empty"),
        (["play", "--tournament", " "], "--tournament must not be empty"),
        (["web", "--server", " "], "--server must not be empty"),
        (["web", "--name", "ann"], "--name and --config-dir go with --single-user"),
        (["web", "--config-dir", "/tmp/x"], "--name and --config-dir go with --single-user"),
    ],
)
def test_refused_arguments(args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1
