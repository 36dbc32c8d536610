"""``unoduo player find/show/code`` and ``unoduo play --sign-out`` against a real ``unoduo serve``;
``unoduo play``'s sign-in arguments refused in one line before any screen opens."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner, Result

from cli.main import app
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tui_client.connection.config import ConfigStore, Credentials

TOKEN = "director-token-for-the-player-cli-tests"
runner = CliRunner(env={"UNODUO_URL": None, "UNODUO_DIRECTOR_TOKEN": None, "UNODUO_PASSWORD": None, "COLUMNS": "80"})


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    db = tmp_path_factory.mktemp("player_cmd") / "p.sqlite3"
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=serve_env(UNODUO_DIRECTOR_TOKEN=TOKEN))
    try:
        wait_until_up(url, process)
        for name in ("Ann", "annette", "bob"):
            assert httpx.post(f"{url}/api/players", json={"name": name}, timeout=30).status_code == 201
        yield url
    finally:
        output = stop(process)
    assert "Traceback" not in output, output


def player(*args: str, url: str, token: str | None = None) -> Result:
    options = ["--url", url] + (["--token", token] if token is not None else [])
    result = runner.invoke(app, ["player", *args, *options])
    assert "Traceback" not in result.output, result.output
    return result


def test_find_lists_players_by_the_start_of_their_name(base: str) -> None:
    found = player("find", "AN", url=base)
    assert found.exit_code == 0, found.output
    assert "Ann" in found.stdout and "annette" in found.stdout and "bob" not in found.stdout
    listed = json.loads(player("find", "an", "--json", url=base).stdout)
    assert [p["name"] for p in listed] == ["Ann", "annette"]
    nobody = player("find", "zed", url=base)
    assert nobody.exit_code == 0 and "no player's name starts with 'zed'" in nobody.stdout


def test_show_by_name_or_id_and_a_one_line_404(base: str) -> None:
    shown = json.loads(player("show", "ann", "--json", url=base).stdout)
    assert shown["name"] == "Ann"
    assert player("show", shown["id"], url=base).stdout.startswith(f"Ann  ({shown['id']}, human)")
    missing = player("show", "nobody", url=base)
    assert missing.exit_code == 1 and missing.stdout == ""
    assert missing.stderr.strip() == "error (404 not_found): no player or house bot 'nobody'"


def test_code_needs_the_director_and_signs_in_once(base: str) -> None:
    without = player("code", "bob", url=base)
    assert without.exit_code == 2 and "director's token" in without.stderr
    made = player("code", "bob", url=base, token=TOKEN)
    assert made.exit_code == 0, made.output
    code = made.stdout.split(": ")[1].split()[0]
    assert len(code) == 9 and code[4] == "-" and "unoduo play --name bob --code" in made.stdout
    first = httpx.post(f"{base}/api/sessions", json={"name": "bob", "code": code}, timeout=30)
    again = httpx.post(f"{base}/api/sessions", json={"name": "bob", "code": code}, timeout=30)
    assert (first.status_code, again.status_code) == (201, 401)


def test_play_sign_out_signs_the_saved_token_out(base: str, tmp_path: Path) -> None:
    body = httpx.post(f"{base}/api/players", json={"name": "cy"}, timeout=30).json()
    store = ConfigStore(base, tmp_path)
    store.save_credentials(Credentials(store.server, body["id"], "cy", body["token"]))
    result = runner.invoke(app, ["play", "--server", base, "--config-dir", str(tmp_path), "--sign-out"])
    assert result.exit_code == 0 and "signed out" in result.stdout and "(cy)" in result.stdout, result.output
    assert store.load_credentials() is None
    me = httpx.get(f"{base}/api/me", headers={"Authorization": f"Bearer {body['token']}"}, timeout=30)
    assert me.status_code == 401
    again = runner.invoke(app, ["play", "--server", base, "--config-dir", str(tmp_path), "--sign-out"])
    assert again.exit_code == 0 and "nothing to sign out" in again.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--code", "ABCD-EFGH"], "give --name too"),
        (["--name", "ann", "--code", " "], "--code must not be empty"),
        (["--name", "ann", "--password"], "without one, set UNODUO_PASSWORD"),  # no terminal to ask on
    ],
)
def test_play_refuses_sign_in_arguments_it_cannot_use(args: list[str], says: str) -> None:
    result = runner.invoke(app, ["play", *args])
    assert result.exit_code == 2, result.output
    assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_play_refuses_a_code_with_a_password() -> None:
    result = runner.invoke(app, ["play", "--name", "ann", "--code", "ABCD-EFGH"], env={"UNODUO_PASSWORD": "p" * 10})
    assert result.exit_code == 2 and "do not go together" in result.stderr
