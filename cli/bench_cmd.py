"""``unoduo bench …``: thin commands over the benchmark harness in the ``bench`` package.

Each command checks its options and hands over; the harness is imported only when a benchmark
runs, so every other ``unoduo`` command starts without it (and without the store).

The harness ships with the source, not in the wheel (it starts servers, writes docs/BENCHMARKS.md
and reads ``replays/`` of the checkout): :func:`need_harness` finds it in the source checkout the
command runs from (an editable install, or ``python -m cli.main`` there), and otherwise says so
and exits 1 instead of failing with an import error.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

import typer

from cli.db_guard import guarded
from engine.game.rulesets import RULESETS, Ruleset, check_seats, get_ruleset

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"

bench_app = typer.Typer(
    help="Benchmarks: each result a ratio against a reference run in the same process.",
    no_args_is_help=True,
)


NOT_INSTALLED = (
    "unoduo bench {command}: the benchmark harness (the bench package) is not installed: it ships with the"
    " source, not the wheel. Run it from a source checkout: git clone the project, then"
    " pip install -e '.[test,bench]' and run unoduo bench there."
)


def need_harness(command: str) -> None:
    """Make ``bench`` importable or exit 1 saying why: it is on the path already, or it stands beside
    ``cli/`` in the source checkout this command runs from (an editable install maps only the
    packages the wheel ships)."""
    try:
        if importlib.util.find_spec("bench.report") is not None:
            return
    except ModuleNotFoundError:  # no package named bench at all
        pass
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "bench" / "report.py").is_file():
        sys.path.insert(0, str(checkout))
        importlib.invalidate_caches()
        return
    typer.echo(NOT_INSTALLED.format(command=command), err=True)
    raise typer.Exit(1)


def _command_line(fallback: str) -> str:
    return "unoduo " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["bench"] else fallback


def _rules_or_exit(command: str, ruleset: str, seats: int | None = None) -> Ruleset:
    """The named ruleset (that seats ``seats``), or exit 2 saying why not."""
    try:
        rules = get_ruleset(ruleset)
        if seats is not None:
            check_seats(rules, seats)
    except ValueError as exc:
        typer.echo(f"unoduo bench {command}: {exc}", err=True)
        raise typer.Exit(2) from None
    return rules


@bench_app.command("engine")
def engine(
    seconds: float = typer.Option(10.0, "--seconds", help="about how long each of our measures and RLCard's run"),
    ruleset: str = typer.Option("uno-duo", "--ruleset", help=f"one of {', '.join(RULESETS)}"),
    seed: int = typer.Option(1, "--seed", help="seeds the matches and the random choices"),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its section of docs/BENCHMARKS.md"),
) -> None:
    """Engine: random self-play actions/s and rounds/s, fold events/s; a ratio of RLCard's UNO core."""
    if not seconds > 0 or seconds > 3600:
        typer.echo("unoduo bench engine: --seconds must be more than 0 and at most 3600", err=True)
        raise typer.Exit(2)
    rules = _rules_or_exit("engine", ruleset)
    need_harness("engine")
    from bench.engine import run_and_report

    command = _command_line(
        f"unoduo bench engine --seconds {seconds:g} --ruleset {rules.name} --seed {seed} --write-docs"
    )
    run_and_report(rules, seconds, seed, write_docs, command)


@bench_app.command("playout-agreement")
def playout_agreement(
    actions: int = typer.Option(2_000_000, "--actions", min=1, max=10**9, help="how many actions to compare"),
    seed: int = typer.Option(1, "--seed", help="seeds the rulesets, matches and random choices"),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its section of docs/BENCHMARKS.md"),
) -> None:
    """The search playout against the Decider: the same random actions from the same states, compared after each."""
    need_harness("playout-agreement")
    from bench.playout_agreement import run_and_report as run_agreement

    command = _command_line(f"unoduo bench playout-agreement --actions {actions} --seed {seed} --write-docs")
    run_agreement(actions, seed, write_docs, command)


@bench_app.command("coach")
def coach(
    level: int = typer.Option(5, "--level", min=1, max=5, help="the coach level to time (coach-1 ... coach-5)"),
    ruleset: str = typer.Option("uno-duo", "--ruleset", help=f"one of {', '.join(RULESETS)}"),
    seats: int = typer.Option(2, "--seats", min=2, max=10, help="the table's size (classic: 2-10)"),
    matches: int = typer.Option(4, "--matches", min=1, max=1000, help="matches against greedy to time"),
    seed: int = typer.Option(1, "--seed", help="seeds the matches"),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its section of docs/BENCHMARKS.md"),
) -> None:
    """The coach's time to decide: median, p90, p99 and longest CPU time a decision, against greedy."""
    rules = _rules_or_exit("coach", ruleset, seats)
    need_harness("coach")
    from bench.coach_speed import run_and_report as run_coach

    command = _command_line(
        f"unoduo bench coach --level {level} --ruleset {rules.name} --seats {seats} --matches {matches}"
        f" --seed {seed} --write-docs"
    )
    run_coach(level, rules, seats, matches, seed, write_docs, command)


@bench_app.command("store")
def store(
    seconds: float = typer.Option(3.0, min=0.1, help="how long each writer count runs"),
    db: str = typer.Option("both", help="sqlite, postgres or both"),
    writers: str = typer.Option("1,4,16", help="comma-separated writer counts"),
    postgres_url: str = typer.Option(
        os.environ.get("UNODUO_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL),
        help="PostgreSQL server to use (a throw-away schema is created and dropped)",
    ),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its section of docs/BENCHMARKS.md"),
) -> None:
    """Event store: commands appended per second with 1, 4, 16 writers, beside a raw batched insert."""
    choices = {"sqlite": ["sqlite"], "postgres": ["postgres"], "both": ["sqlite", "postgres"]}
    if db not in choices:
        typer.echo("unoduo bench store: --db must be sqlite, postgres or both", err=True)
        raise typer.Exit(2)
    try:
        counts = [int(w) for w in writers.split(",")]
        if not counts or min(counts) < 1:
            raise ValueError
    except ValueError:
        typer.echo("unoduo bench store: --writers must be positive whole numbers, e.g. 1,4,16", err=True)
        raise typer.Exit(2) from None
    need_harness("store")
    from bench.store import run_and_report

    guarded("unoduo bench store", lambda: run_and_report(choices[db], seconds, counts, postgres_url, write_docs))


def _server_postgres_url() -> str:
    url = os.environ.get("UNODUO_DATABASE_URL", "")
    return url if url.startswith("postgresql") else os.environ.get("UNODUO_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


@bench_app.command("live")
def live(
    matches: int = typer.Option(40, min=1, max=1000, help="matches played at once, each against bot:random"),
    commands: int = typer.Option(6000, min=10, max=1_000_000, help="player commands in all"),
    write_docs: bool = typer.Option(
        False, "--write-docs", help="update the 'Live service (in one process)' section of docs/BENCHMARKS.md"
    ),
) -> None:
    """The live path in one process, no network: CPU per command through MatchService, against the engine alone."""
    need_harness("live")
    from bench.live import run_and_report as run_live

    command = _command_line(f"unoduo bench live --matches {matches} --commands {commands} --write-docs")
    guarded("unoduo bench live", lambda: run_live(matches, commands, write_docs, command))


@bench_app.command("server")
def server(
    matches: int = typer.Option(
        100, "--matches", min=1, max=2000, help="concurrent players, each in a match against bot:random"
    ),
    seconds: float = typer.Option(
        60.0,
        "--seconds",
        help="at most how long each play phase runs (WS per event, WS per decision and HTTP at saturation, WS and HTTP paced, paced WS + spectators)",
    ),
    rate: float = typer.Option(
        1000.0,
        "--rate",
        help="commands/s offered in all in the paced phases: each player thinks N / rate s (± 50%) between its answer and its next command",
    ),
    noop_seconds: float = typer.Option(5.0, "--noop-seconds", help="how long the no-op GET /api reference runs"),
    watched: int = typer.Option(
        10, "--watched", min=0, help="matches also followed by a spectator socket (delivery time)"
    ),
    spectators: int = typer.Option(
        0, "--spectators", min=0, max=5000, help="extra spectator sockets on match 0 (a paced WebSocket phase more)"
    ),
    db: str = typer.Option("sqlite", "--db", help="sqlite (a fresh file) or postgres (a throw-away schema)"),
    http_client: str = typer.Option(
        "raw",
        "--http-client",
        help="what the no-op and HTTP-phase loops send with: raw (a minimal HTTP/1.1 client, a connection per loop) or httpx (one shared AsyncClient, about 1 ms of client CPU a request: client-bound)",
    ),
    postgres_url: str = typer.Option(
        _server_postgres_url(),
        "--postgres-url",
        help="PostgreSQL server for --db postgres (default: UNODUO_DATABASE_URL if PostgreSQL, else UNODUO_TEST_POSTGRES_URL)",
    ),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its section of docs/BENCHMARKS.md"),
) -> None:
    """Live server: capacity (commands/s at saturation, against a no-op route), then round trips and delivery at a paced load."""
    if db not in ("sqlite", "postgres"):
        typer.echo("unoduo bench server: --db must be sqlite or postgres", err=True)
        raise typer.Exit(2)
    if http_client not in ("httpx", "raw"):
        typer.echo("unoduo bench server: --http-client must be httpx or raw", err=True)
        raise typer.Exit(2)
    for name, value in (("--seconds", seconds), ("--noop-seconds", noop_seconds)):
        if not value > 0 or value > 3600:
            typer.echo(f"unoduo bench server: {name} must be more than 0 and at most 3600", err=True)
            raise typer.Exit(2)
    if not rate > 0 or rate > 1_000_000:
        typer.echo("unoduo bench server: --rate must be more than 0 and at most 1000000", err=True)
        raise typer.Exit(2)
    need_harness("server")
    from bench.launch import BenchError
    from bench.server import Options, run_and_report

    options = Options(
        matches=matches,
        seconds=seconds,
        noop_seconds=noop_seconds,
        watched=min(watched, matches),
        spectators=spectators,
        rate=rate,
        db=db,
        postgres_url=postgres_url,
        http_client=http_client,
    )
    command = _command_line(
        f"unoduo bench server --matches {matches} --seconds {seconds:g} --rate {rate:g} --watched {options.watched}"
        f" --spectators {spectators} --db {db} --http-client {http_client} --write-docs"
    )
    try:
        run_and_report(options, write_docs, command)
    except BenchError as exc:
        typer.echo(f"unoduo bench server: {exc}", err=True)
        raise typer.Exit(1) from None


@bench_app.command("scale")
def scale(
    configs: str = typer.Option(
        "servers=1,servers=2,servers=3,workers=2",
        "--configs",
        help="comma-separated configurations: servers=N (N unoduo serve processes), workers=N (one unoduo serve --workers N) or sticky=N (N processes, each match's set-up and socket on the server that started it)",
    ),
    players: int = typer.Option(60, "--players", min=1, max=2000, help="concurrent players, each against bot:random"),
    seconds: float = typer.Option(15.0, "--seconds", help="at most how long each phase runs (saturation, paced)"),
    rate: float = typer.Option(1000.0, "--rate", help="commands/s offered in all in the paced phase"),
    frames: str = typer.Option(
        "decision", "--frames", help="decision (per-decision frames when the server has them) or event"
    ),
    kills: int = typer.Option(
        2, "--kills", min=0, max=20, help="takeover: SIGKILLs of a match owner among 2 servers (0: no takeover run)"
    ),
    takeover_bots: int = typer.Option(
        12, "--takeover-bots", min=2, max=64, help="takeover: house bots in the round robin (half as many matches)"
    ),
    takeover_target: int = typer.Option(100, "--takeover-target", min=1, max=100_000, help="takeover: the target"),
    postgres_url: str = typer.Option(
        _server_postgres_url(),
        "--postgres-url",
        help="PostgreSQL server (a throw-away schema per configuration; default: UNODUO_DATABASE_URL if PostgreSQL, else UNODUO_TEST_POSTGRES_URL)",
    ),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its section of docs/BENCHMARKS.md"),
) -> None:
    """Several servers on one PostgreSQL database: commands/s, round trips, server CPU per command summed over the servers, takeover after kill -9."""
    for name, value in (("--seconds", seconds), ("--rate", rate)):
        if not value > 0 or value > 1_000_000:
            typer.echo(f"unoduo bench scale: {name} must be more than 0 and at most 1000000", err=True)
            raise typer.Exit(2)
    if frames not in ("decision", "event"):
        typer.echo("unoduo bench scale: --frames must be decision or event", err=True)
        raise typer.Exit(2)
    need_harness("scale")
    from bench.launch import BenchError
    from bench.scale import Options as ScaleOptions
    from bench.scale import parse_configs
    from bench.scale import run_and_report as run_scale

    try:
        chosen = parse_configs(configs)
    except ValueError as exc:
        typer.echo(f"unoduo bench scale: --configs: {exc}", err=True)
        raise typer.Exit(2) from None
    options = ScaleOptions(
        configs=chosen,
        players=players,
        seconds=seconds,
        rate=rate,
        frames=frames,
        kills=kills,
        takeover_bots=takeover_bots,
        takeover_target=takeover_target,
        postgres_url=postgres_url,
    )
    command = _command_line(
        f"unoduo bench scale --configs {','.join(c.name for c in chosen)} --players {players} --seconds {seconds:g}"
        f" --rate {rate:g} --frames {frames} --kills {kills} --takeover-bots {takeover_bots}"
        f" --takeover-target {takeover_target} --write-docs"
    )
    try:
        report = run_scale(options, write_docs, command, typer.echo)
    except BenchError as exc:
        typer.echo(f"unoduo bench scale: {exc}", err=True)
        raise typer.Exit(1) from None
    if report.problems:
        raise typer.Exit(1)


@bench_app.command("tournament")
def tournament(
    players: int | None = typer.Option(
        None, "--players", min=2, max=64, help="bot entries (default: round_robin 16, swiss 20, tables 16)"
    ),
    bots: str = typer.Option(
        "random,greedy", "--bots", help="comma-separated house bots, entered in turn (random, greedy, random, …)"
    ),
    target: int | None = typer.Option(
        None, "--target", min=1, max=100_000, help="the match target (default: the ruleset's, 200 in uno-duo)"
    ),
    db: str = typer.Option("sqlite", "--db", help="sqlite (a fresh file) or postgres (a throw-away schema)"),
    postgres_url: str = typer.Option(
        _server_postgres_url(),
        "--postgres-url",
        help="PostgreSQL server for --db postgres (default: UNODUO_DATABASE_URL if PostgreSQL, else UNODUO_TEST_POSTGRES_URL)",
    ),
    stall: float | None = typer.Option(
        None,
        "--stall",
        help="fail if no pairing is decided for this many seconds (stuck; default 180); no limit on the whole run",
    ),
    tournament_format: str = typer.Option(
        "round_robin", "--format", help="round_robin (the Berger table), swiss (FIDE Dutch) or tables (classic)"
    ),
    rounds: int | None = typer.Option(None, "--rounds", min=1, max=30, help="swiss and tables: rounds (default 5)"),
    table_size: int | None = typer.Option(
        None, "--table-size", min=3, max=10, help="tables: the preferred table size (default 4)"
    ),
    round_limit: int | None = typer.Option(
        None,
        "--round-limit",
        min=0,
        max=100,
        help="tables: rules.round_limit, rounds a match at most (default 3; 0: none)",
    ),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its format's section of docs/BENCHMARKS.md"),
) -> None:
    """A whole tournament of house bots through a real server: wall time (target < 60 s for a 16-bot round-robin to 200), against the engine alone."""
    bad = _tournament_format_options(tournament_format, rounds, table_size, round_limit)
    if bad:
        typer.echo(f"unoduo bench tournament: {bad}", err=True)
        raise typer.Exit(2)
    if db not in ("sqlite", "postgres"):
        typer.echo("unoduo bench tournament: --db must be sqlite or postgres", err=True)
        raise typer.Exit(2)
    if stall is not None and (not stall > 0 or stall > 86_400):
        typer.echo("unoduo bench tournament: --stall must be more than 0 and at most 86400", err=True)
        raise typer.Exit(2)
    from engine.bots import UnknownBotError, normalize_bot_name

    try:
        names = tuple(normalize_bot_name(b) for b in bots.split(",") if b.strip())
        if not names:
            raise UnknownBotError("--bots names no bot")
    except UnknownBotError as exc:
        typer.echo(f"unoduo bench tournament: {exc}", err=True)
        raise typer.Exit(2) from None
    need_harness("tournament")
    from bench.launch import BenchError
    from bench.tournament import STANDARD_FIELD, STANDARD_TABLE_SIZE
    from bench.tournament import Options as TournamentOptions
    from bench.tournament import run_and_report as run_tournament

    field = players if players is not None else STANDARD_FIELD[tournament_format]
    options = TournamentOptions(
        players=field,
        bots=names,
        target=target,
        db=db,
        postgres_url=postgres_url,
        format=tournament_format,
        rounds=rounds,
        table_size=table_size if table_size is not None else STANDARD_TABLE_SIZE,
        round_limit=round_limit,
    )
    if stall is not None:
        options.stall = stall
    shape = (
        ""
        if tournament_format == "round_robin"
        else f" --format {tournament_format} --rounds {options.resolved_rounds}"
    )
    if tournament_format == "tables":
        shape += f" --table-size {options.table_size} --round-limit {options.resolved_round_limit}"
    command = _command_line(
        f"unoduo bench tournament{shape} --players {field} --bots {','.join(names)}"
        + (f" --target {target}" if target is not None else "")
        + f" --db {db} --write-docs"
    )
    try:
        report = run_tournament(options, write_docs, command)
    except BenchError as exc:
        typer.echo(f"unoduo bench tournament: {exc}", err=True)
        raise typer.Exit(1) from None
    if not report.ok:
        typer.echo(f"unoduo bench tournament: the result is WRONG ({len(report.problems)} problems)", err=True)
        raise typer.Exit(1)


TOURNAMENT_FORMATS = ("round_robin", "swiss", "tables")


def _tournament_format_options(
    tournament_format: str, rounds: int | None, table_size: int | None, round_limit: int | None
) -> str | None:
    """Why ``bench tournament``'s format options do not fit together (None: they do): a round robin's
    rounds follow from its field, and only a tables tournament has a table size or a round limit."""
    if tournament_format not in TOURNAMENT_FORMATS:
        return f"--format must be one of {', '.join(TOURNAMENT_FORMATS)}, not {tournament_format!r}"
    if tournament_format == "round_robin" and rounds is not None:
        return "--rounds is for swiss and tables (a round robin has n - 1 rounds)"
    if tournament_format != "tables" and (table_size is not None or round_limit is not None):
        return "--table-size and --round-limit are for --format tables"
    return None


def _require_replay(command: str, file: Path) -> None:
    if not file.is_file():
        typer.echo(f"unoduo bench {command}: no replay at {file}", err=True)
        raise typer.Exit(2)


@bench_app.command("web-live")
def web_live(
    pages: int = typer.Option(1000, "--pages", min=1, max=10_000, help="live tournament pages open at once"),
    players: int = typer.Option(16, "--players", min=2, max=64, help="players in the round robin followed"),
    join_seconds: int = typer.Option(
        1, "--join-seconds", min=1, max=60, help="each round's results land (as no-shows) this long after it opens"
    ),
    write_docs: bool = typer.Option(
        False, "--write-docs", help="update the 'Web pages, live' section of docs/BENCHMARKS.md"
    ),
) -> None:
    """Live web pages: server CPU and memory for N open pages of one tournament while results land, against one page."""
    need_harness("web-live")
    from bench.web_live import Options as WebLiveOptions
    from bench.web_live import run_and_report as run_web_live

    options = WebLiveOptions(pages=pages, players=players, join_seconds=join_seconds)
    command = _command_line(
        f"unoduo bench web-live --pages {pages} --players {players} --join-seconds {join_seconds} --write-docs"
    )
    _exit_1_on_bench_error("web-live", lambda: run_web_live(options, write_docs, command))


def _exit_1_on_bench_error(command: str, run: Callable[[], object]) -> None:
    """Run a benchmark; one that cannot go on (``BenchError``) is said in a line, exit 1."""
    from bench.launch import BenchError

    try:
        run()
    except BenchError as exc:
        typer.echo(f"unoduo bench {command}: {exc}", err=True)
        raise typer.Exit(1) from None


@bench_app.command("replay")
def replay(
    file: Path = typer.Option(
        Path("replays/match-to-200.jsonl"),
        "--file",
        help="a replay of a whole match (default: the sample match to 200)",
    ),
    runs: int = typer.Option(7, "--runs", min=1, max=100, help="runs of each command (the median is reported)"),
    write_docs: bool = typer.Option(
        False, "--write-docs", help="update the replay tools' section of docs/BENCHMARKS.md"
    ),
) -> None:
    """unoduo verify and unoduo audit on a whole match, each as a fresh process, beyond the interpreter's start-up."""
    need_harness("replay")
    from bench.replay_tools import run_and_report as run_replay

    _require_replay("replay", file)
    command = _command_line(f"unoduo bench replay --file {file} --runs {runs} --write-docs")
    run_replay(file.resolve(), runs, write_docs, command)


@bench_app.command("scrub")
def scrub(
    file: Path = typer.Option(
        Path("replays/match-to-200.jsonl"),
        "--file",
        help="a replay of a whole match (default: the sample match to 200)",
    ),
    write_docs: bool = typer.Option(
        False, "--write-docs", help="update the replay scrubber's section of docs/BENCHMARKS.md"
    ),
) -> None:
    """The replay scrubber: every jump of its core, and keys on its screen under Pilot; against a fold from the start."""
    need_harness("scrub")
    from bench.scrub import run_and_report as run_scrub

    _require_replay("scrub", file)
    command = _command_line(f"unoduo bench scrub --file {file} --write-docs")
    run_scrub(file.resolve(), write_docs, command)


@bench_app.command("startup")
def startup(
    runs: int = typer.Option(5, "--runs", min=1, max=100, help="runs of each figure (the median is shown)"),
    against: Path | None = typer.Option(
        None, "--against", help="another checkout (a git worktree at an older commit) measured in the same run: before"
    ),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its section of docs/BENCHMARKS.md"),
) -> None:
    """Start-up: the CPU of unoduo --help and play --help against Typer's own, of serve to its first answer against a no-op FastAPI app, of importing the client against Textual."""
    if against is not None and not (against / "cli" / "main.py").is_file():
        typer.echo(f"unoduo bench startup: --against {against} is no checkout of unoduo (no cli/main.py)", err=True)
        raise typer.Exit(2)
    need_harness("startup")
    from bench.launch import BenchError
    from bench.startup import run_and_report as run_startup

    where = f" --against {against}" if against is not None else ""
    command = _command_line(f"unoduo bench startup --runs {runs}{where} --write-docs")
    try:
        run_startup(against, runs, write_docs, command)
    except BenchError as exc:
        typer.echo(f"unoduo bench startup: {exc}", err=True)
        raise typer.Exit(1) from None


@bench_app.command("chaos")
def chaos(
    kills: int | None = typer.Option(
        None, "--kills", min=1, max=1000, help="SIGKILLs of a server during the tournaments (default 20, quick 3)"
    ),
    db: str = typer.Option("sqlite", "--db", help="sqlite (one server) or postgres (two servers on one database)"),
    quick: bool = typer.Option(False, "--quick", help="a short run (3 kills, 1 outage, a smaller tournament): < 60 s"),
    outages: int | None = typer.Option(
        None, "--outages", min=0, max=100, help="times the database is taken away (default 3, quick 1)"
    ),
    outage: str = typer.Option(
        "restart",
        "--outage",
        help="postgres: restart (a private PostgreSQL cluster the run starts, stopped hard and started again) or"
        " terminate (the servers' connections to --postgres-url terminated: a stand-in)",
    ),
    postgres_url: str = typer.Option(
        _server_postgres_url(),
        "--postgres-url",
        help="PostgreSQL server for --db postgres (a throw-away schema; never restarted)",
    ),
    seed: int | None = typer.Option(None, "--seed", help="seeds the random choices (kill times, victims, moves)"),
    keep: Path | None = typer.Option(
        None, "--keep", help="keep the databases and the servers' logs in this new directory (default: deleted)"
    ),
) -> None:
    """Kill -9 the server mid-tournament, take the database away: nothing a client was told may be lost (exit 1 if it is)."""
    if db not in ("sqlite", "postgres"):
        typer.echo("unoduo bench chaos: --db must be sqlite or postgres", err=True)
        raise typer.Exit(2)
    if outage not in ("restart", "terminate"):
        typer.echo("unoduo bench chaos: --outage must be restart or terminate", err=True)
        raise typer.Exit(2)
    need_harness("chaos")
    from bench.chaos import options_for, print_report, run_chaos
    from bench.launch import BenchError

    options = options_for(db, quick, kills, postgres_url, outage, outages, seed)
    options.workdir = keep
    try:
        report = run_chaos(options, typer.echo)
    except BenchError as exc:
        typer.echo(f"unoduo bench chaos: {exc}", err=True)
        raise typer.Exit(1) from None
    print_report(report, typer.echo)
    if not report.ok:
        raise typer.Exit(1)


@bench_app.command("soak")
def soak(
    minutes: float | None = typer.Option(
        None, "--minutes", min=0.5, max=24 * 60, help="the whole run, warm-up included (default 10, quick 1)"
    ),
    quick: bool = typer.Option(False, "--quick", help="CI's run: 1 minute, 4 players, 4-bot tournaments to 50"),
    clients: int | None = typer.Option(None, "--clients", min=1, max=500, help="players over WS (default 8)"),
    bots: int | None = typer.Option(
        None, "--bots", min=3, max=32, help="house bots in each tournament (default 6: 3 matches at once)"
    ),
    db: str = typer.Option("sqlite", "--db", help="sqlite or postgres"),
    postgres_url: str = typer.Option(
        _server_postgres_url(), "--postgres-url", help="PostgreSQL server for --db postgres (a throw-away schema)"
    ),
    seed: int | None = typer.Option(None, "--seed", help="seeds the players' think times"),
    finished_kept: int | None = typer.Option(
        None, "--finished-kept", min=0, max=100_000, help="the server's UNODUO_FINISHED_MATCHES_KEPT (default: its own)"
    ),
) -> None:
    """Tournaments, players and spectators for N minutes: 0 errors, RSS flat, no descriptor growth, db verify clean."""
    if db not in ("sqlite", "postgres"):
        typer.echo("unoduo bench soak: --db must be sqlite or postgres", err=True)
        raise typer.Exit(2)
    need_harness("soak")
    from bench.launch import BenchError
    from bench.soak import Options, machine_line, print_report, run_soak

    options = Options.quick() if quick else Options()
    if minutes is not None:
        options.minutes = minutes
        options.warmup_seconds = min(options.warmup_seconds, minutes * 60 / 4)
    options.clients = clients or options.clients
    options.bots = bots or options.bots
    options.db, options.postgres_url, options.seed = db, postgres_url, seed
    options.finished_kept = finished_kept
    typer.echo(f"machine: {machine_line()}")
    try:
        report = run_soak(options, typer.echo)
    except BenchError as exc:
        typer.echo(f"unoduo bench soak: {exc}", err=True)
        raise typer.Exit(1) from None
    print_report(report, typer.echo)
    if not report.ok:
        raise typer.Exit(1)


@bench_app.command("capacity")
def capacity(
    matches: str = typer.Option(
        "100,500,1000,2000", "--matches", help="comma-separated counts of live matches, one step each"
    ),
    seconds: float = typer.Option(60.0, "--seconds", help="how long each step's play phase runs"),
    idle_seconds: float = typer.Option(20.0, "--idle-seconds", help="how long each step's idle CPU is read"),
    drivers: int | None = typer.Option(
        None, "--drivers", min=1, max=16, help="driver processes (default: one per 500 matches)"
    ),
    floor: bool = typer.Option(True, "--floor/--no-floor", help="measure the floor (echo + one commit) too"),
    ping_seconds: float = typer.Option(
        20.0,
        "--ping-seconds",
        min=0,
        max=3600,
        help="the sockets' keep-alive ping (0: none); the terminal client's: 20",
    ),
    db: str = typer.Option("sqlite", "--db", help="sqlite (a fresh file) or postgres (a throw-away schema)"),
    postgres_url: str = typer.Option(
        _server_postgres_url(), "--postgres-url", help="PostgreSQL server for --db postgres"
    ),
    py_spy: Path | None = typer.Option(
        None, "--py-spy", help="record the server with py-spy (raw) in each play phase into this directory"
    ),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its section of docs/BENCHMARKS.md"),
) -> None:
    """N live matches at human pace on one server: round trips, CPU per command against the floor, idle CPU, RSS."""
    try:
        counts = tuple(int(m) for m in matches.split(","))
        if not counts or min(counts) < 1 or max(counts) > 10_000:
            raise ValueError
    except ValueError:
        typer.echo("unoduo bench capacity: --matches must be whole numbers 1-10000, e.g. 100,500", err=True)
        raise typer.Exit(2) from None
    bad = [
        f"{name} must be more than 0 and at most 3600"
        for name, value in (("--seconds", seconds), ("--idle-seconds", idle_seconds))
        if not 0 < value <= 3600
    ]
    if db not in ("sqlite", "postgres"):
        bad.append("--db must be sqlite or postgres")
    if bad:
        typer.echo(f"unoduo bench capacity: {bad[0]}", err=True)
        raise typer.Exit(2)
    need_harness("capacity")
    from bench.capacity import Options as CapacityOptions
    from bench.capacity import run_and_report as run_capacity
    from bench.launch import BenchError

    options = CapacityOptions(
        matches=counts,
        seconds=seconds,
        idle_seconds=idle_seconds,
        drivers=drivers,
        floor=floor,
        ping_seconds=ping_seconds or None,
        db=db,
        postgres_url=postgres_url,
        py_spy=py_spy,
    )
    command = _command_line(
        f"unoduo bench capacity --matches {matches} --seconds {seconds:g} --idle-seconds {idle_seconds:g}"
        + (f" --ping-seconds {ping_seconds:g}" if ping_seconds != 20 else "")
        + " --write-docs"
    )
    try:
        report = run_capacity(options, write_docs, command, typer.echo)
    except BenchError as exc:
        typer.echo(f"unoduo bench capacity: {exc}", err=True)
        raise typer.Exit(1) from None
    if any(s.server.share.errors for s in report.steps):
        raise typer.Exit(1)


def _bot_list(option: str, text: str) -> tuple[str, ...]:
    """Comma-separated house bots, each a bot this engine has (exit 2 naming the first that is not)."""
    from engine.bots import UnknownBotError, normalize_bot_name

    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        typer.echo(f"unoduo bench strength: {option} names no bot", err=True)
        raise typer.Exit(2)
    try:
        return tuple(normalize_bot_name(name) for name in names)
    except UnknownBotError as exc:
        typer.echo(f"unoduo bench strength: {option}: {exc}", err=True)
        raise typer.Exit(2) from None


@bench_app.command("strength")
def strength(
    bots: str = typer.Option(
        "random,rule-v1,greedy", "--bots", help="the bots measured, weakest first (their ratings should increase so)"
    ),
    against: str = typer.Option("greedy,rule-v1", "--against", help="the references every bot plays at two seats"),
    matches: int = typer.Option(200, "--matches", min=0, max=100_000, help="two-seat matches to 200 per pairing"),
    table_matches: int = typer.Option(100, "--table-matches", min=0, max=100_000, help="tables of four per bot"),
    table_against: str = typer.Option(
        "greedy,rule-v1", "--table-against", help="the references: one table set for each, three of it beside the bot"
    ),
    jobs: int = typer.Option(
        2, "--jobs", "-j", min=1, max=64, help="worker processes (the figures do not depend on it)"
    ),
    seed: int = typer.Option(1, "--seed", help="master seed: the same seed gives the same figures"),
    minutes: float | None = typer.Option(
        None, "--minutes", min=0.01, help="stop starting matches after this long and report those played"
    ),
    tables_for_top_only: bool = typer.Option(
        False, "--tables-for-top-only", help="tables of four for the last bot of --bots only (a search bot's are slow)"
    ),
    write_docs: bool = typer.Option(False, "--write-docs", help="update the Strength section of docs/BENCHMARKS.md"),
) -> None:
    """Strength: each bot against the references at two seats (matches and hands), at tables of four, and rated by the rating book."""
    measured = _bot_list("--bots", bots)
    references = _bot_list("--against", against)
    table_bots = _bot_list("--table-against", table_against)
    need_harness("strength")
    from bench.strength import Options as StrengthOptions
    from bench.strength import run_and_report as run_strength

    options = StrengthOptions(
        measured, references, matches, table_matches, table_bots, jobs, seed, minutes, tables_for_top_only
    )
    command = _command_line(
        f"unoduo bench strength --bots {','.join(measured)} --against {','.join(references)} --matches {matches}"
        f" --table-matches {table_matches} --table-against {','.join(table_bots)} --seed {seed}"
        + (f" --minutes {minutes:g}" if minutes is not None else "")
        + (" --tables-for-top-only" if tables_for_top_only else "")
        + " --write-docs"
    )
    run_strength(options, write_docs, command)


@bench_app.command("coach-tables")
def coach_tables(
    variants: str = typer.Option(
        "greedy,coach,guarded,sighted",
        "--variants",
        help="the measured seat's players: greedy, coach, guarded, sighted",
    ),
    worlds: int = typer.Option(64, "--worlds", min=1, max=10_000, help="worlds each search samples a decision"),
    tables: int = typer.Option(40, "--tables", min=1, max=100_000, help="tables of four per variant"),
    jobs: int = typer.Option(
        2, "--jobs", "-j", min=1, max=64, help="worker processes (the figures do not depend on it)"
    ),
    seed: int = typer.Option(1, "--seed", help="master seed: the same seed gives the same tables"),
    write_docs: bool = typer.Option(False, "--write-docs", help="update its section of docs/BENCHMARKS.md"),
) -> None:
    """What limits the coach at tables of four: the same tables played by greedy, the coach, a guarded coach and a coach that sees the hands."""
    need_harness("coach-tables")
    from bench.coach_tables import VARIANTS, run_and_report

    chosen = tuple(v.strip() for v in variants.split(",") if v.strip())
    unknown = [v for v in chosen if v not in VARIANTS]
    if not chosen or unknown:
        typer.echo(f"unoduo bench coach-tables: --variants: choose from {', '.join(VARIANTS)}", err=True)
        raise typer.Exit(2)
    command = _command_line(
        f"unoduo bench coach-tables --variants {','.join(chosen)} --worlds {worlds} --tables {tables} --seed {seed}"
        " --write-docs"
    )
    run_and_report(chosen, worlds, tables, seed, jobs, write_docs, command)
