"""The player screen's headless core (tui_client/models/player_model.py) on canned pages: the rating
lines, the chart (its braille dots and y-axis), the history's words, head-to-head, and the page as
``unoduo player show`` prints it."""

from __future__ import annotations

import unicodedata

from tests.tui.player_pages import DUO_RATINGS, GREEDY_SEAT, ann_page, item, newcomer_page
from tui_client.models.player_model import (
    BRAILLE_BASE,
    ChartSeries,
    axis_labels,
    braille_chart,
    change_words,
    chart_rows,
    chart_series,
    default_family,
    head_to_head_rows,
    history_rows,
    next_family,
    opponent_words,
    ordinal,
    page_lines,
    rating_of,
    ratings,
    sparkline,
    title_words,
    tournament_rows,
    versus_lines,
    who,
)


def dots(cell: str) -> set[tuple[int, int]]:
    """The (column, row) dots of one braille cell (a space: none)."""
    if cell == " ":
        return set()
    bits = ord(cell) - BRAILLE_BASE
    layout = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))
    return {(x, y) for y, row in enumerate(layout) for x, bit in enumerate(row) if bits & bit}


def test_ratings_by_family_with_the_provisional_mark() -> None:
    page = ann_page()
    duo, classic = ratings(page)
    assert (duo.family, duo.text, duo.details) == ("uno-duo", "1724 ± 60", "24 games")
    assert duo.line == "UNO Duo 1724 ± 60 · 24 games"
    assert (classic.short, classic.text, classic.details) == ("1489?", "1489? ± 290", "provisional · 3 games")
    fresh = ratings(newcomer_page())
    assert [r.text for r in fresh] == ["1500? ± 350", "1500? ± 350"] and all(r.games == 0 for r in fresh)
    # A page without a family (an older server) shows a newcomer's rating there, never a crash.
    assert rating_of({"ratings": {}}, "classic").text == "1500? ± 350"
    assert rating_of(page, "uno-duo").games_words == "24 games"


def test_the_chart_opens_on_the_family_with_most_games_and_f_goes_round() -> None:
    page = ann_page()
    assert default_family(page) == "uno-duo"
    assert next_family(page, "uno-duo") == "classic" and next_family(page, "classic") == "uno-duo"
    fresh = newcomer_page()
    assert default_family(fresh) == "uno-duo"  # a tie and no match: UNO Duo
    fresh["history"] = [item("m_1", "2026-11-01T10:00:00Z", [GREEDY_SEAT, GREEDY_SEAT], [0, 0], family="classic")]
    assert default_family(fresh) == "classic"  # a tie: the family of the latest match


def test_the_series_and_its_summary() -> None:
    series = chart_series(ann_page(), "uno-duo")
    assert series.values == tuple(float(v) for v in DUO_RATINGS)
    assert (series.low, series.high, series.current) == (1500.0, 1730.0, 1724.0)
    assert series.summary == "now 1724 · 1500–1730 · 24 matches"
    assert series.span == "2026-11-01 … 2026-11-04"
    empty = chart_series(newcomer_page(), "classic")
    assert empty.values == () and empty.summary == "no rated classic match yet"
    assert chart_rows(empty, 40, 6) == []


def test_a_rising_line_goes_from_the_bottom_left_to_the_top_right() -> None:
    rows = braille_chart([1500, 1600, 1700], 10, 3, 1500, 1700)
    assert len(rows) == 3 and all(len(r) == 10 for r in rows)
    assert (0, 3) in dots(rows[-1][0])  # the first point: the lowest dot of the first cell
    assert (1, 0) in dots(rows[0][-1])  # the last: the highest dot of the last cell
    # Joined: every dot column has a dot, so the line has no gap.
    columns = {2 * i + x for r in rows for i, cell in enumerate(r) for x, _y in dots(cell)}
    assert columns == set(range(20))


def test_one_rating_is_a_level_line_and_a_flat_series_sits_in_the_middle() -> None:
    one = chart_rows(ChartSeries("uno-duo", (1500.0,), ("2026-11-01",)), 20, 5)
    assert [label for label, _ in one] == ["1510┤", "    │", "1500┤", "    │", "1490┤"]
    lit = [i for i, (_label, line) in enumerate(one) if line.strip()]
    assert lit == [2] and " " not in one[2][1]  # across the whole width, in the middle row


def test_many_points_are_averaged_into_the_width() -> None:
    rows = braille_chart([1500.0] * 50 + [1700.0] * 50, 5, 2, 1500, 1700)  # 100 points, 10 dot columns
    assert len(rows) == 2 and all(len(r) == 5 for r in rows)
    assert dots(rows[0][-1]) and not dots(rows[0][0])  # high at the end only


def test_the_y_axis_labels_the_high_middle_and_low() -> None:
    labels = axis_labels(1500, 1730, 7)
    assert [s.strip() for s in labels] == ["1730", "", "", "1615", "", "", "1500"]
    assert len({len(s) for s in labels}) == 1  # one width: the plot starts in one column
    assert [s.strip() for s in axis_labels(950, 1020, 2)] == ["1020", "950"]


def test_sparkline() -> None:
    assert sparkline([1, 2, 3, 4, 5, 6, 7, 8], 8) == "▁▂▃▄▅▆▇█"
    assert sparkline([1500.0] * 3, 10) == "▄▄▄"
    assert len(sparkline([float(v) for v in range(300)], 40)) == 40
    assert sparkline([], 10) == ""


def test_history_rows_in_words() -> None:
    rows = history_rows(ann_page()["history"])
    by_match = {r.match: r.cells for r in rows}
    assert by_match["m_live"] == ("2026-12-02", "bob", "live", "12–40", "", "Spring Cup r3")
    assert by_match["m_duo023"] == ("2026-11-04", "deepuno [bot]", "lost", "88–212", "−6", "Spring Cup r2")
    assert by_match["m_table5"] == ("2026-11-04", "bob, cyd +2", "2nd of 5", "61", "+18", "casual")
    assert by_match["m_duo022"] == ("2026-11-04", "greedy-1 [bot]", "won", "40–204", "+17", "casual")
    assert by_match["m_duo021"][1:5] == ("bob", "lost", "201–96", "−11")  # her score first, from seat 1
    assert by_match["m_wait"] == ("–", "(empty seat)", "waiting", "", "", "casual")
    assert by_match["m_void"][2] == "annulled" and by_match["m_duo020"][2:5] == ("drawn", "150–150", "±0")
    assert [r.match for r in rows][:2] == ["m_live", "m_duo023"]  # newest first, as the server sends
    assert rows[0].names == ("ann", "bob") and rows[1].seat == 1
    short = history_rows(ann_page()["history"], (10, 8), short=True)
    assert short[0].cells[0] == "12-02" and short[1].cells[1] == "dee… [bot]" and short[1].cells[5] == "Spring …"
    table = ann_page()["history"][2]
    assert opponent_words(table) == "bob, cyd +2"  # the other four seats, clockwise from her left


def test_names_and_marks() -> None:
    assert who(GREEDY_SEAT) == "greedy-1 [bot]" and who({"name": "deep", "kind": "bot_account"}) == "deep [bot]"
    assert who({"name": "ann", "kind": "human"}) == "ann" and who(None) == "(empty seat)"
    assert who({"name": "a-very-long-name", "kind": "bot"}, 12) == "a-ver… [bot]"  # the name is cut, not the mark
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
    ]  # fmt: skip
    assert [change_words(x) for x in (12.4, -8.0, 0.3, None, True)] == ["+12", "−8", "±0", "", ""]
    assert unicodedata.name(change_words(-8)[0]) == "MINUS SIGN"
    assert title_words(ann_page()) == "ann · player · p_ann0001"
    assert title_words({"id": "bot:greedy", "name": "greedy-1", "kind": "bot"}) == "greedy-1 · house bot · bot:greedy"


def test_head_to_head_and_tournaments() -> None:
    rows = head_to_head_rows(ann_page())
    assert [r.cells for r in rows] == [
        ("bob", "9", "5–4–0"),
        ("greedy-1 [bot]", "6", "6–0–0"),
        ("deepuno [bot]", "4", "1–3–0"),
        ("cyd", "3", "1–1–1"),
    ]
    assert rows[0].key == "p_bob0002"
    assert [t.cells for t in tournament_rows(ann_page())] == [
        ("Spring Cup", "running", "2nd of 5"),
        ("Autumn Swiss", "finished", "1st of 8"),
    ]


def test_the_page_as_text_fits_80_columns() -> None:
    lines = page_lines(ann_page())
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    text = "\n".join(lines)
    assert lines[0] == "ann  (p_ann0001, human)"
    assert "UNO Duo  1724 ± 60 · 24 games" in text and "classic  1489? ± 290 · provisional · 3 games" in text
    assert "now 1724 · 1500–1730 · 24 matches" in text
    assert "last matches (newest first, 8 of 8)" in text and "greedy-1 [bot]" in text and "−11" in text
    assert "head-to-head (most played first)" in text and "6–0–0" in text and "Spring Cup" in text
    spark = next(line for line in lines if "now 1724" in line).split()[0]
    assert set(spark) <= set("▁▂▃▄▅▆▇█") and spark[0] == "▁" and spark[-1] in "▇█"
    assert len(page_lines(ann_page(), matches=3)) == len(lines) - 5  # three matches of eight
    # An older server's page (no ratings): who it is, nothing made up.
    assert page_lines({"id": "p_1", "name": "zed", "kind": "human"}) == ["zed  (p_1, human)"]
    fresh = "\n".join(page_lines(newcomer_page()))
    assert "1500? ± 350 · provisional · 0 games" in fresh and "no match yet" in fresh


def test_versus_as_text() -> None:
    page = ann_page()
    versus = {
        "player": {"id": "p_ann0001", "name": "ann", "kind": "human"},
        "opponent": GREEDY_SEAT,
        "played": 6,
        "won": 6,
        "lost": 0,
        "drawn": 0,
        "matches": [page["history"][3]],
    }
    lines = versus_lines(versus)
    assert lines[0] == "ann vs greedy-1 [bot]: 6 played, 6 won, 0 lost, 0 drawn"
    assert "40–204" in lines[-1] and all(len(line) <= 80 for line in lines)
