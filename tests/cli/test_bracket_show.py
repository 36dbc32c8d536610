"""``unoduo tournament show`` for a knockout (issue 36.6) at 80 columns: the bracket as text
rounds in the order they are played, each match ``alice 1 – 0 bob`` or ``alice v (winner of
W1-3)``, a table's seats by place, the pools with each player's record, then the final places
(ties shared), every line within 80 columns however long the names. From the API answers of
tests/cli/bracket_samples.py."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from cli.standings_table import print_show
from cli.tournament_cmd import header
from tests.cli.bracket_samples import double_elimination, pools_into_bracket, single_elimination, table_knockout
from tui_client.models.bracket_model import round_lines
from tui_client.models.tournament_model import with_labels


def shown_at(t: dict[str, Any], width: int = 80) -> list[str]:
    out = Console(width=width, record=True, force_terminal=False)
    print_show(out, with_labels(t), header(t))
    return [line.rstrip() for line in out.export_text().splitlines()]


def test_a_double_elimination_reads_round_by_round() -> None:
    lines = shown_at(double_elimination())
    headings = [line for line in lines if line and not line.startswith(" ")][4:]
    assert headings == [
        "Winners' round 1",
        "Winners' round 2",
        "Losers' round 1",
        "Winners' round 3",
        "Losers' round 2",
        "Winners' final",
        "Losers' round 3",
        "Losers' round 4",
        "Losers' round 5",
        "Losers' final",
        "Grand final",
        "Grand final reset",
    ]
    assert "  W1-3  max 1 – 0 dan" in lines  # the upset: seed 13 beat seed 4
    assert "  W4-1  ann v bob · live" in lines
    assert "  L4-2  max v (winner of L3-2)" in lines
    assert "  GF    (winner of W4-1) v (winner of L6-1)" in lines
    assert "Final places" not in lines  # not over yet
    assert all(len(line) <= 80 for line in lines)


def test_a_finished_single_elimination_has_its_byes_and_places() -> None:
    lines = shown_at(single_elimination())
    assert "  W1-1  ann (bye)" in lines and "  F     ann 1 – 0 cyd" in lines
    places = lines[lines.index("Final places") :]
    rows = [line.split(None, 1) for line in places[4:] if line.strip()]
    assert rows == [["1st", "ann"], ["2nd", "cyd"], ["3rd=", "dan, bob"], ["5th=", "eve, fay"]]


def test_a_table_knockout_says_who_goes_on() -> None:
    lines = shown_at(table_knockout())
    assert "Table round 1 · the top 2 of each table go on" in lines
    assert "  T1-2  ola 1st, jon 2nd, gus 3rd, bob 4th" in lines  # by place once decided
    assert "  T2-2  ola, cyd, hal, eve · live" in lines
    assert "Final table" in lines
    assert "  F     jon, (1st of table T2-2), fay, (2nd of table T2-2)" in lines


def test_pools_then_their_bracket() -> None:
    lines = shown_at(pools_into_bracket())
    at = lines.index("Pools (round-robin) · the top 2 of each pool go on to the bracket")
    assert lines[at + 1] == "  pool A: ivy 3–0 · ann 2–1 · pip 1–2 · hal 0–3"
    assert lines.index("Round 1 · finished") < lines.index("Quarter-final") < lines.index("Final")


def test_long_names_and_tables_of_ten_fit_80_columns() -> None:
    t = table_knockout()
    long = {p["id"]: {**p, "name": f"{p['name']}-with-a-very-long-surname"} for p in t["players"]}
    t["players"] = list(long.values())
    for node in t["bracket"]:  # ten seats a table: the line breaks between seats
        node["seats"] = (node["seats"] * 3)[:10]
        node["sources"] = (node["sources"] * 3)[:10]
    lines = shown_at(t)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    de = double_elimination()
    de["players"] = [{**p, "name": p["name"] * 12} for p in de["players"]]
    assert all(len(line) <= 80 for line in shown_at(de))
    assert all(len(line) <= 76 for _h, body in round_lines(de, 76) for line in body)


def test_a_forfeit_says_so_and_a_long_line_breaks_before_the_note() -> None:
    from tui_client.models.bracket_model import draw

    de = double_elimination()
    pairing = next(p for r in de["rounds"] for p in r["pairings"] if p["node"] == "W1-3")
    pairing["result"] = {**pairing["result"], "forfeit": True, "reason": "join_deadline", "scores": [0, 0]}
    assert "  W1-3  max 1 – 0 dan (forfeit: join deadline)" in shown_at(de)
    box = draw(de).lines[draw(de).anchors["W1-3"][0]]
    assert "W1-3" in box and "forfeit" in box
    pairing["result"]["reason"] = "no_show_of_both_seats_at_the_table"  # a longer note than any reason
    de["players"] = [{**p, "name": p["name"] * 7} for p in de["players"]]  # 21 characters: cut to 20
    lines = shown_at(de)
    at = next(i for i, line in enumerate(lines) if line.startswith("  W1-3 "))
    assert lines[at].endswith("1 – 0 dandandandandandand…")
    assert lines[at + 1].strip() == "(forfeit: no show of both seats at the table)"
    assert all(len(line) <= 80 for line in lines)
