"""``unoduo bench chaos`` (the command is in ``cli.bench_cmd``): kill the server, take its database away, and
check that nothing a client was told is lost.

Two phases, each on real ``unoduo serve`` processes (loopback, a fresh SQLite file or a throw-away
PostgreSQL schema, a director token of the run's own):

**Kills.** A round-robin of house bots and one or two human entrants runs with its clocks on
(``move_seconds`` small, bots that think a little so matches last). The humans are played by client
threads here: each reads its match, sends a legal command with ``expected_version`` and a fresh
``command_id``, retries the *same* id until it gets an answer (a server down, a 503), keeps every
answer's events as receipts (seq and hash), and now and then does not answer at all, so its clock
fires. Meanwhile the server is killed with SIGKILL at random moments, again and again; at every
other kill the humans also fall silent until the matches have moved on, so what moves their
matches is a clock. On SQLite the one server is started again at once on the same file; on
PostgreSQL two servers share the database, one of them (at random) is killed and kept down 5-7 s
(longer than a clock and the other server's 2 s look for matches it does not hold), and every
match in play must move on through the other server meanwhile (it stays down until they have,
5-7 s at the least); then it is started again. After every restart every match in play must move
on (its bots or its clock). A tournament that ends before the kills are done is followed by another.

**No wall-clock budgets.** Every wait of the run is on progress (``bench.progress``): a match
that must move on, a tournament that must finish, fails only when nothing it waits for has moved
for the stall window (``--quick`` and full runs alike, :data:`bench.progress.STALL_SECONDS`), so a
loaded machine makes the run slower, never failed.

**The database goes away.** Under load (human clients in casual matches against ``bot:random``,
a tournament of house bots, clocks running), the database is taken away for a few seconds and
given back: on PostgreSQL a private cluster the run starts itself is stopped hard (``pg_ctl stop
-m immediate``, a crash) and started again (``--outage restart``; the PostgreSQL of
``--postgres-url`` is never restarted, others may be using it), or, with ``--outage terminate``,
the servers' own connections are terminated over and over (``pg_terminate_backend``, a stand-in
for an outage); on SQLite another connection holds the write lock longer than the servers' busy
timeout (a stand-in: SQLite has no server to lose). Every request that starts while the database
is away is counted by its status: 503 ``unavailable`` is the answer, never a 500. Afterwards the
servers must recover by themselves: commands are accepted again, every match in play moves on,
the tournament finishes.

**Checks** (any failure exits 1), read from the database itself once the servers have stopped:

- every answer a client got (a 2xx command or join) is in the log: the event at each receipt's
  seq has that hash, and the command's id is recorded as processed, starting at that seq;
- nothing is applied twice: in every stream the seqs run 1…head, and the processed commands'
  ranges cover them exactly once each (a command id once per stream, by the key; a bot's move
  ``bot-<v>`` and a clock's ``timeout-<v>`` start at seq v + 1);
- every chain verifies; no clock fired early, and no decision timed out twice;
- every tournament finished, and its standings add up: each pair met once, the sum of ``won``
  is the number of pairings with a winner, everyone played n - 1 and sat out the byes; its
  stream records each step once; every finished match's replay verifies with the clients'
  receipts (``engine.fairness.verify``);
- no server answered 500, and no server logged a traceback.
"""

from __future__ import annotations

import contextlib
import os
import platform
import random
import secrets
import shutil
import sqlite3
import subprocess
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx
import sqlalchemy
from sqlalchemy import make_url, text
from sqlalchemy.exc import DBAPIError, OperationalError

from bench.commands import shedding_choice
from bench.launch import DEFAULT_POSTGRES_URL, BenchError, ServerProcess, free_port, postgres_schema
from bench.progress import STALL_SECONDS, Stall, wait_until
from bench.report import cpu_model
from engine.fairness.verify import Receipt as VerifyReceipt
from engine.fairness.verify import verify_replay
from engine.record.jsonfmt import AT_FORMAT

REQUEST_SECONDS = 30.0
POLL = 0.01  # a human waiting for the bot (or a clock) looks again this often
AUDIT_TYPES = ("awaiting", "timed_out")


@dataclass
class Options:
    """What to run. :func:`options_for` fills in the full or the quick run."""

    db: str = "sqlite"
    kills: int = 20
    quick: bool = False
    postgres_url: str = DEFAULT_POSTGRES_URL
    outage: str = "restart"  # postgres: restart (a private cluster) or terminate (the servers' connections)
    outages: int = 2
    outage_seconds: float = 4.0
    players: int = 7  # entrants of the kill phase's tournament, humans included
    humans: int = 2
    target: int = 100
    move_seconds: int = 2
    think: float = 0.01
    outage_players: int = 4  # the bot tournament running during the outages
    outage_target: int = 50
    outage_humans: int = 4  # casual human clients during the outages
    stall: float = 0.02  # chance that a human does not answer a decision (its clock fires)
    stalls: int = 2  # at most this many decisions of a match left unanswered (never two running)
    kill_gap: tuple[float, float] = (0.5, 4.0)  # seconds between a server being up again and the next kill
    # postgres: how long the killed server stays down; at least a clock's move_seconds and the other
    # server's look for matches it does not hold (2 s): every match in play must move on meanwhile
    down: tuple[float, float] = (5.0, 7.0)
    stall_seconds: float = STALL_SECONDS  # a wait in which nothing moved for this long is a failure
    seed: int | None = None
    workdir: Path | None = None  # keep the databases and server logs here (default: a temporary directory)

    @property
    def servers(self) -> int:
        return 2 if self.db == "postgres" else 1


def options_for(
    db: str,
    quick: bool,
    kills: int | None,
    postgres_url: str,
    outage: str,
    outages: int | None = None,
    seed: int | None = None,
) -> Options:
    if quick:
        return Options(
            db=db,
            kills=3 if kills is None else kills,
            quick=True,
            postgres_url=postgres_url,
            outage=outage,
            outages=1 if outages is None else outages,
            outage_seconds=3.0,
            players=5,
            target=20,
            think=0.005,
            outage_players=4,
            outage_target=20,
            outage_humans=3,
            stall=0.03,
            stalls=1,
            kill_gap=(0.3, 1.5),
            down=(4.5, 5.0),
            seed=seed,
        )
    return Options(
        db=db,
        kills=20 if kills is None else kills,
        postgres_url=postgres_url,
        outage=outage,
        outages=3 if outages is None else outages,
        seed=seed,
    )


class ChaosError(BenchError):
    """The run could not go on (a server that does not start, a database that cannot be made)."""


# ---------------------------------------------------------------- the servers


def chaos_settings(options: Options, director_token: str, **extra: str) -> dict[str, str]:
    """The servers' settings beyond the harness's own (``bench.launch.server_env``): the run's
    director, bots that think a little (so matches last), wrong tokens unthrottled."""
    return {
        "UNODUO_DIRECTOR_TOKEN": director_token,
        "UNODUO_BOT_THINK_SECONDS": f"{options.think:g}",
        "UNODUO_BAD_TOKENS_PER_MINUTE": "0",
        **extra,
    }


# ---------------------------------------------------------------- databases


def pg_bindir() -> Path | None:
    """Where initdb and pg_ctl are (pg_config, else the newest /usr/lib/postgresql/N/bin)."""
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
        if (Path(found) / "initdb").exists():
            return Path(found)
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return candidates[-1].parent if candidates else None


def private_cluster_possible() -> bool:
    """Whether this machine can run a PostgreSQL cluster of the run's own (``--outage restart``)."""
    return pg_bindir() is not None and (os.geteuid() != 0 or shutil.which("runuser") is not None)


class PrivateCluster:
    """A PostgreSQL cluster of this run's own (initdb in a temporary directory, a free port), so
    that it can be stopped hard and started again without disturbing anyone else's database."""

    def __init__(self, where: Path) -> None:
        bindir = pg_bindir()
        if bindir is None:
            raise ChaosError("no PostgreSQL binaries (initdb, pg_ctl) on this machine: use --outage terminate")
        self.bindir = bindir
        self.root = where / "pg"
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            if shutil.which("runuser") is None:
                raise ChaosError("running as root without runuser: cannot start a private PostgreSQL")
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *argv: str) -> None:
        done = subprocess.run([*self.as_user, *argv], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise ChaosError(f"{' '.join(argv[:2])} failed: {done.stdout}{done.stderr}")

    def init(self) -> None:
        self.root.mkdir(parents=True)
        if self.as_user:
            os.chmod(self.root.parent, 0o755)
            shutil.chown(self.root, "postgres", "postgres")
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.start()

    def start(self) -> None:
        settings = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root}"
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-o", settings, "start")

    def crash(self) -> None:
        """Stop at once, as a crash would (``-m immediate``: no checkpoint, recovery at the next start)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-w", "-m", "immediate", "stop")

    def close(self) -> None:
        with contextlib.suppress(ChaosError, OSError, subprocess.SubprocessError):
            self.crash()


# ---------------------------------------------------------------- what the clients saw


@dataclass(frozen=True)
class Answer:
    """A 2xx answer a client got to a command or a join: what it was told is now in the log."""

    stream: str
    command_id: str  # as stored: s<seat>:<client id>, or join-<seat>
    events: tuple[tuple[int, str], ...]  # (seq, hash) of every event the answer carried
    sends: int  # how many times it was sent before this answer


@dataclass
class Ledger:
    """Everything the clients did, shared by their threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: list[Answer] = field(default_factory=list)
    statuses: Counter[tuple[str, str]] = field(default_factory=Counter)  # (window, status) -> requests
    window: str = "normal"
    quiet: threading.Event = field(default_factory=threading.Event)  # set: the humans answer nothing
    stalls: int = 0
    problems: list[str] = field(default_factory=list)

    def count(self, window: str, status: str) -> None:
        with self.lock:
            self.statuses[(window, status)] += 1

    def answered(self, answer: Answer) -> None:
        with self.lock:
            self.answers.append(answer)

    def problem(self, what: str) -> None:
        with self.lock:
            if len(self.problems) < 200:
                self.problems.append(what)

    def in_window(self, window: str) -> Counter[str]:
        with self.lock:
            return Counter({status: n for (w, status), n in self.statuses.items() if w == window})


class Api:
    """HTTP through whichever server is up: a transport error tries the next one (or the same
    one again, after a pause), until ``give_up`` seconds have passed."""

    def __init__(self, servers: list[ServerProcess], ledger: Ledger, rng: random.Random) -> None:
        self.servers = servers
        self.ledger = ledger
        self.at = rng.randrange(len(servers))
        self.client = httpx.Client(timeout=REQUEST_SECONDS)
        self.attempts = 0  # how many times the last request was sent (a transport error sends it again)

    def close(self) -> None:
        self.client.close()

    def request(
        self, method: str, path: str, *, stop: threading.Event, give_up: float = 120.0, **kwargs: Any
    ) -> httpx.Response | None:
        deadline = time.monotonic() + give_up
        self.attempts = 0
        while not stop.is_set() and time.monotonic() < deadline:
            self.attempts += 1
            server = self.servers[self.at % len(self.servers)]
            window = self.ledger.window
            what = "POST" if method == "POST" else "GET"
            try:
                response = self.client.request(method, server.base + path, **kwargs)
            except httpx.TimeoutException:
                self.ledger.count(window, f"{what} timeout")
            except httpx.TransportError:
                self.ledger.count(window, f"{what} no connection")
            else:
                self.ledger.count(window, f"{what} {response.status_code}")
                if response.status_code >= 500 and response.status_code != 503:
                    self.ledger.problem(f"{method} {path} answered {response.status_code}: {response.text[:300]}")
                return response
            self.at += 1
            time.sleep(0.1)
        return None


def server_error(status: str) -> bool:
    """A counted status (``"POST 503"``) that is a server error other than 503 ``unavailable``."""
    code = status.rpartition(" ")[2]
    return code.isdigit() and int(code) >= 500 and code != "503"


MatchSource = Callable[["Human"], tuple[str, int] | None]


class Human(threading.Thread):
    """A human player: plays every match ``source`` gives it, with expected_version and command_id."""

    def __init__(
        self,
        name: str,
        servers: list[ServerProcess],
        ledger: Ledger,
        source: MatchSource,
        options: Options,
        stop: threading.Event,
        seed: int,
    ) -> None:
        super().__init__(name=f"human-{name}", daemon=True)
        self.player_name = name
        self.rng = random.Random(seed)
        self.api = Api(servers, ledger, self.rng)
        self.ledger = ledger
        self.source = source
        self.options = options
        self.stop = stop
        self.player_id = ""
        self.headers: dict[str, str] = {}
        self.done: set[str] = set()
        self.commands = 0
        self.matches = 0

    def register(self) -> None:
        # With a password: a retry after a lost answer finds the name taken (409) and signs in instead.
        account = {"name": self.player_name, "password": f"chaos-{self.player_name}-password"}
        response = self.api.request("POST", "/api/players", json=account, stop=self.stop)
        if response is not None and response.status_code == 409:
            response = self.api.request("POST", "/api/sessions", json=account, stop=self.stop)
        if response is None or response.status_code != 201:
            raise ChaosError(f"could not register {self.player_name}: {response and response.text}")
        body = response.json()
        self.player_id = body["id"]
        self.headers = {"Authorization": f"Bearer {body['token']}"}

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                got = self.source(self)
                if got is None:
                    time.sleep(0.1)
                    continue
                match_id, seat = got
                self.play(match_id, seat)
                self.done.add(match_id)
                self.matches += 1
        except Exception as exc:  # noqa: BLE001 - a client bug: reported, the run goes on
            self.ledger.problem(f"{self.player_name}: client error {exc!r}")
        finally:
            self.api.close()

    def _view(self, match_id: str) -> dict[str, Any] | None:
        while not self.stop.is_set():
            response = self.api.request("GET", f"/api/matches/{match_id}", headers=self.headers, stop=self.stop)
            if response is None:
                return None
            if response.status_code == 200:
                view: dict[str, Any] = response.json()["view"]
                return view
            if response.status_code != 503:
                self.ledger.problem(f"{self.player_name}: GET {match_id} answered {response.status_code}")
                return None
            time.sleep(0.2)
        return None

    def _send(self, match_id: str, path: str, body: dict[str, Any], stored_id: str) -> httpx.Response | None:
        """Send until an answer that is not 503 (the same body, so the same command id, every time)."""
        sends = 0
        while not self.stop.is_set():
            response = self.api.request("POST", path, headers=self.headers, json=body, stop=self.stop)
            sends += self.api.attempts
            if response is None:
                return None
            if response.status_code == 503:
                time.sleep(0.2)
                continue
            if response.status_code == 200:
                events = tuple((e["seq"], e["hash"]) for e in response.json()["events"])
                self.ledger.answered(Answer(f"match-{match_id}", stored_id, events, sends))
            return response
        return None

    def play(self, match_id: str, seat: int) -> None:
        view = self._view(match_id)
        joined = False
        decided_at = -1
        stalls_here = 0
        last_stalled = False
        while view is not None and not self.stop.is_set():
            if view["phase"] == "match_over":
                return
            if view["phase"] == "waiting" and not joined:
                path = f"/api/matches/{match_id}/join"
                response = self._send(match_id, path, {"entropy": f"{self.player_name}-{match_id}"}, f"join-{seat}")
                if response is None:
                    return
                joined = response.status_code == 200
                if response.status_code not in (200, 409):
                    self.ledger.problem(f"{self.player_name}: join {match_id} answered {response.status_code}")
                view = response.json()["view"] if joined else self._view(match_id)
                continue
            if self.ledger.quiet.is_set():  # told to answer nothing for a while: the clock will
                while self.ledger.quiet.is_set() and not self.stop.is_set():
                    time.sleep(POLL)
                view = self._view(match_id)
                continue
            legal = view["legal"]
            if not legal:
                time.sleep(POLL)
                view = self._view(match_id)
                continue
            if view["version"] != decided_at:  # a new decision: now and then, do not answer it at all
                decided_at = view["version"]
                stall = (
                    not last_stalled and stalls_here < self.options.stalls and self.rng.random() < self.options.stall
                )
                last_stalled = stall
                if stall:
                    stalls_here += 1
                    with self.ledger.lock:
                        self.ledger.stalls += 1
                    self.stop.wait(self.options.move_seconds + 0.5)
                    view = self._view(match_id)
                    continue
            command = shedding_choice(legal, self.rng)
            self.commands += 1
            client_id = f"{self.player_name}-{self.commands}"
            body = {"command_id": client_id, "expected_version": view["version"], "command": command}
            response = self._send(match_id, f"/api/matches/{match_id}/commands", body, f"s{seat}:{client_id}")
            if response is None:
                return
            if response.status_code == 200:
                view = response.json()["view"]
            elif response.status_code in (409, 422):  # the match moved on (a clock, a bot): look again
                view = self._view(match_id)
            else:
                self.ledger.problem(f"{self.player_name}: command answered {response.status_code}: {response.text}")
                return


class TournamentSeats:
    """A human's next tournament match: a live pairing of the current tournament with them in it."""

    def __init__(self, servers: list[ServerProcess], ledger: Ledger, stop: threading.Event) -> None:
        self.tournament = ""
        self.servers = servers
        self.ledger = ledger
        self.stop = stop

    def __call__(self, human: Human) -> tuple[str, int] | None:
        if not self.tournament:
            return None
        response = human.api.request("GET", f"/api/tournaments/{self.tournament}", stop=self.stop)
        if response is None or response.status_code != 200:
            return None
        for r in response.json()["rounds"]:
            for p in r["pairings"]:
                if p["status"] != "live" or p["match"] is None or p["match"] in human.done:
                    continue
                for seat, side in enumerate(("white", "black")):
                    if p[side]["id"] == human.player_id:
                        return p["match"], seat
        return None


class CasualSeats:
    """A human's next casual match: a new one against ``bot:random`` (seat 0)."""

    def __init__(self, move_seconds: int, stop: threading.Event) -> None:
        self.move_seconds = move_seconds
        self.stop = stop

    def __call__(self, human: Human) -> tuple[str, int] | None:
        body = {"opponent": "bot:random", "move_seconds": self.move_seconds}
        response = human.api.request("POST", "/api/matches", headers=human.headers, json=body, stop=self.stop)
        if response is None or response.status_code != 201:
            return None
        return response.json()["id"], 0


# ---------------------------------------------------------------- the database, read directly


class Database:
    """The run's database read directly (not through a server): heads, statuses, the audit."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = sqlalchemy.create_engine(url, pool_size=2, pool_pre_ping=True)

    def close(self) -> None:
        self.engine.dispose()

    def heads(self, tournament: str) -> dict[str, tuple[str, int]]:
        """Every match of ``tournament`` (or every casual match, for ''): its status and stream head."""
        query = text(
            "SELECT s.id, s.status, (SELECT MAX(e.seq) FROM events e WHERE e.stream = 'match-' || s.id)"
            " FROM match_summaries s WHERE COALESCE(s.tournament, '') = :t"
        )
        with self.engine.connect() as conn:
            return {row[0]: (row[1], int(row[2] or 0)) for row in conn.execute(query, {"t": tournament})}

    def events(self) -> int:
        """How many events the whole log holds (any stream): the run's progress; -1 while unreadable."""
        try:
            with self.engine.connect() as conn:
                return int(conn.execute(text("SELECT COUNT(*) FROM events")).scalar() or 0)
        except OperationalError:
            return -1

    def timed_out_after(self, match_id: str, seq: int) -> int:
        """1 if a clock's timeout is among the events of ``match_id`` after ``seq``, else 0."""
        query = text("SELECT COUNT(*) FROM events WHERE stream = :s AND seq > :q AND type = 'timed_out'")
        with self.engine.connect() as conn:
            return int(bool(conn.execute(query, {"s": f"match-{match_id}", "q": seq}).scalar()))


@dataclass
class Moved:
    """Matches in play after a restart (or an outage), and how they went on."""

    counted: int = 0  # matches in play (waiting or live) when the check began
    stuck: list[str] = field(default_factory=list)  # those still pending when none had moved for the stall window
    by_clock: int = 0  # those whose next events include a clock's timeout (nobody else moved them)


def in_play(scope: str, status: str) -> bool:
    """Whether a match of ``scope`` with ``status`` must move on by itself. A tournament's match
    does once opened (the server seats its bots; its clocks run from the join deadline). A casual
    match does once it is live: one still waiting was never joined, as when the answer to its
    creation was lost in an outage (the server committed it, the client was told 503 and made
    another), and nothing moves an unjoined casual match."""
    return status == "live" or (status == "waiting" and scope != "")


def wait_moving(db: Database, scopes: list[str], stall_seconds: float) -> Moved:
    """Wait until every match in play (:func:`in_play`) of ``scopes`` (tournament ids, '' for
    casual matches) has moved on (its head grew) or ended. The wait has no limit as such: the
    matches still pending are ``stuck`` once none of them has moved for ``stall_seconds``."""
    before: dict[str, int] = {}
    for t in scopes:
        before.update({m: head for m, (status, head) in db.heads(t).items() if in_play(t, status)})
    moved = Moved(counted=len(before))
    pending = set(before)
    stall = Stall(stall_seconds)
    now: dict[str, tuple[str, int]] = {}
    while pending and not stall.stuck:
        now = {}
        with contextlib.suppress(OperationalError):
            for t in scopes:
                now.update(db.heads(t))
        for match_id in list(pending):
            status, head = now.get(match_id, ("", 0))
            if head > before[match_id] or status not in ("waiting", "live", ""):
                pending.discard(match_id)
                moved.by_clock += db.timed_out_after(match_id, before[match_id])
        stall.moved(len(pending))
        time.sleep(0.1)
    moved.stuck = [f"{m} ({now.get(m, ('?', 0))[0]} at seq {before[m]})" for m in sorted(pending)]
    return moved


# ---------------------------------------------------------------- the director


class Director:
    def __init__(self, servers: list[ServerProcess], token: str, ledger: Ledger) -> None:
        self.servers = servers
        self.headers = {"Authorization": f"Bearer {token}"}
        self.ledger = ledger
        self.never = threading.Event()
        self.api = Api(servers, ledger, random.Random(0))

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        for _ in range(100):
            response = self.api.request(method, path, headers=self.headers, stop=self.never, **kwargs)
            if response is None:
                raise ChaosError(f"no server answered {method} {path}")
            if response.status_code != 503:
                return response
            time.sleep(0.2)
        raise ChaosError(f"{method} {path}: 503 again and again")

    def tournament(self, entries: list[str], target: int, move_seconds: int) -> str:
        body = {
            "name": f"chaos {secrets.token_hex(2)}",
            "players": entries,
            "rules": {"target": target},
            "move_seconds": move_seconds,
            "join_seconds": 120,
        }
        created = self.request("POST", "/api/tournaments", json=body)
        if created.status_code != 201:
            raise ChaosError(f"create tournament: {created.status_code} {created.text}")
        tournament_id: str = created.json()["id"]
        started = self.request("POST", f"/api/tournaments/{tournament_id}/start")
        if started.status_code != 200:
            raise ChaosError(f"start tournament: {started.status_code} {started.text}")
        return tournament_id

    def show(self, tournament_id: str) -> dict[str, Any]:
        response = self.request("GET", f"/api/tournaments/{tournament_id}")
        if response.status_code != 200:
            raise ChaosError(f"GET tournament: {response.status_code} {response.text}")
        shown: dict[str, Any] = response.json()
        return shown

    def finished(self, tournament_id: str) -> bool:
        return bool(self.show(tournament_id)["status"] == "finished")

    def close(self) -> None:
        self.api.close()


# ---------------------------------------------------------------- the report


@dataclass
class PhaseFigures:
    name: str
    kills: int = 0
    restarts: int = 0
    restart_seconds: list[float] = field(default_factory=list)
    resumed_checks: int = 0  # matches in play checked to move on after a restart (or an outage)
    not_resumed: list[str] = field(default_factory=list)
    resumed_by_clock: int = 0  # of those, moved on by a clock's timeout
    carried_on: int = 0  # postgres: matches in play that moved on while one server was down
    down_checks: int = 0
    down_by_clock: int = 0
    not_carried_on: list[str] = field(default_factory=list)
    outages: int = 0
    outage_kind: str = ""
    outage_statuses: Counter[str] = field(default_factory=Counter)
    after_statuses: Counter[str] = field(default_factory=Counter)
    recovery_seconds: list[float] = field(default_factory=list)
    tournaments: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def resumed(self, moved: Moved, report: Report, what: str, when: str, stall_seconds: float) -> None:
        """Count how the matches in play went on after a restart or an outage; the stuck ones are a problem."""
        self.resumed_checks += moved.counted
        self.resumed_by_clock += moved.by_clock
        self.not_resumed += moved.stuck
        if moved.stuck:
            report.problems.append(
                f"{what}: {len(moved.stuck)} of {moved.counted} matches did not move on {when}"
                f" (none moved for {stall_seconds:g} s): {', '.join(moved.stuck[:5])}"
            )


@dataclass
class Report:
    options: Options
    phases: list[PhaseFigures] = field(default_factory=list)
    answers: int = 0
    answers_after_retry: int = 0
    receipts: int = 0
    receipts_lost: int = 0
    receipts_wrong: int = 0
    commands_missing: int = 0
    duplicates: int = 0
    commands: int = 0  # processed command ids (one row per stream and id)
    streams: int = 0
    events: int = 0
    timeouts: int = 0
    stalls: int = 0
    replays_verified: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    facts: list[str] = field(default_factory=list)

    @property
    def lost(self) -> int:
        return self.receipts_lost + self.receipts_wrong + self.commands_missing

    @property
    def ok(self) -> bool:
        return not self.problems and self.lost == 0 and self.duplicates == 0


# ---------------------------------------------------------------- the audit


def audit(db: Database, report: Report, answers: list[Answer], move_seconds: dict[str, int]) -> None:
    """Read the whole log back and check it against what the clients were told (the module docstring)."""
    with db.engine.connect() as conn:
        rows = conn.execute(text("SELECT stream, seq, hash, type, at FROM events ORDER BY stream, seq")).all()
        processed = conn.execute(text("SELECT stream, command_id, first_seq, count FROM processed_commands")).all()
    hashes: dict[tuple[str, int], str] = {}
    by_stream: dict[str, list[int]] = defaultdict(list)
    clocked: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for stream, seq, digest, kind, at in rows:
        hashes[(stream, seq)] = digest
        by_stream[stream].append(seq)
        if kind in AUDIT_TYPES:
            clocked[stream].append((kind, at))
    report.streams += len(by_stream)
    report.events += len(rows)
    commands: dict[tuple[str, str], tuple[int, int]] = {(s, c): (f, n) for s, c, f, n in processed}
    report.commands += len(commands)

    # Every answer is in the log.
    for answer in answers:
        report.answers += 1
        report.answers_after_retry += answer.sends > 1
        for seq, digest in answer.events:
            report.receipts += 1
            found = hashes.get((answer.stream, seq))
            if found is None:
                report.receipts_lost += 1
                report.problems.append(f"lost: {answer.stream} seq {seq} ({answer.command_id}) is not in the log")
            elif found != digest:
                report.receipts_wrong += 1
                report.problems.append(f"lost: {answer.stream} seq {seq} has another hash than the client was given")
        recorded = commands.get((answer.stream, answer.command_id))
        if recorded is None or (answer.events and recorded[0] != answer.events[0][0]):
            report.commands_missing += 1
            report.problems.append(f"lost: {answer.command_id} on {answer.stream} is not recorded as it was answered")

    # Nothing twice: the processed commands cover every stream's seqs exactly once.
    ranges: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for (stream, command_id), (first, count) in commands.items():
        if count:
            ranges[stream].append((first, count, command_id))
        kind, _, version = command_id.partition("-")
        if kind in ("bot", "timeout") and version.isdigit() and count and first != int(version) + 1:
            report.duplicates += 1
            report.problems.append(f"{stream}: {command_id} was applied at seq {first}, not {int(version) + 1}")
    for stream, seqs in by_stream.items():
        if seqs != list(range(1, len(seqs) + 1)):
            report.problems.append(f"{stream}: its seqs do not run 1…{len(seqs)}")
        covered = Counter(seq for first, count, _ in ranges[stream] for seq in range(first, first + count))
        twice = [seq for seq, n in covered.items() if n > 1]
        bare = [seq for seq in seqs if seq not in covered]
        if twice:
            report.duplicates += len(twice)
            report.problems.append(f"{stream}: seqs {twice[:5]} were appended by two commands")
        if bare and not stream.startswith("player"):
            report.problems.append(f"{stream}: seqs {bare[:5]} belong to no processed command")

    # The clocks: never early, once per decision.
    for stream, items in clocked.items():
        seconds = move_seconds.get(stream)
        awaiting: str | None = None
        fired = False
        for kind, at in items:
            if kind == "awaiting":
                awaiting, fired = at, False
                continue
            report.timeouts += 1
            if fired:
                report.duplicates += 1
                report.problems.append(f"{stream}: a decision timed out twice")
            fired = True
            if awaiting is not None and seconds is not None:
                started = datetime.strptime(awaiting, AT_FORMAT)
                if datetime.strptime(at, AT_FORMAT) < started + timedelta(seconds=seconds):
                    report.problems.append(f"{stream}: a clock fired early ({awaiting} → {at})")


def verify_chains(url: str, report: Report) -> None:
    from server.db import make_engine
    from server.settings import Settings
    from server.store.event_store import EventStore

    store = EventStore(make_engine(url, Settings()), group_commit=False)
    try:
        for stream in store.streams():
            broken = store.verify_chain(stream)
            if broken is not None:
                report.problems.append(f"{stream}: the chain breaks at seq {broken}")
    finally:
        store.close()


def check_tournament(t: dict[str, Any], stream: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """What is wrong with a finished round-robin (``GET /api/tournaments/{id}``) and its own stream."""
    problems: list[str] = []
    name = t["id"]
    if t["status"] != "finished":
        return [f"{name}: {t['status']}, not finished"]
    ids = [p["id"] for p in t["players"]]
    n = len(ids)
    met: Counter[frozenset[str]] = Counter()
    with_winner = 0
    pairings = 0
    won: Counter[str] = Counter()
    for r in t["rounds"]:
        if r["status"] != "finished":
            problems.append(f"{name}: round {r['number']} is {r['status']}")
        seated = [p[side]["id"] for p in r["pairings"] for side in ("white", "black")] + ([r["bye"]] if n % 2 else [])
        if sorted(seated) != sorted(ids):
            problems.append(f"{name}: round {r['number']} does not seat everyone once")
        for p in r["pairings"]:
            pairings += 1
            met[frozenset((p["white"]["id"], p["black"]["id"]))] += 1
            result = p["result"]
            if p["status"] != "decided" or result is None:
                problems.append(f"{name}: pairing {p['slot']} is {p['status']}")
                continue
            if result["winner"] is not None:
                with_winner += 1
                won[result["winner"]] += 1
    if len(met) != n * (n - 1) // 2 or set(met.values()) != {1}:
        problems.append(f"{name}: not every pair met exactly once")
    rows = t["standings"]
    if sum(row["won"] for row in rows) != with_winner:
        problems.append(f"{name}: the standings' wins add up to {sum(r['won'] for r in rows)}, not {with_winner}")
    for row in rows:
        if row["played"] != n - 1 or row["won"] + row["lost"] != row["played"] or row["won"] != won[row["player"]]:
            problems.append(f"{name}: {row['player']}'s row does not add up: {row}")
        if row["byes"] != n % 2:
            problems.append(f"{name}: {row['player']} sat out {row['byes']} rounds")
    kinds = Counter(kind for kind, _ in stream)
    for once in ("tournament_created", "tournament_started", "tournament_finished"):
        if kinds[once] != 1:
            problems.append(f"{name}: {once} recorded {kinds[once]} times")
    opened = [data["round"] for kind, data in stream if kind == "round_opened"]
    if opened != list(range(1, len(t["rounds"]) + 1)):
        problems.append(f"{name}: rounds opened {opened}")
    results = Counter(data["slot"] for kind, data in stream if kind == "result_recorded")
    if len(results) != pairings or set(results.values()) != {1}:
        problems.append(f"{name}: results recorded {dict(results)}")
    return problems


def tournament_stream(db: Database, tournament_id: str) -> list[tuple[str, dict[str, Any]]]:
    import json

    with db.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT type, data FROM events WHERE stream = :s ORDER BY seq"), {"s": f"tournament-{tournament_id}"}
        ).all()
    return [(kind, data if isinstance(data, dict) else json.loads(data)) for kind, data in rows]


def move_seconds_of(db: Database) -> dict[str, int]:
    with db.engine.connect() as conn:
        rows = conn.execute(text("SELECT id, move_seconds FROM match_summaries")).all()
    return {f"match-{m}": int(s) for m, s in rows if s is not None}


def verify_replays(director: Director, db: Database, report: Report, answers: list[Answer], ids: list[str]) -> None:
    """Every finished match of ``ids`` (tournaments) verifies, with the clients' receipts of that match."""
    receipts: dict[str, list[VerifyReceipt]] = defaultdict(list)
    for answer in answers:
        receipts[answer.stream] += [VerifyReceipt(seq, digest) for seq, digest in answer.events]
    for t in ids:
        for match_id, (status, _) in db.heads(t).items():
            if status != "finished":
                continue
            response = director.request("GET", f"/api/matches/{match_id}/replay")
            if response.status_code != 200:
                report.problems.append(f"replay of {match_id}: {response.status_code}")
                continue
            verdict = verify_replay(response.text, receipts.get(f"match-{match_id}", []))
            report.replays_verified += 1
            if not verdict.ok:
                report.problems.append(f"replay of {match_id} does not verify: line {verdict.line}: {verdict.failure}")


def scan_logs(servers: list[ServerProcess], report: Report) -> None:
    for server in servers:
        report.problems += server.log_problems()


# ---------------------------------------------------------------- the phases


Log = Callable[[str], None]


class Run:
    """One phase's servers, clients and database."""

    def __init__(self, options: Options, db_url: str, where: Path, log: Log, rng: random.Random, **env: str) -> None:
        self.options = options
        self.log = log
        self.rng = rng
        self.token = "chaos-director-" + secrets.token_hex(16)
        self.ledger = Ledger()
        self.stop = threading.Event()
        self.db_url = db_url
        settings = chaos_settings(options, self.token, **env)
        self.servers = [
            ServerProcess(db_url, where / f"server-{i + 1}.log", settings, name=f"server {i + 1}")
            for i in range(options.servers)
        ]
        self.director = Director(self.servers, self.token, self.ledger)
        self.humans: list[Human] = []
        self.db: Database | None = None

    def start(self) -> None:
        for server in self.servers:  # one after the other: the first migrates the database
            server.start()
        self.db = Database(self.db_url)

    def add_humans(self, count: int, source: MatchSource, prefix: str) -> None:
        for i in range(count):
            human = Human(
                f"{prefix}{i + 1}",
                self.servers,
                self.ledger,
                source,
                self.options,
                self.stop,
                self.rng.randrange(1 << 30),
            )
            human.register()
            self.humans.append(human)

    def finish(self, report: Report, figures: PhaseFigures) -> None:
        """Stop the clients and servers, then check everything (the servers are started again for the replays)."""
        self.stop.set()
        for human in self.humans:
            human.join(timeout=REQUEST_SECONDS + 5)
        assert self.db is not None
        db = self.db
        answers = list(self.ledger.answers)
        report.stalls += self.ledger.stalls
        report.problems += self.ledger.problems
        for (_, status), n in self.ledger.statuses.items():
            report.statuses[status] += n
        for t in figures.tournaments:
            report.problems += check_tournament(self.director.show(t), tournament_stream(db, t))
        verify_replays(self.director, db, report, answers, figures.tournaments)
        for server in self.servers:
            code = server.stop()
            if code not in (0, None):
                report.problems.append(f"{server.name} exited with {code} on Ctrl-C")
        audit(db, report, answers, move_seconds_of(db))
        verify_chains(self.db_url, report)
        scan_logs(self.servers, report)
        db.close()
        self.director.close()

    def abort(self) -> None:
        self.stop.set()
        for server in self.servers:
            server.stop()
        if self.db is not None:
            self.db.close()


def write_probe(run: Run, name: str) -> None:
    """One write of the run's own while the database is away (a registration), so that an outage's
    window always holds a POST, whatever the clients happen to be doing then (all of them may be
    reading, waiting for a bot's move): its answer is counted with theirs, a 503 being the right one."""
    run.director.api.request("POST", "/api/players", json={"name": name}, stop=run.stop, give_up=REQUEST_SECONDS)


def finish(run: Run, tournament_id: str, stall_seconds: float) -> bool:
    """Wait for ``tournament_id`` to finish, however long that takes while the log grows: False
    once no new event (in any stream) has been written for ``stall_seconds``."""
    db = run.db
    assert db is not None
    return wait_until(lambda: run.director.finished(tournament_id), db.events, stall_seconds, poll=0.5)


def kill_phase(options: Options, db_url: str, where: Path, report: Report, log: Log, rng: random.Random) -> None:
    figures = PhaseFigures("kills")
    report.phases.append(figures)
    run = Run(options, db_url, where / "kills", log, rng)
    (where / "kills").mkdir()
    began = time.monotonic()
    try:
        run.start()
        seats = TournamentSeats(run.servers, run.ledger, run.stop)
        run.add_humans(options.humans, seats, "h")
        bots = ["bot:random", "bot:greedy"]
        entries = [bots[i % 2] for i in range(options.players - options.humans)]
        for i, human in enumerate(run.humans):  # the humans spread over the pairing numbers
            entries.insert(min(len(entries), 1 + i * 3), human.player_id)

        def new_tournament() -> None:
            tournament_id = run.director.tournament(entries, options.target, options.move_seconds)
            figures.tournaments.append(tournament_id)
            seats.tournament = tournament_id
            log(f"  tournament {tournament_id} started: {options.players} entrants, target {options.target}")

        new_tournament()
        for human in run.humans:
            human.start()
        assert run.db is not None
        scope = figures.tournaments[-1:]
        while figures.kills < options.kills:
            run.stop.wait(rng.uniform(*options.kill_gap))
            if run.director.finished(figures.tournaments[-1]):
                new_tournament()
                scope = figures.tournaments[-1:]
                continue
            # Every other kill the humans answer nothing until the matches have moved on: what moves
            # a human's match then is its clock, run by the server that is up.
            quiet = figures.kills % 2 == 1
            if quiet:
                run.ledger.quiet.set()
            victim = rng.choice(run.servers)
            victim.kill()
            figures.kills += 1
            line = f"  kill {figures.kills}/{options.kills}: {victim.name} killed{' (humans silent)' if quiet else ''}"
            others = [s for s in run.servers if s is not victim]
            if others:  # the other server carries on while this one is down, until every match has moved
                down = rng.uniform(*options.down)
                went_down = time.monotonic()
                moved = wait_moving(run.db, scope, options.stall_seconds)
                run.ledger.quiet.clear()
                figures.down_checks += moved.counted
                figures.carried_on += moved.counted - len(moved.stuck)
                figures.down_by_clock += moved.by_clock
                figures.not_carried_on += moved.stuck
                if moved.stuck:
                    report.problems.append(
                        f"kill {figures.kills}: {len(moved.stuck)} of {moved.counted} matches did not move on through"
                        f" {others[0].name} while {victim.name} was down (none moved for {options.stall_seconds:g} s):"
                        f" {', '.join(moved.stuck[:5])}"
                    )
                time.sleep(max(0.0, went_down + down - time.monotonic()))
                down = time.monotonic() - went_down
                line += (
                    f", down {down:.1f} s: {moved.counted - len(moved.stuck)}/{moved.counted} matches moved on"
                    f" through {others[0].name} ({moved.by_clock} by their clock)"
                )
            took = victim.start()
            figures.restarts += 1
            figures.restart_seconds.append(took)
            moved = wait_moving(run.db, scope, options.stall_seconds)
            run.ledger.quiet.clear()
            figures.resumed(moved, report, f"kill {figures.kills}", "after the restart", options.stall_seconds)
            log(
                f"{line}; up again in {took:.1f} s: {moved.counted - len(moved.stuck)}/{moved.counted} matches in"
                f" play moved on ({moved.by_clock} by their clock)"
            )
        last = figures.tournaments[-1]
        if not finish(run, last, options.stall_seconds):
            report.problems.append(
                f"kills: tournament {last} stopped moving (no new event for {options.stall_seconds:g} s)"
            )
        log("  kills done; checking")
        run.finish(report, figures)
        figures.seconds = time.monotonic() - began
    except BaseException:
        run.abort()
        raise


class Outage:
    """Takes the database away and gives it back."""

    kind = ""

    def begin(self) -> None: ...

    def end(self) -> None: ...

    def close(self) -> None: ...


class ClusterOutage(Outage):
    kind = "PostgreSQL stopped hard (pg_ctl stop -m immediate) and started again"

    def __init__(self, cluster: PrivateCluster) -> None:
        self.cluster = cluster

    def begin(self) -> None:
        self.cluster.crash()

    def end(self) -> None:
        self.cluster.start()


class TerminateOutage(Outage):
    kind = "the servers' PostgreSQL connections terminated every 50 ms (pg_terminate_backend; a stand-in)"

    def __init__(self, postgres_url: str, application_name: str) -> None:
        self.engine = sqlalchemy.create_engine(postgres_url, pool_size=1)
        self.application_name = application_name
        self.running = threading.Event()
        self.thread: threading.Thread | None = None
        self.terminated = 0

    def _loop(self) -> None:
        query = text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :a")
        while self.running.is_set():
            with contextlib.suppress(DBAPIError), self.engine.begin() as conn:
                self.terminated += sum(1 for (done,) in conn.execute(query, {"a": self.application_name}) if done)
            time.sleep(0.05)

    def begin(self) -> None:
        self.running.set()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def end(self) -> None:
        self.running.clear()
        if self.thread is not None:
            self.thread.join()

    def close(self) -> None:
        self.engine.dispose()


class SqliteLockOutage(Outage):
    kind = "another connection holds SQLite's write lock past the servers' busy timeout (a stand-in)"

    def __init__(self, path: str) -> None:
        self.path = path
        self.conn: sqlite3.Connection | None = None

    def begin(self) -> None:
        self.conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.conn.execute("BEGIN EXCLUSIVE")

    def end(self) -> None:
        if self.conn is not None:
            self.conn.execute("ROLLBACK")
            self.conn.close()
            self.conn = None


def outage_phase(
    options: Options, db_url: str, outage: Outage, where: Path, report: Report, log: Log, rng: random.Random
) -> None:
    figures = PhaseFigures("outage", outage_kind=outage.kind)
    report.phases.append(figures)
    (where / "outage").mkdir()
    env = {"UNODUO_SQLITE_BUSY_TIMEOUT_MS": "100"} if options.db == "sqlite" else {}
    run = Run(options, db_url, where / "outage", log, rng, **env)
    began = time.monotonic()
    try:
        run.start()
        assert run.db is not None
        run.add_humans(options.outage_humans, CasualSeats(options.move_seconds, run.stop), "c")
        bots = ["bot:random", "bot:greedy"]
        entries = [bots[i % 2] for i in range(options.outage_players)]
        tournament_id = run.director.tournament(entries, options.outage_target, options.move_seconds)
        figures.tournaments.append(tournament_id)
        for human in run.humans:
            human.start()
        scopes = [tournament_id, ""]
        for number in range(options.outages):
            run.stop.wait(rng.uniform(1.5, 3.0))
            run.ledger.window = "outage"
            outage.begin()
            probe = threading.Thread(target=write_probe, args=(run, f"probe-{number + 1}"), daemon=True)
            probe.start()
            time.sleep(options.outage_seconds)
            run.ledger.window = "after"
            outage.end()
            probe.join()
            back = time.monotonic()
            figures.outages += 1
            moved = wait_moving(run.db, scopes, options.stall_seconds)
            figures.recovery_seconds.append(time.monotonic() - back)
            came_back = "after the database came back"
            figures.resumed(moved, report, f"outage {number + 1}", came_back, options.stall_seconds)
            run.stop.wait(max(0.0, back + 2.0 - time.monotonic()))
            run.ledger.window = "normal"
            log(
                f"  outage {number + 1}/{options.outages}: {options.outage_seconds:g} s;"
                f" {moved.counted - len(moved.stuck)}/{moved.counted} matches in play moved on afterwards"
                f" ({moved.by_clock} by their clock)"
            )
        if not finish(run, tournament_id, options.stall_seconds):
            report.problems.append(
                f"outage: tournament {tournament_id} stopped moving (no new event for {options.stall_seconds:g} s)"
            )
        figures.outage_statuses = run.ledger.in_window("outage")
        figures.after_statuses = run.ledger.in_window("after")
        for status, n in figures.outage_statuses.items():
            if server_error(status):
                report.problems.append(f"outage: {n} requests answered {status}")
        log("  outages done; checking")
        run.finish(report, figures)
        figures.seconds = time.monotonic() - began
    except BaseException:
        run.abort()
        raise
    finally:
        outage.close()


def run_chaos(options: Options, log: Log) -> Report:
    report = Report(options)
    seed = options.seed if options.seed is not None else secrets.randbelow(1 << 30)
    rng = random.Random(seed)
    began = time.monotonic()
    report.facts = machine_facts(options, seed)
    with contextlib.ExitStack() as stack:
        if options.workdir is not None:
            options.workdir.mkdir(parents=True, exist_ok=False)
            where = options.workdir.resolve()
        else:
            where = Path(stack.enter_context(TemporaryDirectory(prefix="unoduo-chaos-")))
        log(f"kills: {options.kills} SIGKILLs of {options.servers} server(s) on {options.db}")
        if options.db == "sqlite":
            kill_phase(options, f"sqlite:///{where / 'kills.sqlite3'}", where, report, log, rng)
            path = where / "outage.sqlite3"
            log(f"outage: {options.outages} × {options.outage_seconds:g} s, SQLite write lock held")
            outage_phase(options, f"sqlite:///{path}", SqliteLockOutage(str(path)), where, report, log, rng)
        else:
            app = f"unoduo-chaos-{secrets.token_hex(3)}"
            with postgres_schema(options.postgres_url, "unoduo_chaos", app) as url:
                kill_phase(options, url, where, report, log, rng)
            if options.outage == "restart":
                cluster = PrivateCluster(where)
                cluster.init()
                log(f"outage: {options.outages} × {options.outage_seconds:g} s, a private PostgreSQL stopped hard")
                named = make_url(cluster.url).update_query_dict({"application_name": "unoduo-chaos-outage"})
                try:
                    outage_phase(
                        options,
                        named.render_as_string(hide_password=False),
                        ClusterOutage(cluster),
                        where,
                        report,
                        log,
                        rng,
                    )
                finally:
                    cluster.close()
            else:
                app = f"unoduo-chaos-{secrets.token_hex(3)}"
                log(f"outage: {options.outages} × {options.outage_seconds:g} s, connections terminated")
                with postgres_schema(options.postgres_url, "unoduo_chaos", app) as url:
                    terminate = TerminateOutage(options.postgres_url, app)
                    outage_phase(options, url, terminate, where, report, log, rng)
    report.seconds = time.monotonic() - began
    return report


def machine_facts(options: Options, seed: int) -> list[str]:
    return [
        f"nproc: {os.cpu_count()}; CPU: {cpu_model()}; Python {platform.python_version()}; {platform.platform()}",
        f"seed {seed}; {options.players} entrants ({options.humans} human clients), target {options.target},"
        f" move_seconds {options.move_seconds}, UNODUO_BOT_THINK_SECONDS={options.think:g}",
    ]


def print_report(report: Report, say: Log) -> None:
    o = report.options
    say("")
    say(f"unoduo bench chaos: {o.db}, {'quick' if o.quick else 'full'} run, {report.seconds:.0f} s")
    for fact in report.facts:
        say(f"  {fact}")
    for p in report.phases:
        if p.name == "kills":
            restarts = sorted(p.restart_seconds)
            median = restarts[len(restarts) // 2] if restarts else 0.0
            say(
                f"  kills: {p.kills} SIGKILLs, {p.restarts} restarts (median {median:.1f} s to answer again),"
                f" {len(p.tournaments)} tournament(s), {p.seconds:.0f} s"
            )
            say(
                f"    matches in play checked after a restart: {p.resumed_checks}, moved on: {p.resumed_checks - len(p.not_resumed)}"
                f" ({p.resumed_by_clock} by their clock), not moving on: {len(p.not_resumed)}"
            )
            if p.down_checks:
                say(
                    f"    while one server was down: {p.carried_on}/{p.down_checks} matches in play moved on through the"
                    f" other ({p.down_by_clock} by their clock)"
                )
        else:
            say(f"  outages: {p.outages} × {o.outage_seconds:g} s: {p.outage_kind}; {p.seconds:.0f} s")
            say(f"    requests started during an outage: {_statuses(p.outage_statuses)}")
            say(f"    in the 2 s after it: {_statuses(p.after_statuses)}")
            recovery = max(p.recovery_seconds, default=0.0)
            say(
                f"    matches in play checked afterwards: {p.resumed_checks}, not moving on: {len(p.not_resumed)}"
                f" ({p.resumed_by_clock} moved on by their clock; all moving within {recovery:.1f} s)"
            )
    say(f"  requests by status: {_statuses(report.statuses)}")
    say(
        f"  commands answered (2xx): {report.answers} ({report.answers_after_retry} after a retry);"
        f" receipts checked: {report.receipts}; processed command ids checked: {report.commands}"
    )
    say(
        f"  lost: {report.receipts_lost} receipts missing, {report.receipts_wrong} with another hash,"
        f" {report.commands_missing} commands not recorded; duplicates: {report.duplicates}"
    )
    say(
        f"  log: {report.streams} streams, {report.events} events; {report.timeouts} clock timeouts"
        f" ({report.stalls} human stalls); replays verified: {report.replays_verified}"
    )
    if report.problems:
        say(f"  PROBLEMS ({len(report.problems)}):")
        for problem in report.problems[:40]:
            say(f"    - {problem}")
    say("  result: " + ("OK, nothing lost" if report.ok else "FAILED"))


def _statuses(counts: Counter[str]) -> str:
    if not counts:
        return "none"
    return ", ".join(f"{status}: {n}" for status, n in sorted(counts.items()))
