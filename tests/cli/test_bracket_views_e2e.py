"""The knockout views on a real run (issue 36.6): ``unoduo serve`` as a process runs a double
elimination of 8, a table knockout of 8 at tables of 4 and pools of 4 into a bracket, all house
bots, to their end; then, from what that server answers (no hand-made JSON):

- ``unoduo tournament show ID`` at 80 columns: the bracket as text rounds in playing order, every
  decided match ``alice 1 – 0 bob`` (a table by place), the final places, every line within 80;
- ``unoduo tournament trf ID`` says there is no standard export and ``unoduo tournament export
  ID`` writes the server's export.json;
- the terminal client at 80×24 opens each on its bracket, every node drawn, the places on top
  with the champion first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from cli.main import app
from tests.cli.serving import stop
from tests.cli.test_tournament_e2e import DIRECTOR, _start, _wait_finished
from tests.server.helpers import ok
from tests.tui.helpers import until
from tests.tui.test_play_snapshots import loaded
from tui_client.apps.play_app import make_play_app
from tui_client.models.bracket_model import draw, nodes_of
from tui_client.widgets.bracket_widget import BracketView

BOTS = ["bot:greedy", "bot:random"] * 4
RUNS: dict[str, dict[str, Any]] = {
    "double_elimination": {"rules": {"target": 60}},
    "table_knockout": {"ruleset": "classic", "table_size": 4, "rules": {"target": 200}},
    "pools": {"pool_size": 4, "rules": {"target": 60}},
}
DECIDED_TWO = re.compile(r"^  \S+ +.+ 1 – 0 .+$")


def unoduo(*args: str, base: str) -> Any:
    runner = CliRunner(env={"COLUMNS": "80", "UNODUO_DIRECTOR_TOKEN": None})
    return runner.invoke(app, ["tournament", *args, "--url", base])


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The three knockouts, run to their end on one server; (base URL, {format: tournament})."""
    server, base = _start(tmp_path_factory.mktemp("knockouts") / "k.sqlite3")
    try:
        with httpx.Client(base_url=base, timeout=30.0) as client:
            ids = {}
            for fmt, options in RUNS.items():
                body = {"name": f"{fmt} night", "players": BOTS, "format": fmt, **options}
                made = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
                ok(client.post(f"/api/tournaments/{made['id']}/start", headers=DIRECTOR))
                ids[fmt] = made["id"]
            yield base, {fmt: _wait_finished(client, tid) for fmt, tid in ids.items()}
    finally:
        out = stop(server)
        assert "Traceback" not in out, out


@pytest.mark.parametrize("fmt", list(RUNS))
def test_show_at_80_columns_reads_the_bracket_and_the_places(finished: Any, fmt: str) -> None:
    base, runs = finished
    t = runs[fmt]
    result = unoduo("show", t["id"], base=base)
    assert result.exit_code == 0, result.output
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    names = {p["id"]: p["name"] for p in t["players"]}
    champion = names[t["places"][0]["player"]]
    places = lines[lines.index("Final places") :]
    assert any(line.split()[:2] == ["1st", champion] for line in places), places
    for node in t["bracket"]:
        line = next(x for x in lines if x.startswith(f"  {node['id']} "))
        if node["status"] == "decided" and len(node["seats"]) == 2:
            assert DECIDED_TWO.match(line) and names[node["winner"]] in line.split(" 1 – 0 ")[0], line
        elif node["status"] == "decided":
            assert f"{names[node['winner']]} 1st" in line, line
    if fmt == "double_elimination":
        assert {"Winners' round 1", "Losers' round 1", "Grand final"} <= set(lines)
    if fmt == "table_knockout":
        assert "Table round 1 · the top 2 of each table go on" in lines and "Final table" in lines
    if fmt == "pools":
        assert lines.index("Pools (round-robin) · the top 2 of each pool go on to the bracket") < lines.index("Final")


@pytest.mark.parametrize("fmt", list(RUNS))
def test_no_trf_for_a_knockout_and_its_json_export(finished: Any, fmt: str, tmp_path: Path) -> None:
    base, runs = finished
    t = runs[fmt]
    refused = unoduo("trf", t["id"], base=base)
    assert refused.exit_code == 1 and "no standard export for this format" in refused.stderr
    assert f"use `unoduo tournament export {t['id']}`" in refused.stderr
    target = tmp_path / "export.json"
    written = unoduo("export", t["id"], "-o", str(target), base=base)
    assert written.exit_code == 0, written.output
    exported = json.loads(target.read_text(encoding="utf-8"))
    assert exported == ok(httpx.get(f"{base}/api/tournaments/{t['id']}/export.json"))
    assert exported["places"] == t["places"]


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", list(RUNS))
async def test_the_terminal_client_opens_on_the_bracket(finished: Any, fmt: str, tmp_path: Path) -> None:
    base, runs = finished
    t = runs[fmt]
    drawing = draw(t)
    assert set(drawing.anchors) >= {n.id for n in nodes_of(t)}
    champion = next(p["name"] for p in t["players"] if p["id"] == t["places"][0]["player"])
    assert drawing.lines[1].startswith(f"1st {champion}")
    async with make_play_app(base, config_dir=tmp_path, tournament=t["id"]).run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        view = screen.query_one("#bracket", BracketView)
        await until(pilot, lambda: view.has_focus, "the bracket's focus")  # given after the first paint
        assert view.display and view.drawing.plain() == drawing.plain()
        await pilot.press("end")  # scrolls with an animation: wait for its end
        await until(pilot, lambda: view.scroll_y == view.max_scroll_y > 0, "the bracket's end")
