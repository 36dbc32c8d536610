"""``unoduo tournament …`` against a real ``unoduo serve`` process: the director's commands, their
tables, and a one-line error (never a traceback) for every refusal."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from bench.progress import Stall
from cli.main import app
from cli.tournament_cmd import parse_rules
from tests.cli.serving import free_port, running
from tests.server.helpers import ok, register

TOKEN = "director-token-for-the-cli-tests"
STANDING_HEADERS = (
    "rank",
    "player",
    "played",
    "won",
    "lost",
    "byes",
    "forfeits",
    "points for",
    "points against",
    "match wins",
    "head to head",
    "sonneborn berger",
    "points difference",
    "points conceded",
    "lot",
    "decided by",
)
# No terminal, colours or width from the developer's environment: plain, whole-row tables.
runner = CliRunner(
    env={
        "UNODUO_URL": None,
        "UNODUO_DIRECTOR_TOKEN": None,
        "COLUMNS": None,
        "FORCE_COLOR": None,
        "TTY_COMPATIBLE": None,
    }
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(
        tmp_path_factory.mktemp("tournament_cmd") / "x.sqlite3", clean=True, UNODUO_DIRECTOR_TOKEN=TOKEN
    ) as url:
        yield url


def unoduo(*args: str, url: str, token: str | None = TOKEN) -> Result:
    options = ["--url", url] + (["--token", token] if token is not None else [])
    result = runner.invoke(app, ["tournament", *args, *options])
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def refused(result: Result, code: int = 1) -> str:
    """A refusal: the exit code, one line on stderr, nothing on stdout."""
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return result.stderr.strip()


def create(base: str, name: str, *extra: str) -> str:
    players = ["-p", "bot:greedy", "--player", "bot:random", "-p", "bot:greedy"]
    result = unoduo("create", name, *players, "--rule", "target=30", *extra, url=base)
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("created tournament t_") and "target 30" in first, first
    return first.split()[2]


def shown(base: str, tournament_id: str) -> dict[str, Any]:
    result = unoduo("show", tournament_id, "--json", url=base, token=None)
    assert result.exit_code == 0, result.output
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def finished(base: str, tournament_id: str) -> dict[str, Any]:
    """Poll until finished; fails only when its rounds and pairings have not moved for the stall window."""
    stall = Stall()
    while not stall.stuck:
        t = shown(base, tournament_id)
        if t["status"] == "finished":
            return t
        stall.moved(repr(t["rounds"]))
        time.sleep(0.2)
    raise AssertionError(f"tournament {tournament_id} stopped moving: {t}")


def test_rule_values_are_json_when_they_parse() -> None:
    assert parse_rules(["target=100", "draw_two_stacking=false", "deal=draft", "x="]) == {
        "target": 100,
        "draw_two_stacking": False,
        "deal": "draft",
        "x": "",
    }


def test_a_rule_that_is_not_key_value_is_a_usage_error(base: str) -> None:
    result = unoduo("create", "Cup", "-p", "bot:greedy", "-p", "bot:random", "--rule", "target", url=base)
    assert "KEY=VALUE" in refused(result, 2)


def test_create_start_and_show(base: str) -> None:
    tournament_id = create(base, "Spring Cup")
    t = shown(base, tournament_id)
    assert t["status"] == "created" and t["rules"]["target"] == 30
    names = [p["name"] for p in t["players"]]
    assert names == ["greedy", "random", "greedy-2"]

    started = unoduo("start", tournament_id, url=base)
    assert started.exit_code == 0, started.output
    assert f"started tournament {tournament_id} (Spring Cup): 3 rounds" in started.stdout
    assert "Round 1" in started.stdout

    t = finished(base, tournament_id)
    result = unoduo("show", tournament_id, url=base, token=None)
    assert result.exit_code == 0, result.output
    out = result.stdout
    header = out.splitlines()[0]
    assert header.startswith(f"Spring Cup ({tournament_id}) · finished · uno-duo (target 30) · commitment ")
    assert t["commitment"] in header and t["server_seed"] in out
    assert "Standings" in out
    for column in STANDING_HEADERS:
        assert column in out, column
    for name in names:
        assert name in out
    for number in (1, 2, 3):
        assert f"Round {number} · finished" in out
    for round_ in t["rounds"]:
        names_by_id = {p["id"]: p["name"] for p in t["players"]}
        assert f"bye: {names_by_id[round_['bye']]}" in out
        for pairing in round_["pairings"]:
            result_ = pairing["result"]
            white, black = result_["scores"]
            first, second = (white, black) if result_["winner"] == pairing["white"]["id"] else (black, white)
            assert f"{names_by_id[result_['winner']]} wins {first}–{second} (lowest total wins)" in out
            assert pairing["match"] in out

    again = refused(unoduo("start", tournament_id, url=base))
    assert again == f"error (409 not_now): tournament '{tournament_id}' has already started"


def test_create_with_start_and_list(base: str) -> None:
    tournament_id = create(base, "Quick Cup", "--start")
    t = shown(base, tournament_id)
    assert t["status"] in ("running", "finished")

    result = unoduo("list", url=base, token=None)
    assert result.exit_code == 0, result.output
    assert "Tournaments" in result.stdout
    assert tournament_id in result.stdout and "Quick Cup" in result.stdout
    listed = json.loads(unoduo("list", "--json", url=base).stdout)
    assert tournament_id in [row["id"] for row in listed]


def test_a_director_command_without_a_token_is_not_sent(base: str) -> None:
    for args in (["start", "t_0"], ["disputes"], ["rule", "t_0-d1", "stands", "--note", "n"], ["withdraw", "t_0", "p"]):
        message = refused(unoduo(*args, url=base, token=None), 2)
        assert "director's token" in message and "UNODUO_DIRECTOR_TOKEN" in message


def test_a_wrong_token_is_the_servers_refusal(base: str) -> None:
    message = refused(unoduo("disputes", url=base, token="not-the-director-token"))
    assert message.startswith("error (401 unauthorized): ")


def test_an_unreachable_server_is_one_clear_line() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    for args, token in ((["list"], None), (["start", "t_0"], TOKEN)):
        message = refused(unoduo(*args, url=url, token=token))
        assert message.startswith(f"cannot reach the server at {url}: "), message


class NotUnoduo(BaseHTTPRequestHandler):
    """Another program at the address: ``{}`` for every GET, a plain-text 502 for every POST."""

    def _answer(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer(200, b"{}", "application/json")

    def do_POST(self) -> None:
        self._answer(502, b"<h1>Bad  Gateway</h1>\n", "text/html")

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_answers_that_are_not_the_servers_are_one_line() -> None:
    stub = ThreadingHTTPServer(("127.0.0.1", 0), NotUnoduo)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{stub.server_address[1]}"
    try:
        message = refused(unoduo("show", "t_1", url=url, token=None))
        assert message.startswith("the server's answer does not have the documented shape (KeyError: "), message
        message = refused(unoduo("list", url=url, token=None))
        assert message == "the server answered GET /api/tournaments with something other than a JSON list of objects"
        assert refused(unoduo("start", "t_1", url=url)) == "error (502): <h1>Bad Gateway</h1>"
    finally:
        stub.shutdown()
        stub.server_close()


def test_unknown_things_are_the_servers_404(base: str) -> None:
    tournament_id = create(base, "Withdrawals")
    message = refused(unoduo("withdraw", tournament_id, "nobody", "--note", "gone", url=base))
    assert message == "error (404 not_found): no player or house bot 'nobody'"
    message = refused(unoduo("show", "t_0000000000000000", url=base, token=None))
    assert message == "error (404 not_found): no tournament 't_0000000000000000'"
    message = refused(unoduo("rule", "t_0000000000000000-d1", "stands", "--note", "fine", url=base))
    assert message == "error (404 not_found): no dispute 't_0000000000000000-d1'"
    message = refused(unoduo("create", "Cup", "-p", "bot:nope", "-p", "bot:random", url=base))
    assert message == "error (404 not_found): no player or house bot 'bot:nope'"


def test_disputes_listed_and_ruled(base: str) -> None:
    empty = unoduo("disputes", url=base)
    assert empty.exit_code == 0 and empty.stdout.strip() == "no open disputes", empty.output
    assert json.loads(unoduo("disputes", "--all", "--json", url=base).stdout) == []

    # A human entrant who never joins keeps the tournament running while the dispute is open.
    with httpx.Client(base_url=base, timeout=10.0) as client:
        zoe, headers = register(client, "zoe")
        started = unoduo("create", "Disputed", "-p", zoe, "-p", "bot:greedy", "--start", url=base)
        assert started.exit_code == 0, started.output
        tournament_id = started.stdout.split()[2]
        match_id = shown(base, tournament_id)["rounds"][0]["pairings"][0]["match"]
        body = {"seq": 1, "note": "the [red]deal looks wrong"}
        dispute = ok(client.post(f"/api/matches/{match_id}/disputes", headers=headers, json=body), 201)

    listed = unoduo("disputes", url=base)
    assert listed.exit_code == 0, listed.output
    # In words and by names (issue 20): the pairing, who disputed which event, the note, the evidence.
    said = " ".join(listed.stdout.split())
    for text in (
        f"{dispute['id']} · open · Disputed, round 1 board 1: zoe vs greedy",
        "event #1, disputed by zoe (seat 0)",
        '"the [red]deal looks wrong"',
        "waiting for the director's ruling",
        f"the evidence: {dispute['audit_view']}",
        f"unoduo play --tournament {tournament_id}",
    ):
        assert text in said, text
    assert match_id in said
    assert zoe not in said, "the player is named, not shown by id"
    assert max(len(line) for line in listed.stdout.splitlines()) <= 80

    ruled = unoduo("rule", dispute["id"], "award", "--seat", "0", "--rule", "D13", "--note", "misdeal", url=base)
    assert ruled.exit_code == 0, ruled.output
    assert ruled.stdout.splitlines()[0] == f'ruled on {dispute["id"]}: award to seat 0 (D13) · "misdeal"'
    assert unoduo("disputes", url=base).stdout.strip() == "no open disputes"
    assert 'ruled: award to seat 0 (D13) · "misdeal"' in unoduo("disputes", "--all", url=base).stdout

    again = refused(unoduo("rule", dispute["id"], "stands", "--note", "again", url=base))
    assert again == f"error (409 not_now): dispute {dispute['id']} has been ruled already (award)"
    assert finished(base, tournament_id)["rounds"][0]["pairings"][0]["result"]["reason"] == "ruling"


def test_withdraw_by_name(base: str) -> None:
    with httpx.Client(base_url=base, timeout=10.0) as client:
        amy, _ = register(client, "amy")
    started = unoduo("create", "Walkout", "-p", amy, "-p", "bot:greedy", "-p", "bot:random", "--start", url=base)
    assert started.exit_code == 0, started.output
    tournament_id = started.stdout.split()[2]
    result = unoduo("withdraw", tournament_id, "amy", "--note", "ill", url=base)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"withdrew amy from {tournament_id} (Walkout): ")
    t = shown(base, tournament_id)
    assert [w["player"] for w in t["withdrawals"]] == [amy]
    assert "amy (withdrawn)" in unoduo("show", tournament_id, url=base).stdout
