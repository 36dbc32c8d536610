"""``unoduo ratings rebuild`` and ``unoduo ratings list`` on a database a server wrote (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from cli.main import app
from server.store import ratings as rating_rows
from tests.server.conftest import app_client
from tests.server.test_tournaments import create, finished, start, tournament_when

runner = CliRunner()


def test_rebuild_folds_the_same_ratings_and_list_ranks_them(url: str) -> None:
    with app_client(url) as client:
        t = create(client, ["bot:greedy", "bot:random"], double=True)
        start(client, t["id"])
        tournament_when(client, t["id"], finished)
        assert client.get(f"/api/players/{t['players'][0]['id']}").json()["ratings"]["uno-duo"]["games"] == 2
        engine = client.app.state.store.engine  # type: ignore[attr-defined]
        before = rating_rows.all_rows(engine)
        done = runner.invoke(app, ["ratings", "rebuild", "--db", url])
        assert done.exit_code == 0, done.output
        assert "2 finished matches read, 2 rated" in done.output and "casual matches not rated" in done.output
        assert rating_rows.all_rows(engine) == before
        listed = runner.invoke(app, ["ratings", "list", "--db", url])
        assert listed.exit_code == 0, listed.output
        lines = listed.output.splitlines()
        assert lines[0].split()[:2] == ["#", "player"] and len(lines) == 3
        assert {line.split()[1] for line in lines[1:]} == {"greedy", "random"}
        assert all(line.split()[2].endswith("?") for line in lines[1:])  # two matches: still provisional
        assert runner.invoke(app, ["ratings", "list", "--db", url, "--family", "chess"]).exit_code == 2


def test_db_takes_a_sqlite_files_path_as_serve_does_and_names_the_command(tmp_path: Path) -> None:
    """``--db`` of ``ratings`` and ``db`` reads a SQLite file's path like ``unoduo serve --db`` (it
    refused it: "not a database URL"); a database not migrated is refused by the command's own
    name (it said ``unoduo db list`` for ``unoduo ratings list``)."""
    path = tmp_path / "club.sqlite3"
    unmigrated = runner.invoke(app, ["ratings", "list", "--db", str(path)])
    assert unmigrated.exit_code == 1, unmigrated.output
    assert unmigrated.output.startswith("unoduo ratings list: the database is at revision none"), unmigrated.output
    assert runner.invoke(app, ["db", "upgrade", "--db", str(path)]).exit_code == 0
    listed = runner.invoke(app, ["ratings", "list", "--db", str(path)])
    assert listed.exit_code == 0, listed.output
    assert path.exists()
