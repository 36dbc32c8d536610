"""``unoduo replay``: what it refuses before any screen opens (one line on stderr, exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["replay"], "give a FILE, or --server URL with --match ID"),
        (["replay", "--server", "http://127.0.0.1:1"], "give a FILE, or --server URL with --match ID"),
        (["replay", "x.jsonl", "--server", "http://s", "--match", "m"], "give a FILE, or --server URL"),
        (["replay", "/no/such/replay.jsonl"], "cannot read /no/such/replay.jsonl: No such file or directory"),
    ],
)
def test_refused_arguments(args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"", "the file is empty"),
        (b"not json\n", "line 1 is not JSON"),
        (b'{"format": "unoduo-replay", "version": 1}\n', "this is a version 1 replay"),
        (b"\xff\xfe\n", "is not UTF-8 text"),
    ],
)
def test_an_unreadable_file_is_one_line_and_exit_2(tmp_path: Path, content: bytes, says: str) -> None:
    file = tmp_path / "bad.jsonl"
    file.write_bytes(content)
    result = CliRunner().invoke(app, ["replay", str(file)])
    assert result.exit_code == 2
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("unoduo replay: ")
