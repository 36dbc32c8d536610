"""``unoduo tournament`` for every format (issue 22), against a stub server answering hand-made
JSON in the new API shape (tests/cli/format_samples.py): ``create``'s new options and the body
they send, ``show`` at 80 columns for a Swiss and a tables tournament (header, start times,
pairings, tables, the chain's standings columns, every line within 80 columns up to 64 players
with long names), ``trf`` to stdout or a file, ``list``'s format column, the server's refusals
shown as it says them."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from cli.main import app
from cli.standings_table import print_show, table_lines, wrapped
from cli.tournament_cmd import header, round_starts
from tests.cli.bracket_samples import double_elimination
from tests.cli.format_samples import LONG_NAME, swiss, tables
from tui_client.models.tournament_model import format_words, local_time_words, ordinal

TOKEN = "director-token-for-the-format-tests"
TRF = "012 Winter Swiss\n001    1      ann                               1800 ...\n"


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC unless a test says otherwise (start times print in the local zone)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def set_zone(monkeypatch: pytest.MonkeyPatch, zone: str) -> None:
    monkeypatch.setenv("TZ", zone)
    time.tzset()


# ---------------------------------------------------------------- a stub server


class Stub(BaseHTTPRequestHandler):
    """Canned answers by (method, path); every request's body is kept in ``seen``."""

    answers: ClassVar[dict[tuple[str, str], tuple[int, str, bytes]]] = {}
    seen: ClassVar[list[tuple[str, str, Any]]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        self.seen.append((self.command, self.path, json.loads(raw) if raw else None))
        status, kind, body = self.answers.get(
            (self.command, self.path), (404, "application/json", b'{"code": "not_found", "message": "nothing"}')
        )
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[str]:
    Stub.answers, Stub.seen = {}, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def answer(method: str, path: str, body: Any, status: int = 200) -> None:
    if isinstance(body, str):
        Stub.answers[(method, path)] = (status, "text/plain; charset=utf-8", body.encode())
    else:
        Stub.answers[(method, path)] = (status, "application/json", json.dumps(body).encode())


def unoduo(*args: str, url: str, columns: int | None = 80, token: str | None = TOKEN) -> Result:
    env = {"UNODUO_URL": None, "UNODUO_DIRECTOR_TOKEN": None, "FORCE_COLOR": None, "TTY_COMPATIBLE": None}
    runner = CliRunner(env={**env, "COLUMNS": None if columns is None else str(columns)})
    extra = ["--token", token] if token else []
    return runner.invoke(app, ["tournament", *args, "--url", url, *extra])


def shown_at(t: dict[str, Any], width: int = 80, wide: bool = False) -> list[str]:
    out = Console(width=width, color_system=None, force_terminal=False)
    with out.capture() as captured:
        print_show(out, t, header(t), wide=wide)
    return [line.rstrip() for line in captured.get().splitlines()]


def too_wide(lines: list[str], width: int = 80) -> list[str]:
    return [line for line in lines if len(line) > width]


# ---------------------------------------------------------------- show: the words


def test_the_header_says_the_format() -> None:
    assert format_words(swiss()) == "Swiss · 5 rounds"
    assert format_words(tables()) == "tables of 4 · 5 rounds · points 3/2/1/0"
    assert format_words({"format": "round_robin", "double": False}) == "round-robin"
    assert format_words({}) == "round-robin"  # an older server: no format key
    assert format_words({**tables(), "rounds_planned": 0, "rounds": []}) == "tables of 4 · points 3/2/1/0"
    assert header(swiss())[1].startswith("Swiss · 5 rounds · 20 players · ")
    assert header(tables(points=[5, 3, 1, 0]))[1].startswith("tables of 4 · 5 rounds · points 5/3/1/0 · 16 players")


def test_start_times_are_local(monkeypatch: pytest.MonkeyPatch) -> None:
    assert local_time_words("2026-12-08T19:30:00+00:00") == "Tue 8 Dec 19:30"
    set_zone(monkeypatch, "Asia/Tokyo")  # +09:00: the next day
    assert local_time_words("2026-12-08T19:30:00Z") == "Wed 9 Dec 04:30"
    assert local_time_words(None) == "" and local_time_words("not a time") == ""


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 10, 11, 12, 13, 21, 22)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "10th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
    ]


def test_a_swiss_at_80_columns() -> None:
    lines = shown_at(swiss())
    assert not too_wide(lines), too_wide(lines)
    head = next(line for line in lines if re.search(r"#\s+player", line))
    assert re.search(r"#\s+player\s+P\s+Score\s+Bch\s+SB\s+W\s+PD\s+PC\s+by$", head), head
    first = next(line for line in lines if re.match(r"\s*1\s+ann\s", line))
    assert re.search(r"\s2\s+3\s+8\s+11\s+3\s+213\s+191\s+Bch 8$", first), first
    assert any("gus (wd)" in line for line in lines)  # a withdrawal, marked and explained
    assert any("(wd) withdrawn" in line for line in lines)
    assert any(LONG_NAME[:19] + "…" in line for line in lines) and not any(LONG_NAME + " " in x for x in lines[:40])
    assert "Round 2 · finished · Tue 8 Dec 19:30" in lines
    assert "Round 4 · pending · Tue 22 Dec 19:30 · paired when it opens" in lines
    assert any(re.search(r"^\s+1\s+cyd\s+dan\s+cyd wins 101–43\s+m_sw_3_1$", line) for line in lines)


def test_a_tables_tournament_at_80_columns() -> None:
    t = tables()
    lines = shown_at(t)
    assert not too_wide(lines), too_wide(lines)
    head = next(line for line in lines if re.search(r"#\s+player", line))
    assert re.search(r"#\s+player\s+P\s+Pts\s+MP\s+1st\s+by$", head), head
    assert "Score" not in head and "Bch" not in head
    assert "Round 1 · finished · Tue 1 Dec 19:30" in lines and "Round 4 · pending" in lines
    # round 1's first table, by place: 1st to 4th with the totals
    assert "table 1: cyd 1st 187, dan 2nd 127, ann 3rd 67, bob 4th 0" in lines
    assert "table 2: hal, ivy, jon, kim · live m_tb_2_2" in lines  # seat order until decided
    assert "table 1: gus, hal, ivy, jon · pending" in lines
    legend = " ".join(lines)
    assert "Pts placement points" in legend and "MP match points" in legend and "1st firsts" in legend


def test_tables_of_ten_wrap_between_seats() -> None:
    t = tables(count=23, size=10, rounds_planned=3)
    lines = shown_at(t)
    assert not too_wide(lines), too_wide(lines)
    start = lines.index("Round 1 · finished · Tue 1 Dec 19:30")
    block = lines[start + 1 : lines.index("Round 2 · running · Tue 8 Dec 19:30")]
    assert block[0].startswith("table 1: ") and block[1].startswith("         ")  # a hanging indent
    said = " ".join(line.strip() for line in block)
    for seat in t["rounds"][0]["pairings"][1]["seats"]:
        assert re.search(rf"{re.escape(seat['name'])} \d+(st|nd|rd|th) \d+", said), seat["name"]
    assert said.count(" 1st ") == 3  # three tables (10, 10 and 3), one winner each


def test_wrapping_never_splits_a_seat() -> None:
    parts = [f"name{i:02d} {ordinal(i)} {i * 11}" for i in range(1, 11)]
    for width in (30, 40, 60, 80):
        lines = wrapped("table 1: ", parts, width)
        assert all(len(line) <= width for line in lines)
        joined = " ".join(line.strip() for line in lines)
        assert joined == "table 1: " + ", ".join(parts)


@pytest.mark.parametrize("fmt", ["swiss", "tables"])
def test_64_players_with_20_character_names_fit_80_columns(fmt: str) -> None:
    t = swiss(count=64, rounds_planned=7) if fmt == "swiss" else tables(count=64, size=8, rounds_planned=3)
    for p in t["players"]:
        p["name"] = (p["name"] * 5)[:20]
    for row in t["standings"]:
        row["name"] = (row["name"] * 5)[:20]
        # the widest numbers a 7-round Swiss gives: a Buchholz of 49, SB of 3 digits, PD of 5 places
        row["tiebreaks"] = {k: v * (97 if "points" in k else 5) for k, v in row["tiebreaks"].items()}
    lines = shown_at(t)
    assert not too_wide(lines), too_wide(lines)
    ranks = [line for line in lines if re.match(r"\s*\d+\s+\S", line) and " P " not in line]
    assert any(re.match(r"\s*64\s", line) for line in ranks)


def test_table_lines_say_a_forfeit_and_a_replay() -> None:
    t = tables()
    pairing = t["rounds"][0]["pairings"][0]
    pairing["result"]["forfeit"], pairing["result"]["reason"] = True, "join_deadline"
    pairing["annulled"] = ["m_old"]
    line = table_lines(t["rounds"][0], {}, 200)[0]
    assert line.endswith("· forfeit (join deadline) · replayed (annulled m_old)"), line
    assert "187" not in line  # a forfeit's totals are not points scored


# ---------------------------------------------------------------- the commands, against the stub


def test_create_sends_the_formats_options(stub: str) -> None:
    created = {**tables(), "status": "created", "rounds": []}
    answer("POST", "/api/tournaments", created)
    args = ["create", "Club night", "-p", "bot:greedy", "-p", "bot:random", "-p", "bot:greedy"]
    result = unoduo(
        *args,
        *("--format", "tables", "--rounds", "5", "--table-size", "4", "--placement-points", "3,2,1,0"),
        *("--round-start", "2026-12-01T19:30+01:00", "--round-start", "2026-12-08 19:30"),
        url=stub,
    )
    assert result.exit_code == 0, result.output
    assert "tables of 4 · 5 rounds · points 3/2/1/0" in result.stdout.splitlines()[0]
    method, path, body = Stub.seen[-1]
    assert (method, path) == ("POST", "/api/tournaments")
    assert body["format"] == "tables" and body["rounds"] == 5 and body["table_size"] == 4
    assert body["placement_points"] == [3, 2, 1, 0]
    assert body["round_starts"] == ["2026-12-01T19:30:00+01:00", "2026-12-08T19:30:00+00:00"]  # TZ=UTC


def test_a_round_robin_body_is_as_before(stub: str) -> None:
    answer("POST", "/api/tournaments", {**swiss(), "format": "round_robin", "status": "created", "rounds": []})
    assert unoduo("create", "Cup", "-p", "bot:greedy", "-p", "bot:random", url=stub).exit_code == 0
    body = Stub.seen[-1][2]
    assert not {"format", "rounds", "table_size", "placement_points", "round_starts"} & set(body)


def test_a_local_round_start_gets_the_local_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    set_zone(monkeypatch, "Europe/Berlin")
    assert round_starts(["2026-12-08 19:30", "2026-07-07T19:30"]) == [
        "2026-12-08T19:30:00+01:00",
        "2026-07-07T19:30:00+02:00",  # summer time: the offset of that date
    ]
    assert round_starts(["2026-12-08T18:30:00Z"]) == ["2026-12-08T18:30:00+00:00"]


def test_bad_options_stop_before_sending(stub: str) -> None:
    bad_points = unoduo("create", "Cup", "--format", "tables", "--placement-points", "3,two,1", url=stub)
    assert bad_points.exit_code == 2 and "--placement-points takes whole numbers" in bad_points.output
    bad_start = unoduo("create", "Cup", "--round-start", "next tuesday", url=stub)
    assert bad_start.exit_code == 2 and "--round-start takes a date and time" in bad_start.output
    bad_format = unoduo("create", "Cup", "--format", "knockout", url=stub)
    assert bad_format.exit_code == 2
    assert Stub.seen == []


def test_the_servers_400_is_shown_as_it_says_it(stub: str) -> None:
    refusal = {"code": "bad_request", "message": "a Swiss needs rounds: at most 19 for 20 players"}
    answer("POST", "/api/tournaments", refusal, status=400)
    result = unoduo("create", "Cup", "--format", "swiss", "--rounds", "25", url=stub)
    assert result.exit_code == 1
    assert result.stderr.strip() == "error (400 bad_request): a Swiss needs rounds: at most 19 for 20 players"


def test_the_create_help_explains_local_times() -> None:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["tournament", "create", "--help"])
    text = " ".join(result.stdout.split())
    for option in ("--format", "--rounds", "--table-size", "--placement-points", "--round-start"):
        assert option in text
    assert "local time" in text and "offset" in text


def test_show_through_the_command(stub: str) -> None:
    answer("GET", "/api/tournaments/t_swiss", swiss())
    result = unoduo("show", "t_swiss", url=stub, token=None)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert not too_wide(lines) and "Round 5 · pending · Tue 29 Dec 19:30 · paired when it opens" in lines


def test_trf_to_stdout_and_to_a_file(stub: str, tmp_path: Path) -> None:
    answer("GET", "/api/tournaments/t_swiss", swiss())
    answer("GET", "/api/tournaments/t_swiss/trf", TRF)
    out = unoduo("trf", "t_swiss", url=stub, token=None)
    assert out.exit_code == 0 and out.stdout == TRF
    target = tmp_path / "swiss.trf"
    written = unoduo("trf", "t_swiss", "-o", str(target), url=stub, token=None)
    assert written.exit_code == 0 and target.read_text(encoding="utf-8") == TRF
    assert written.stdout == "" and f"to {target} (2 lines)" in written.stderr


def test_a_tables_tournament_has_no_trf_and_says_what_to_use(stub: str) -> None:
    answer("GET", "/api/tournaments/t_tables", tables())
    result = unoduo("trf", "t_tables", url=stub, token=None)
    assert result.exit_code == 1
    assert (
        result.stderr.strip() == "no standard export for this format (tables): use `unoduo tournament export t_tables`"
    )
    assert [path for _method, path, _body in Stub.seen] == ["/api/tournaments/t_tables"]  # the TRF not asked for


def test_a_knockouts_trf_points_to_its_json_export(stub: str, tmp_path: Path) -> None:
    de = double_elimination()
    answer("GET", "/api/tournaments/t_de", de)
    result = unoduo("trf", "t_de", url=stub, token=None)
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "no standard export for this format (double elimination): use `unoduo tournament export t_de`"
    )
    exported = {"id": "t_de", "format": "double_elimination", "bracket": de["bracket"], "places": None}
    answer("GET", "/api/tournaments/t_de/export.json", exported)
    target = tmp_path / "de.json"
    written = unoduo("export", "t_de", "-o", str(target), url=stub, token=None)
    assert written.exit_code == 0 and json.loads(target.read_text(encoding="utf-8")) == exported
    assert f"wrote the export of t_de to {target}" in written.stderr
    assert unoduo("export", "t_de", url=stub, token=None).stdout.startswith('{\n  "id": "t_de"')


def test_export_of_a_swiss_is_the_tournament_itself(stub: str) -> None:
    answer("GET", "/api/tournaments/t_swiss", swiss())
    result = unoduo("export", "t_swiss", url=stub, token=None)
    assert result.exit_code == 0 and json.loads(result.stdout) == swiss()
    assert "/api/tournaments/t_swiss/export.json" not in [path for _m, path, _b in Stub.seen]


def test_list_says_each_format(stub: str) -> None:
    listed = [
        {"id": "t_a", "name": "A", "status": "running", "players": 20, "rounds": 5, "opened": 2, "format": "swiss"},
        {"id": "t_b", "name": "B", "status": "created", "players": 4, "rounds": 3, "opened": 0},
    ]
    answer("GET", "/api/tournaments?limit=200", listed)  # a page at a time (issue 32): this one is the last
    result = unoduo("list", url=stub, token=None, columns=None)
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if "│ t_" in line}
    assert "swiss" in rows["t_a"] and "round_robin" in rows["t_b"]


def test_start_says_when_round_one_opens(stub: str) -> None:
    t = tables()
    t["rounds"][0]["status"] = "pending"
    answer("POST", "/api/tournaments/t_tables/start", t)
    result = unoduo("start", "t_tables", url=stub)
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.endswith(
        "(Club night, tables of 4 · 5 rounds · points 3/2/1/0): 5 rounds; round 1 opens Tue 1 Dec 19:30"
    )
    assert "table 1: cyd 1st 187, dan 2nd 127, ann 3rd 67, bob 4th 0" in result.stdout


def test_the_tz_fixture_is_in_force() -> None:
    assert os.environ["TZ"] == "UTC"


def test_wide_adds_the_counts_and_the_lot() -> None:
    lines = shown_at(swiss(), width=160, wide=True)
    head = next(line for line in lines if re.search(r"#\s+player", line))
    assert re.search(r"P\s+W–L\s+byes\s+forfeits\s+points for–against\s+Score\s+Bch.*PC\s+lot\s+by$", head), head
    assert any(LONG_NAME in line for line in lines[:40])  # whole names when wide
