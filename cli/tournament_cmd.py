"""``unoduo tournament …``: the director's commands, over HTTP to a running server (docs/TOURNAMENTS.md).

Every command sends one or two requests through :func:`call`, the one place that speaks HTTP:
a refusal is printed as the server's ``{"code", "message"}`` on one line (exit 1), a server that
does not answer as "cannot reach the server at URL" (exit 1). Director commands need the
director's token (``--token`` or ``UNODUO_DIRECTOR_TOKEN``) and stop before sending without one
(exit 2); ``show`` and ``list`` are public.
"""

from __future__ import annotations

import functools
import json
import os
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn, ParamSpec
from urllib.parse import quote

import httpx
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from cli.dispute_list import dispute_list, ruling_words
from engine.game.rulesets import RULESETS
from engine.game.rulings import RULING_RANGE
from engine.game.seat_names import player_label
from tui_client.models.tournament_model import format_words, is_knockout, local_time_words, with_labels

DEFAULT_URL = "http://127.0.0.1:8000"
TIMEOUT_SECONDS = 30.0
PIPE_WIDTH = 250  # output that is not a terminal has no width to fit: keep rows whole
NONE = "—"
P = ParamSpec("P")

tournament_app = typer.Typer(
    help="Tournaments on a running server (round robin, Swiss, classic at tables): create, start, follow, "
    "withdrawals, disputes, the FIDE TRF export.",
    no_args_is_help=True,
)

Url = Annotated[str, typer.Option("--url", envvar="UNODUO_URL", help="the server's address", show_default=True)]
Token = Annotated[
    str | None,
    typer.Option("--token", envvar="UNODUO_DIRECTOR_TOKEN", help="the director's token", show_default=False),
]
AsJson = Annotated[bool, typer.Option("--json", help="print the server's JSON instead of tables")]
TournamentArg = Annotated[str, typer.Argument(help="a tournament id (t_…)", show_default=False)]


class Format(StrEnum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    TABLES = "tables"
    SINGLE_ELIMINATION = "single_elimination"
    DOUBLE_ELIMINATION = "double_elimination"
    TABLE_KNOCKOUT = "table_knockout"
    POOLS = "pools"


class Decision(StrEnum):
    STANDS = "stands"
    REPLAY = "replay"
    AWARD = "award"


# ---------------------------------------------------------------- the HTTP call


@dataclass(frozen=True)
class Server:
    url: str
    token: str | None = None


def fail(message: str, code: int = 1) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(code)


def director(url: str, token: str | None) -> Server:
    """The server as the director: without a token, say so and stop before sending anything."""
    if not token:
        fail("this command needs the director's token: pass --token TOKEN or set UNODUO_DIRECTOR_TOKEN", 2)
    return Server(url, token)


def refusal(response: httpx.Response) -> str:
    """A 4xx/5xx answer as one line: the server's code and message when it sent them."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        rule = f" (rule {body['rule']})" if body.get("rule") else ""
        return f"error ({response.status_code} {body.get('code', '?')}): {body['message']}{rule}"
    text = " ".join(response.text.split())[:200] or response.reason_phrase
    return f"error ({response.status_code}): {text}"


def answer_to(
    server: Server, method: str, path: str, body: dict[str, Any] | None = None, params: dict[str, str] | None = None
) -> httpx.Response:
    """One request's answer (2xx), or a one-line error and exit 1 (never a traceback)."""
    headers = {"Authorization": f"Bearer {server.token}"} if server.token else {}
    url = server.url.rstrip("/")
    try:
        with httpx.Client(base_url=url, timeout=TIMEOUT_SECONDS) as client:
            response = client.request(method, path, json=body, params=params, headers=headers)
    except httpx.TimeoutException:
        fail(f"the server at {url} did not answer within {TIMEOUT_SECONDS:g} s")
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        fail(f"cannot reach the server at {url}: {str(exc) or type(exc).__name__}")
    if response.is_error:
        fail(refusal(response))
    return response


def call(
    server: Server, method: str, path: str, body: dict[str, Any] | None = None, params: dict[str, str] | None = None
) -> Any:
    """One request; its JSON answer, or a one-line error and exit 1 (never a traceback)."""
    url = server.url.rstrip("/")
    response = answer_to(server, method, path, body, params)
    try:
        return response.json()
    except ValueError:
        fail(f"the server at {url} answered {method} {path} with HTTP {response.status_code} but no JSON")


def call_object(server: Server, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    answer = call(server, method, path, body)
    if not isinstance(answer, dict):
        fail(f"the server answered {method} {path} with something other than a JSON object")
    return answer


def tournament_or_none(server: Server, tournament_id: str) -> dict[str, Any] | None:
    """The tournament, for the names it gives; None if it cannot be read (the ids are shown then)."""
    answer = call(server, "GET", f"/api/tournaments/{tournament_id}")
    return answer if isinstance(answer, dict) else None


def call_list(server: Server, path: str, params: dict[str, str] | None = None) -> list[dict[str, Any]]:
    answer = call(server, "GET", path, params=params)
    if not isinstance(answer, list) or not all(isinstance(item, dict) for item in answer):
        fail(f"the server answered GET {path} with something other than a JSON list of objects")
    return answer


LISTING_PAGE = 200  # GET /api/tournaments's largest page


def every_tournament(server: Server) -> list[dict[str, Any]]:
    """Every tournament, oldest first: ``GET /api/tournaments`` page by page (newest first, each page
    continuing ``before`` the last id of the page before), until a page comes back short."""
    listed: list[dict[str, Any]] = []
    seen: set[str] = set()
    params = {"limit": str(LISTING_PAGE)}
    while True:
        page = call_list(server, "/api/tournaments", params)
        fresh = [t for t in page if str(t.get("id")) not in seen]
        listed += fresh
        seen |= {str(t.get("id")) for t in fresh}
        if len(page) < LISTING_PAGE or not fresh:  # the last page (or a server that does not page)
            return listed[::-1]
        params = {"limit": str(LISTING_PAGE), "before": str(page[-1]["id"])}


def shaped(command: Callable[P, None]) -> Callable[P, None]:
    """A command whose output reads the server's answer: an answer without the documented keys
    (another program at that address, another version) is one line and exit 1, not a traceback."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            command(*args, **kwargs)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            fail(f"the server's answer does not have the documented shape ({type(exc).__name__}: {exc})")

    return run


# ---------------------------------------------------------------- printing


def console() -> Console:
    out = Console()
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.width = PIPE_WIDTH
    return out


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def table(title: str | None, columns: Iterable[str], rows: Iterable[Iterable[Any]]) -> Table:
    """A table of plain text (no markup read in names or notes), numbers right-aligned, long cells folded."""
    cells = [list(row) for row in rows]
    out = Table(title=title, title_justify="left", title_style="bold")
    for index, column in enumerate(columns):
        values = [row[index] for row in cells if row[index] is not None]
        numbers = bool(values) and all(isinstance(v, int) for v in values)
        out.add_column(column, justify="right" if numbers else "left", overflow="fold")
    for row in cells:
        out.add_row(*(Text(NONE if cell is None else str(cell)) for cell in row))
    return out


def changed_switches(t: dict[str, Any]) -> dict[str, Any]:
    """The ruleset's switches where the tournament differs from that ruleset's defaults here (a
    switch off by default, like round_limit, is not among the defaults: set whenever present)."""
    rules: dict[str, Any] = t.get("rules") or {}
    base = RULESETS.get(t["ruleset"])
    defaults = base.to_dict() if base is not None else {}
    return {key: value for key, value in rules.items() if value is not None and defaults.get(key) != value}


def ruleset_text(t: dict[str, Any]) -> str:
    """The ruleset's name, and the switches where it differs from that ruleset's defaults here."""
    if RULESETS.get(t["ruleset"]) is None:
        return str(t["ruleset"])
    changed = [f"{key} {value}" for key, value in changed_switches(t).items()]
    return f"{t['ruleset']} ({', '.join(changed)})" if changed else str(t["ruleset"])


def round_minutes_words(minutes: float) -> str:
    """A timed round's limit in words: ``15 min``, ``1.5 min``, ``3 s`` (under a minute)."""
    if minutes < 1:
        return f"{minutes * 60:.3g} s"
    return f"{minutes:g} min"


def names_of(t: dict[str, Any]) -> dict[str, str]:
    return {p["id"]: player_label(p["name"], p.get("kind")) for p in t["players"]}  # a bot account: "[bot]"


def header(t: dict[str, Any]) -> list[str]:
    kind = format_words(t)
    lines = [
        f"{t['name']} ({t['id']}) · {t['status']} · {ruleset_text(t)} · commitment {t['commitment']}",
        f"{kind} · {len(t['players'])} players · move clock {t['move_seconds']} s · join within "
        f"{t['join_seconds']} s · open disputes {t['open_disputes']}",
    ]
    if t.get("bot_accounts"):
        lines[-1] += " · bot accounts may enter"
    if t.get("seeding") == "rating":
        ratings = t.get("seed_ratings") or {}
        lines.append("seeded by rating" + (" at the start: " if ratings else " when it starts"))
        if ratings:
            shown = names_of(t)
            text = lines.pop() + ", ".join(f"{shown.get(p, p)} {r}" for p, r in ratings.items())
            lines.extend(textwrap.wrap(text, width=80, subsequent_indent="  "))
    if t.get("duplicate"):
        keys = t.get("deal_keys") or {}
        lines.append(
            "duplicate rounds: every pairing of a round on the same deal"
            + (
                f"; deal keys revealed for round {', '.join(keys)}"
                if keys
                else "; each round's deal key revealed at its end"
            )
        )
        lines.extend(f"  round {n}: {key}" for n, key in keys.items())
    if t.get("server_seed"):
        lines.append(f"seed (revealed): {t['server_seed']}")
    names = names_of(t)
    lines.extend(entry_rule_lines(t, names))
    for w in t["withdrawals"]:
        what = "results annulled" if w["annulled"] else "remaining matches forfeited"
        lines.append(f"withdrawn: {names.get(w['player'], w['player'])} ({what})")
    return lines


def entrants_table(t: dict[str, Any]) -> Table:
    rows = [
        (number, player_label(p["name"], p["kind"]), p["id"], p["kind"])
        for number, p in enumerate(t["players"], start=1)
    ]
    return table("Entrants (pairing numbers)", ["no.", "name", "id", "kind"], rows)


STANDING_COLUMNS = ["rank", "player", "played", "won", "lost", "byes", "forfeits", "points for", "points against"]


def tiebreak_names(standings: list[dict[str, Any]]) -> list[str]:
    """Every tie-break the server sent, in its order (the chain's)."""
    return list(dict.fromkeys(key for row in standings for key in row["tiebreaks"]))


def standings_table(t: dict[str, Any]) -> Table:
    standings: list[dict[str, Any]] = t["standings"]
    tiebreaks = tiebreak_names(standings)
    columns = [*STANDING_COLUMNS, *(name.replace("_", " ") for name in tiebreaks), "decided by"]
    rows = [
        [
            row["rank"],
            row["name"] + (" (withdrawn)" if row["withdrawn"] else ""),
            *(row[key] for key in ("played", "won", "lost", "byes", "forfeits", "points_for", "points_against")),
            *(row["tiebreaks"].get(name) for name in tiebreaks),
            (row["decided_by"] or "").replace("_", " ") or None,
        ]
        for row in standings
    ]
    return table("Standings", columns, rows)


def result_text(pairing: dict[str, Any], names: dict[str, str]) -> str | None:
    result = pairing.get("result")
    if result is None:
        return None
    winner = names.get(result["winner"], result["winner"]) if result["winner"] else None
    if result["forfeit"]:
        text = f"{winner} wins, forfeit ({result['reason']})" if winner else f"double forfeit ({result['reason']})"
    else:
        white, black = result["scores"]
        text = f"{winner} wins {white}–{black}" if winner else f"no winner {white}–{black}"
    if pairing.get("annulled"):
        text += f"; replayed (annulled {', '.join(pairing['annulled'])})"
    return text


def round_table(round_: dict[str, Any], names: dict[str, str]) -> Table:
    rows = [
        (p["board"], p["white"]["name"], p["black"]["name"], p["status"], result_text(p, names), p["match"])
        for p in round_["pairings"]
    ]
    from cli.standings_table import round_title

    out = table(
        round_title(round_),
        ["board", "white", "black", "status", "result (white–black)", "match"],
        rows,
    )
    notes = [f"bye: {names.get(round_['bye'], round_['bye'])}"] if round_.get("bye") else []
    notes += [round_["note"]] if round_.get("note") else []
    if notes:
        out.caption = Text("\n".join(notes))
        out.caption_justify = "left"
    return out


# ---------------------------------------------------------------- the commands


def parse_rules(entries: list[str]) -> dict[str, Any]:
    """``--rule key=value`` entries: the value as JSON when it parses (100, true), else a string."""
    rules: dict[str, Any] = {}
    for entry in entries:
        key, sep, raw = entry.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(f"--rule takes KEY=VALUE (e.g. target=100), not {entry!r}", 2)
        if key in rules:
            fail(f"--rule {key} is given twice", 2)
        try:
            rules[key] = json.loads(raw)
        except ValueError:
            rules[key] = raw
    return rules


def round_starts(entries: list[str]) -> list[str]:
    """``--round-start`` entries as ISO 8601 with an offset: one with an offset (or ``Z``) as
    given; a local time (``2026-12-08 19:30``) with this machine's offset at that date."""
    out = []
    for entry in entries:
        try:
            at = datetime.fromisoformat(entry.strip())
        except ValueError:
            fail(
                f"--round-start takes a date and time, e.g. 2026-12-08T19:30+01:00 or 2026-12-08 19:30, not {entry!r}",
                2,
            )
        out.append((at if at.tzinfo is not None else at.astimezone()).isoformat())
    return out


def parse_points(text: str) -> list[int]:
    """``--placement-points 3,2,1,0``: the points for 1st, 2nd, … at a table."""
    try:
        points = [int(part) for part in text.split(",")]
    except ValueError:
        fail(f"--placement-points takes whole numbers for 1st, 2nd, … separated by commas (3,2,1,0), not {text!r}", 2)
    return points


def settings_lines(t: dict[str, Any], rules_given: Iterable[str] = ()) -> list[str]:
    """Every setting of a tournament as the server recorded it, one per line, for the director to
    check after ``create``: the format, the ruleset's switches (those given with --rule and any
    other that differs from the ruleset's defaults), each round's start time, the clocks, entries."""
    rules: dict[str, Any] = t.get("rules") or {}
    keys = [*dict.fromkeys([*rules_given, *changed_switches(t)])]
    switches = " · ".join(f"{key} {rules.get(key)}" for key in keys)
    lines = [
        f"  format:   {format_words(t)}",
        f"  ruleset:  {t['ruleset']}" + (f" · {switches}" if switches else " (its defaults)"),
    ]
    starts = [(r["number"], local_time_words(r.get("starts_at"))) for r in t.get("rounds") or []]
    timed = [(number, words) for number, words in starts if words]
    lines.extend(f"  round {number}:  starts {words}" for number, words in timed)
    after, last = (timed[-1][0] + 1 if timed else 1), len(starts)
    if after == last:
        lines.append(f"  round {after}:  opens when round {after - 1} is over")
    elif after < last or not starts:
        opening = "round 1 at the start, then each" if after == 1 else f"from round {after} on, each"
        lines.append(f"  rounds:   {opening} when the one before is over")
    lines.append(f"  clocks:   {t['move_seconds']} s a move · {t['join_seconds']} s to join once a round opens")
    if t.get("round_minutes"):
        lines.append(f"  timed:    {round_minutes_words(t['round_minutes'])} a round, then time is called (D26)")
    entries = "open (players enter from their lobby until the start)" if t.get("open") else "fixed"
    lines.append(f"  entries:  {entries} · {len(t['players'])} so far")
    seeding = "rating, at the start" if t.get("seeding") == "rating" else "entry order (--player)"
    lines.append(f"  seeding:  pairing numbers by {seeding}")
    extras = [
        *(["double round-robin"] if t.get("double") else []),
        *(["duplicate rounds"] if t.get("duplicate") else []),
        *(["bot accounts may enter"] if t.get("bot_accounts") else []),
    ]
    if extras:
        lines.append(f"  also:     {' · '.join(extras)}")
    return [part for line in lines for part in textwrap.wrap(line, width=80, subsequent_indent=" " * 12)]


def opening_words(t: dict[str, Any]) -> str:
    """What the start opened: ``round 1 is open``, or ``round 1 opens Tue 8 Dec 19:30``."""
    first = t["rounds"][0] if t["rounds"] else {}
    starts = local_time_words(first.get("starts_at"))
    if first.get("status") == "pending" and starts:
        return f"round 1 opens {starts}"
    return "round 1 is open"


def start_and_report(server: Server, tournament_id: str) -> None:
    from cli.standings_table import print_round, tournament_rule

    t = call_object(server, "POST", f"/api/tournaments/{tournament_id}/start")
    planned = t.get("rounds_planned") or len(t["rounds"])
    what = t["name"] if t.get("format", "round_robin") == "round_robin" else f"{t['name']}, {format_words(t)}"
    typer.echo(f"started tournament {t['id']} ({what}): {planned} rounds; {opening_words(t)}")
    if t["rounds"] and t.get("format", "round_robin") == "round_robin":
        console().print(round_table(t["rounds"][0], names_of(t)))  # as before issue 22
    elif t["rounds"]:
        print_round(console(), t["rounds"][0], t, tournament_rule(t), compact=True)


@tournament_app.command("create")
@shaped
def create(
    name: Annotated[str, typer.Argument(help="the tournament's name", show_default=False)],
    player: Annotated[
        list[str] | None,
        typer.Option(
            "--player",
            "-p",
            help="a player's name or id, or a house bot (bot:greedy, bot:coach-3, …); repeat, in pairing order",
            show_default=False,
        ),
    ] = None,
    ruleset: Annotated[str, typer.Option("--ruleset", help=f"one of {', '.join(RULESETS)}")] = "uno-duo",
    rule: Annotated[
        list[str] | None, typer.Option("--rule", help="KEY=VALUE: a switch of the ruleset, e.g. target=100; repeat")
    ] = None,
    double: Annotated[bool, typer.Option("--double", help="a double round-robin (colours reversed)")] = False,
    move_seconds: Annotated[
        int | None, typer.Option("--move-seconds", min=1, help="the move clock (server default 60)")
    ] = None,
    join_seconds: Annotated[
        int | None,
        typer.Option("--join-seconds", min=1, help="time to join a match once its round opens (default 300)"),
    ] = None,
    round_minutes: Annotated[
        float | None,
        typer.Option(
            "--round-minutes",
            min=0.0,
            max=600.0,
            help="timed rounds (RULES.md D26): each round's limit in minutes from its opening (0.5: 30 s); "
            "then time is called in every match still being played",
            show_default=False,
        ),
    ] = None,
    format_: Annotated[
        Format,
        typer.Option(
            "--format",
            help="round_robin (everyone meets everyone), swiss (two seats), tables (classic at tables), "
            "single_elimination / double_elimination (two-seat brackets), table_knockout (classic at tables, "
            "the top --advance of each go on) or pools (pools into a bracket)",
        ),
    ] = Format.ROUND_ROBIN,
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="swiss, tables and Swiss pools: how many rounds")
    ] = None,
    table_size: Annotated[
        int | None,
        typer.Option(
            "--table-size", min=3, max=10, help="tables and table_knockout: the preferred size of a table (3-10)"
        ),
    ] = None,
    advance: Annotated[
        int | None,
        typer.Option("--advance", min=1, help="table_knockout: how many of each table go on; pools: of each pool (2)"),
    ] = None,
    pool_format: Annotated[
        str | None, typer.Option("--pool-format", help="pools: round_robin (default) or swiss (with --rounds)")
    ] = None,
    pool_size: Annotated[
        int | None, typer.Option("--pool-size", min=3, max=16, help="pools: the most players a pool holds (3-16)")
    ] = None,
    bracket: Annotated[
        str | None,
        typer.Option("--bracket", help="pools: single_elimination (default) or double_elimination"),
    ] = None,
    placement_points: Annotated[
        str | None,
        typer.Option(
            "--placement-points",
            metavar="P1,P2,…",
            help="tables: the points for 1st, 2nd, … at a table, e.g. 3,2,1,0 (default: k-1 down to 0 for tables of k)",
            show_default=False,
        ),
    ] = None,
    round_start: Annotated[
        list[str] | None,
        typer.Option(
            "--round-start",
            metavar="TIME",
            help="a round's start time, repeat in round order (round 1 first): ISO 8601 with an offset "
            "(2026-12-08T19:30+01:00), or a local time (2026-12-08 19:30) that gets this machine's offset",
            show_default=False,
        ),
    ] = None,
    starts_at: Annotated[
        str | None,
        typer.Option(
            "--starts-at",
            metavar="TIME",
            help="it starts by itself then (as --round-start: ISO 8601 or a local time); check-in closes then",
            show_default=False,
        ),
    ] = None,
    check_in_minutes: Annotated[
        int | None,
        typer.Option(
            "--check-in-minutes",
            min=1,
            help="an open tournament: entrants check in this many minutes before the start; the rest are withdrawn",
            show_default=False,
        ),
    ] = None,
    forbid: Annotated[
        list[str] | None,
        typer.Option(
            "--forbid",
            metavar="A,B",
            help="swiss: two players (names or ids) never paired where avoidable; repeat",
            show_default=False,
        ),
    ] = None,
    late_entry_rounds: Annotated[
        int | None,
        typer.Option(
            "--late-entry-rounds",
            min=1,
            help="swiss: entries stay open after the start until this round is paired",
            show_default=False,
        ),
    ] = None,
    late_entry_bye: Annotated[
        bool, typer.Option("--late-entry-bye", help="a late entrant's missed rounds score ½ each (else 0)")
    ] = False,
    start: Annotated[bool, typer.Option("--start", help="start it at once (open round 1)")] = False,
    open_: Annotated[
        bool, typer.Option("--open", help="players enter (and leave) it themselves until the start; --player optional")
    ] = False,
    bot_accounts: Annotated[
        bool, typer.Option("--bot-accounts", help="bot accounts (programs people registered) may enter; off by default")
    ] = False,
    seeding: Annotated[
        str,
        typer.Option(
            "--seeding",
            help="pairing numbers: entry (the order of --player) or rating (by rating when it starts, docs/RATINGS.md)",
        ),
    ] = "entry",
    duplicate: Annotated[
        bool,
        typer.Option(
            "--duplicate",
            help="duplicate rounds: every pairing of a round dealt the same cards; a same-deal column "
            "(round_robin and swiss)",
        ),
    ] = False,
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """Create a tournament (a round robin unless --format says otherwise); the order of --player
    fixes the pairing numbers (entries follow them). The server's refusal is printed as it says it."""
    server = director(url, token)
    players = player or []
    body: dict[str, Any] = {"name": name, "players": players, "ruleset": ruleset, "rules": parse_rules(rule or [])}
    if format_ is not Format.ROUND_ROBIN:
        body["format"] = format_.value
    if rounds is not None:
        body["rounds"] = rounds
    if table_size is not None:
        body["table_size"] = table_size
    staged = {"advance": advance, "pool_format": pool_format, "pool_size": pool_size, "bracket": bracket}
    body.update({key: value for key, value in staged.items() if value is not None})
    if placement_points is not None:
        body["placement_points"] = parse_points(placement_points)
    if round_start:
        body["round_starts"] = round_starts(round_start)
    if starts_at is not None:
        (body["starts_at"],) = round_starts([starts_at])
    if check_in_minutes is not None:
        body["check_in_minutes"] = check_in_minutes
    if forbid:
        body["forbidden_pairs"] = [[name.strip() for name in pair.split(",")] for pair in forbid]
    if late_entry_rounds is not None:
        body["late_entry_rounds"] = late_entry_rounds
    if late_entry_bye:
        body["late_entry_bye"] = True
    if open_:
        body["open"] = True
    if bot_accounts:
        body["bot_accounts"] = True
    if seeding != "entry":
        body["seeding"] = seeding
    if duplicate:
        body["duplicate"] = True
    if double:
        body["double"] = True
    if move_seconds is not None:
        body["move_seconds"] = move_seconds
    if join_seconds is not None:
        body["join_seconds"] = join_seconds
    if round_minutes is not None:
        body["round_minutes"] = round_minutes
    t = call_object(server, "POST", "/api/tournaments", body)
    formats = "" if t.get("format", "round_robin") == "round_robin" else f", {format_words(t)}"
    bots = ", bot accounts may enter" if t.get("bot_accounts") else ""
    bots += ", duplicate rounds" if t.get("duplicate") else ""
    typer.echo(f"created tournament {t['id']} ({t['name']}, {ruleset_text(t)}{formats}{bots})")
    for line in settings_lines(t, parse_rules(rule or [])):
        typer.echo(line)
    if t["players"]:
        console().print(entrants_table(t))
    if t.get("open") and not start:
        typer.echo("open: players enter it themselves from their lobby (e) until you start it")
        typer.echo(f"  enter anyone: unoduo tournament enter {t['id']} --player NAME")
        typer.echo(f"  then:         unoduo tournament start {t['id']}")
    if start:
        start_and_report(server, t["id"])


@tournament_app.command("start")
@shaped
def start_(tournament: TournamentArg, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """Fix the schedule and open round 1."""
    start_and_report(director(url, token), tournament)


@tournament_app.command("show")
@shaped
def show(
    tournament: TournamentArg,
    as_json: AsJson = False,
    wide: Annotated[bool, typer.Option("--wide", help="every tie-break column, however wide the terminal")] = False,
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """The tournament: standings (compact up to 100 columns, every tie-break with --wide or when
    it fits), then each round's pairings and results, winner first."""
    from cli.standings_table import print_show

    t = call_object(Server(url, token), "GET", f"/api/tournaments/{tournament}")
    if as_json:
        print_json(t)
    else:
        print_show(console(), with_labels(t), header(t), wide=wide)  # a bot account's name with "[bot]"


@tournament_app.command("list")
@shaped
def list_(as_json: AsJson = False, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """Every tournament on the server, oldest first."""
    tournaments = every_tournament(Server(url, token))
    if as_json:
        print_json(tournaments)
    elif not tournaments:
        typer.echo("no tournaments")
    else:
        columns = ["id", "name", "status", "players", "rounds", "opened"]
        rows = [
            [*(t[c] for c in columns), "yes" if t.get("open") else "no", str(t.get("format") or "round_robin")]
            for t in tournaments
        ]
        columns = [*columns, "open", "format"]
        console().print(table("Tournaments", columns, rows))


TRF_FORMATS = ("round_robin", "swiss")  # FIDE's TRF-16 says two-player games in rounds: these formats only


def written(text: str, output: Path | None, what: str) -> None:
    """``text`` to standard output, or to ``output`` with a line on standard error saying so."""
    if output is None:
        typer.echo(text, nl=not text.endswith("\n"))
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    typer.echo(f"wrote {what} to {output} ({len(text.splitlines())} lines)", err=True)


@tournament_app.command("trf")
@shaped
def trf(
    tournament: TournamentArg,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="write it to this file (default: standard output)")
    ] = None,
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """The tournament as a FIDE TRF-16 report: a round robin or a Swiss only (FIDE's format has
    no tables and no brackets: the others have `unoduo tournament export`)."""
    server = Server(url, token)
    fmt = str(call_object(server, "GET", f"/api/tournaments/{tournament}").get("format") or "round_robin")
    if fmt not in TRF_FORMATS:
        fail(
            f"no standard export for this format ({fmt.replace('_', ' ')}): use `unoduo tournament export {tournament}`"
        )
    text = answer_to(server, "GET", f"/api/tournaments/{tournament}/trf").text
    written(text, output, f"the TRF of {tournament}")


@tournament_app.command("export")
@shaped
def export(
    tournament: TournamentArg,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="write it to this file (default: standard output)")
    ] = None,
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """The tournament as JSON, for any format: a knockout's export (seeds, plan, results, final
    places: GET /api/tournaments/{id}/export.json), else the tournament as the API shows it (rounds,
    results, standings). A round robin's or a Swiss's standard export is `unoduo tournament trf`."""
    server = Server(url, token)
    t = call_object(server, "GET", f"/api/tournaments/{tournament}")
    if is_knockout(t):
        t = call_object(server, "GET", f"/api/tournaments/{tournament}/export.json")
    written(json.dumps(t, indent=2, ensure_ascii=False) + "\n", output, f"the export of {tournament}")


@tournament_app.command("deals")
@shaped
def deals(tournament: TournamentArg, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """Check a tournament of duplicate rounds (docs/FAIRNESS.md): every revealed round's matches
    verify with its deal key and opened one deck; once finished, every key follows from the seed."""
    from cli.deal_check import check_deals

    server = Server(url, token)
    t = call_object(server, "GET", f"/api/tournaments/{tournament}")
    if not t.get("duplicate"):
        fail(f"tournament {tournament} does not play duplicate rounds", 2)

    def replay_of(match_id: str) -> str | None:
        try:
            reply = httpx.get(f"{server.url.rstrip('/')}/api/matches/{match_id}/replay", timeout=TIMEOUT_SECONDS)
        except httpx.HTTPError as exc:
            fail(f"cannot reach the server at {server.url}: {str(exc) or type(exc).__name__}")
        return reply.text if reply.status_code == 200 else None

    report = check_deals(t, replay_of)
    for line in report.ok:
        typer.echo(f"ok    {line}")
    for line in report.failures:
        typer.echo(f"FAIL  {line}")
    if not report.passed:
        raise typer.Exit(1)


@tournament_app.command("fairplay")
@shaped
def fairplay(tournament: TournamentArg, as_json: AsJson = False, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """Each player's move times (mean, spread, 90th percentile) and timeouts: data, not a verdict."""
    from cli.fairplay_table import print_fairplay

    report = call_object(director(url, token), "GET", f"/api/tournaments/{tournament}/fairplay")
    if as_json:
        print_json(report)
    else:
        print_fairplay(console(), report)


def player_id(server: Server, tournament_id: str, player: str) -> str:
    """``player`` as an id: an entrant's id, or the id of the one entrant with that name."""
    t = call_object(server, "GET", f"/api/tournaments/{tournament_id}")
    ids = [p["id"] for p in t["players"] if player in (p["id"], p["name"])]
    return ids[0] if len(ids) == 1 else player


@tournament_app.command("withdraw")
@shaped
def withdraw(
    tournament: TournamentArg,
    player: Annotated[str, typer.Argument(help="the player's id (or name, when only one entrant has it)")],
    note: Annotated[str, typer.Option("--note", help="why, for the record")] = "",
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """Withdraw a player from a running tournament, by the published rule."""
    server = director(url, token)
    who = player_id(server, tournament, player)
    t = call_object(server, "POST", f"/api/tournaments/{tournament}/withdraw", {"player": who, "note": note})
    annulled = any(w["player"] == who and w["annulled"] for w in t["withdrawals"])
    what = "every result annulled" if annulled else "the remaining matches go to the opponents by forfeit"
    typer.echo(f"withdrew {names_of(t).get(who, who)} from {t['id']} ({t['name']}): {what}")


@tournament_app.command("call-time")
@shaped
def call_time(tournament: TournamentArg, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """Call time now in the round being played (RULES.md D26): each match still being played ends
    when its hand in play does (one more hand while the best total is shared)."""
    t = call_object(director(url, token), "POST", f"/api/tournaments/{tournament}/call-time", {})
    called = [r for r in t["rounds"] if r.get("time_called")]
    last = called[-1] if called else None
    when = f"round {last['number']} at {local_time_words(last['time_called'])}" if last else "no round"
    typer.echo(f"time called in {t['id']} ({t['name']}): {when}")


@tournament_app.command("disputes")
@shaped
def disputes(
    all_: Annotated[bool, typer.Option("--all", help="ruled disputes too, not only open ones")] = False,
    as_json: AsJson = False,
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """The disputes of every tournament, each with the path of the audit view at its event."""
    found = call_list(director(url, token), "/api/disputes", {"status": "all" if all_ else "open"})
    if as_json:
        print_json(found)
    elif not found:
        typer.echo("no disputes" if all_ else "no open disputes")
    else:
        server = director(url, token)
        console().print(dispute_list(found, lambda tid: tournament_or_none(server, tid)))


@tournament_app.command("rule")
@shaped
def rule(
    dispute: Annotated[str, typer.Argument(help="a dispute id (t_…-dN)", show_default=False)],
    decision: Annotated[Decision, typer.Argument(help="stands, replay or award", show_default=False)],
    note: Annotated[str, typer.Option("--note", help="the director's reasons (required)", show_default=False)],
    seat: Annotated[int | None, typer.Option("--seat", help="award: the seat the match goes to (0 or 1)")] = None,
    cited: Annotated[str | None, typer.Option("--rule", help=f"the ruling of RULES.md cited, {RULING_RANGE}")] = None,
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """Rule on a dispute: the result stands, the match is replayed, or it is awarded to a seat."""
    body: dict[str, Any] = {"decision": decision.value, "note": note, "seat": seat, "rule": cited}
    server = director(url, token)
    d = call_object(server, "POST", f"/api/disputes/{dispute}/ruling", body)
    typer.echo(f"ruled on {d['id']}: {ruling_words(d)}")
    console().print(dispute_list([d], lambda tid: tournament_or_none(server, tid)))


# ---------------------------------------------------------------- entries (issue 20, before the start)


@tournament_app.command("enter")
@shaped
def enter(
    tournament: TournamentArg,
    player: Annotated[
        str | None,
        typer.Option(
            "--player",
            "-p",
            help="the director: the player to enter (name, id or bot:NAME); without it, the token's own player",
            show_default=False,
        ),
    ] = None,
    entropy: Annotated[
        str | None,
        typer.Option(
            "--entropy",
            help="a player entering itself: its entropy for the deals of duplicate rounds (docs/FAIRNESS.md)",
            show_default=False,
        ),
    ] = None,
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """Enter a player before the start: the director anyone; a player's token (--token) itself, in an open one."""
    server = director(url, token)
    body: dict[str, Any] | None = {"player": player} if player is not None else None
    if entropy:
        body = {**(body or {}), "entropy": entropy}
    t = call_object(server, "POST", f"/api/tournaments/{tournament}/entries", body)
    entered = t["players"][-1]["name"] if t["players"] else player
    typer.echo(f"entered {entered} in {t['id']} ({t['name']}): {entries_text(t)}")


@tournament_app.command("leave")
@shaped
def leave(
    tournament: TournamentArg,
    player: Annotated[str, typer.Argument(help="the player's name or id", show_default=False)],
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """Take a player out before the start (the director anyone; a player's token only itself)."""
    server = director(url, token)
    t = call_object(server, "DELETE", f"/api/tournaments/{tournament}/entries/{quote(player, safe='')}")
    typer.echo(f"{player} left {t['id']} ({t['name']}): {entries_text(t)}")


@tournament_app.command("check-in")
@shaped
def check_in(tournament: TournamentArg, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """Check in to a tournament you entered, in its check-in window before the start (a player's --token)."""
    server = director(url, token)
    t = call_object(server, "POST", f"/api/tournaments/{tournament}/check-in")
    confirmed = len(t.get("checked_in") or [])
    typer.echo(f"checked in to {t['id']} ({t['name']}): {confirmed} of {len(t['players'])} entrants confirmed")


@tournament_app.command("bye")
@shaped
def bye(
    tournament: TournamentArg,
    round_: Annotated[int, typer.Option("--round", min=1, help="the Swiss round, not paired yet", show_default=False)],
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """Ask for a half-point bye in a Swiss round not paired yet (a player's --token; 2 at most)."""
    server = director(url, token)
    t = call_object(server, "POST", f"/api/tournaments/{tournament}/byes", {"round": round_})
    typer.echo(f"half-point bye in round {round_} of {t['id']} ({t['name']}): you sit it out and score ½")


def entry_rule_lines(t: dict[str, Any], names: dict[str, str]) -> list[str]:
    """Check-in, late entry, half-point byes and forbidden pairs, as the tournament stands (80 columns)."""
    texts = []
    if t.get("starts_at"):
        opens = (
            f" · check-in from {t['check_in_opens']} ({t['check_in_minutes']} min)" if t.get("check_in_opens") else ""
        )
        texts.append(f"starts by itself at {t['starts_at']}{opens}")
    if t.get("check_in_opens") and t.get("status") == "created":
        confirmed = [names.get(p, p) for p in t.get("checked_in") or []]
        texts.append(f"checked in: {', '.join(confirmed) if confirmed else 'nobody yet'}")
    if t.get("late_entry_rounds"):
        half = ", missed rounds ½ each" if t.get("late_entry_bye") else ", missed rounds score nothing"
        texts.append(f"late entry until round {t['late_entry_rounds']} is paired{half}")
    late = t.get("late_entries") or {}
    if late:
        texts.append("entered late: " + ", ".join(f"{names.get(p, p)} (from round {n})" for p, n in late.items()))
    for number, who in (t.get("half_byes") or {}).items():
        texts.append(f"round {number}: half-point bye for {', '.join(names.get(p, p) for p in who)}")
    forbidden = t.get("forbidden_pairs") or []
    if forbidden:
        pairs = "; ".join(" and ".join(names.get(p, p) for p in pair) for pair in forbidden)
        texts.append(f"never paired where avoidable: {pairs}")
    missing = [p["name"] for p in t.get("not_checked_in") or []]
    if missing:
        texts.append(f"withdrawn at the start, not checked in: {', '.join(missing)}")
    return [line for text in texts for line in textwrap.wrap(text, width=80, subsequent_indent="  ")]


def entries_text(t: dict[str, Any]) -> str:
    names = [p["name"] for p in t["players"]]
    count = f"{len(names)} player{'' if len(names) == 1 else 's'}"
    return f"{count} entered" + (f" ({', '.join(names)})" if names else "")
