"""``unoduo bench startup``: what starting a command costs (issue 34, point 4).

Each figure is the CPU (user + system) of a fresh process, the median of ``runs`` runs, against a
reference measured the same way in the same run:

- ``unoduo --help`` and ``unoduo play --help`` (the console script's own code,
  ``from cli.main import main; main()``), against a one-command Typer app's ``--help`` in the same
  Markdown help mode: what Typer itself costs. A child process also says which heavy packages each
  imported (``sys.modules`` at its exit), and which the terminal client (``cli.play_cmd`` and
  ``tui_client.apps.play_app``, all ``unoduo play`` imports) brings in;
- ``unoduo serve`` from exec to its first 200 answer (``GET /api``, on a migrated SQLite file),
  CPU and wall, against a no-op FastAPI app (one route, served by uvicorn, started as a script the
  same way): the CPU of the server process read from /proc when the answer arrives;
- importing the terminal client (``tui_client.apps.play_app``) against importing Textual's ``App``;
- the floor under ``unoduo serve``: what importing its libraries costs step by step, and, once they
  are imported, where the server's own start goes by kind (FastAPI's routes, pydantic models,
  SQLModel classes, dataclasses, the rest): the part that grows with the API's size.

``against`` (another checkout, e.g. a git worktree at the commit before a change) is measured in
the same run, its runs interleaved with this checkout's: before and after on the same load.
Every child gets its own bytecode cache (``PYTHONPYCACHEPREFIX``, warmed by a first unmeasured
run), as an installed program has: a tree run with ``PYTHONDONTWRITEBYTECODE`` would compile every
module each time.
"""

from __future__ import annotations

import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from bench.launch import BenchError, free_port
from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section

SECTION = "## Start-up"
ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("server", "sqlalchemy", "fastapi", "starlette", "uvicorn", "textual", "engine", "httpx", "pydantic")
ANSWER_SECONDS = 60.0  # a server that has not answered this long after exec has failed to start

UNODUO = "from cli.main import main; main()"  # what the console script runs
TYPER_ONLY = """
import typer
app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode="markdown")
@app.callback()
def root() -> None:
    '''The root.'''
@app.command()
def one(server: str = typer.Option("http://127.0.0.1:8000", "--server", help="a server")) -> None:
    '''One command.'''
app()
"""
NOOP_SERVER = """
import sys
import uvicorn
from fastapi import FastAPI
app = FastAPI()
@app.get("/api")
def api() -> dict[str, str]:
    return {"api": "/api"}
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="info")
"""
# Prints the heavy packages imported by the end of the code before it (its exit included).
MODULES_AT_EXIT = """
import atexit, sys
HEAVY = {heavy!r}
atexit.register(lambda: print("IMPORTED", *sorted({{m.split(".")[0] for m in sys.modules}} & set(HEAVY)), file=sys.stderr))
"""


@dataclass
class Checkout:
    """A source tree to measure: its own code on the path, its own bytecode cache."""

    label: str
    path: Path
    cache: Path

    def env(self) -> dict[str, str]:
        env = {**os.environ, "PYTHONPATH": str(self.path), "PYTHONPYCACHEPREFIX": str(self.cache)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("UNODUO_DATABASE_URL", None)
        env["COLUMNS"] = "100"
        return env


@dataclass
class Figures:
    """Medians of one checkout's runs (CPU and wall in seconds)."""

    label: str
    help_cpu: list[float] = field(default_factory=list)
    play_help_cpu: list[float] = field(default_factory=list)
    serve_cpu: list[float] = field(default_factory=list)
    serve_wall: list[float] = field(default_factory=list)
    client_cpu: list[float] = field(default_factory=list)
    imported: dict[str, list[str]] = field(default_factory=dict)


SERVE_IMPORTS = "import uvicorn, server.app, server.connections, cli.serve_cmd"
LIBRARIES = "fastapi, uvicorn, sqlalchemy.orm, sqlmodel, pydantic_settings, typer"  # what serve's code is written with
# What ``unoduo serve`` imports before it answers, step by step (each a fresh process, this checkout):
# where its CPU goes beyond the no-op app's FastAPI and uvicorn.
IMPORT_STEPS = (
    ("fastapi, uvicorn (what the no-op app imports)", "import fastapi, uvicorn"),
    ("+ sqlalchemy (orm), sqlmodel", "import fastapi, uvicorn, sqlalchemy.orm, sqlmodel"),
    ("+ pydantic_settings, typer (the settings' and the command line's libraries)", f"import {LIBRARIES}"),
    ("server.app (everything serve imports before it answers, on a database at the head)", SERVE_IMPORTS),
    (
        "+ alembic (only a start on a database behind the code migrates)",
        SERVE_IMPORTS + ", server.store.migrate, alembic.ddl",
    ),
)
# the floor: the no-op app + the store's libraries, + every library serve's code is written with
NOOP_STEP, STORE_STEP, LIBRARIES_STEP = IMPORT_STEPS[0][0], IMPORT_STEPS[1][0], IMPORT_STEPS[2][0]
# Where the server's own start goes, once its libraries are imported: a child imports what serve
# imports and builds the app (on a database at the head), timing by kind the work the libraries do
# for each route, model and dataclass the server defines (the outermost of them only: no time is
# counted twice). It prints one line: KINDS, the routes' count, then each kind's CPU and the total.
BREAKDOWN = (
    "import sys, time, dataclasses\n"
    f"import {LIBRARIES}\n"
    """
from fastapi.routing import APIRouter
from pydantic._internal._model_construction import ModelMetaclass
from sqlmodel.main import SQLModelMetaclass
spent = dict.fromkeys(("routes", "models", "sqlmodel", "dataclasses"), 0.0)
inside = [False]
def timed(kind, fn):
    def run(*args, **kwargs):
        if inside[0]:
            return fn(*args, **kwargs)
        inside[0] = True
        began = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[kind] += time.process_time() - began
            inside[0] = False
    return run
APIRouter.add_api_route = timed("routes", APIRouter.add_api_route)
APIRouter.add_api_websocket_route = timed("routes", APIRouter.add_api_websocket_route)
APIRouter.include_router = timed("routes", APIRouter.include_router)
ModelMetaclass.__new__ = staticmethod(timed("models", ModelMetaclass.__new__))
SQLModelMetaclass.__new__ = staticmethod(timed("sqlmodel", SQLModelMetaclass.__new__))
SQLModelMetaclass.__init__ = timed("sqlmodel", SQLModelMetaclass.__init__)
dataclasses._process_class = timed("dataclasses", dataclasses._process_class)
began = time.process_time()
import uvicorn, server.app, server.connections, cli.serve_cmd
from server.settings import Settings
app = server.app.make_app(Settings(database_url=sys.argv[1]))
total = time.process_time() - began
app.state.store.close()
def count(routes):  # FastAPI keeps an included router whole (_IncludedRouter): its routes are inside
    inner = [getattr(getattr(r, "original_router", None), "routes", None) for r in routes]
    return sum(count(i) if i is not None else type(r).__name__ in ("APIRoute", "APIWebSocketRoute")
               for r, i in zip(routes, inner))
print("KINDS", count(app.routes), *(f"{v:.4f}" for v in spent.values()), f"{total:.4f}")
"""
)
KINDS = (
    "FastAPI's routes (each parameter, body and answer made a pydantic field)",
    "pydantic models (API shapes, request bodies, settings)",
    "SQLModel classes (the tables, mapped by SQLAlchemy, and their public shapes)",
    "dataclasses (the engine's and the services' values)",
)


@dataclass
class References:
    typer_help_cpu: list[float] = field(default_factory=list)
    typer_command_help_cpu: list[float] = field(default_factory=list)
    typer_renderer_cpu: list[float] = field(default_factory=list)
    noop_cpu: list[float] = field(default_factory=list)
    noop_wall: list[float] = field(default_factory=list)
    textual_cpu: list[float] = field(default_factory=list)
    python_cpu: list[float] = field(default_factory=list)
    steps: dict[str, list[float]] = field(default_factory=dict)
    kinds: list[list[float]] = field(default_factory=list)  # per run: each of KINDS, then the total
    routes: int = 0


def run_cpu(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    """Run ``argv`` to its end: its CPU seconds (user + system, its children's included) and stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise BenchError(f"{' '.join(argv[:4])}… exited {done.returncode}:\n{done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stderr.decode(errors="replace")


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a running process has used so far (/proc, clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_cpu_stdout(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> str:
    """Run ``argv`` to its end: its last line on stdout (it is not timed)."""
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BenchError(f"{' '.join(argv[:3])}… exited {done.returncode}:\n{done.stderr}")
    return done.stdout.strip().splitlines()[-1]


def answered_200(port: int) -> bool | None:
    """``GET /api`` on the port: True for a 200, False for another answer, None if nobody listens yet."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_SECONDS) as conn:
            conn.sendall(b"GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            head = conn.recv(64)
    except (ConnectionRefusedError, ConnectionResetError):
        return None
    return head.startswith(b"HTTP/1.1 200")


def first_answer(argv: Sequence[str], port: int, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Start a server; when it first answers ``GET /api`` with 200: its CPU so far and the wall time
    since exec. It is then stopped (Ctrl-C)."""
    with tempfile.TemporaryFile() as log:
        began = time.monotonic()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    raise BenchError(f"the server exited at start:\n{log.read().decode(errors='replace')[-3000:]}")
                if time.monotonic() - began > ANSWER_SECONDS:
                    raise BenchError(f"the server did not answer in {ANSWER_SECONDS:.0f} s")
                answer = answered_200(port)
                if answer is None:
                    time.sleep(0.005)
                    continue
                wall = time.monotonic() - began
                cpu = process_cpu(process.pid)
                if not answer:
                    raise BenchError("GET /api did not answer 200")
                return cpu, wall
        finally:
            process.send_signal(2)  # SIGINT: the way an operator stops it
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def serve_argv(db_url: str, port: int) -> list[str]:
    return [sys.executable, "-c", UNODUO, "serve", "--host", "127.0.0.1", "--port", str(port), "--db", db_url]


def imported(checkout: Checkout, code: str) -> list[str]:
    """The heavy packages a child process of ``checkout`` has imported when ``code`` ends."""
    probe = MODULES_AT_EXIT.format(heavy=HEAVY) + code
    _cpu, err = run_cpu([sys.executable, "-c", probe], checkout.path, checkout.env())
    said = [line for line in err.splitlines() if line.startswith("IMPORTED")]
    return said[-1].split()[1:] if said else []


PLAY_HELP = (
    "import sys; sys.argv = ['unoduo', 'play', '--help']\ntry:\n    " + UNODUO + "\nexcept SystemExit:\n    pass\n"
)
PLAY_CLIENT = "import cli.play_cmd, tui_client.apps.play_app"
HELP_ONLY = "import sys; sys.argv = ['unoduo', '--help']\ntry:\n    " + UNODUO + "\nexcept SystemExit:\n    pass\n"


def measure(checkouts: Sequence[Checkout], runs: int, log: Callable[[str], None]) -> tuple[list[Figures], References]:
    py = sys.executable
    figures = [Figures(c.label) for c in checkouts]
    refs = References()
    here = checkouts[-1]
    with tempfile.TemporaryDirectory(prefix="unoduo-bench-startup-") as tmp:
        dbs = {c.label: f"sqlite:///{tmp}/{i}.sqlite3" for i, c in enumerate(checkouts)}
        log("warming each checkout's bytecode cache and migrating its database (unmeasured)…")
        for c in checkouts:
            env = c.env()
            run_cpu([py, "-c", UNODUO, "--help"], c.path, env)
            run_cpu([py, "-c", PLAY_CLIENT], c.path, env)
            port = free_port()
            first_answer(serve_argv(dbs[c.label], port), port, c.path, env)
        run_cpu([py, "-c", TYPER_ONLY, "one", "--help"], here.path, here.env())
        run_cpu([py, "-c", "import textual.app"], here.path, here.env())
        port = free_port()
        first_answer([py, "-c", NOOP_SERVER, str(port)], port, here.path, here.env())
        for c, f in zip(checkouts, figures, strict=True):
            f.imported = {
                "unoduo --help": imported(c, HELP_ONLY),
                "unoduo play --help": imported(c, PLAY_HELP),
                "unoduo play (cli.play_cmd, tui_client.apps.play_app)": imported(c, PLAY_CLIENT),
            }
        for run in range(1, runs + 1):
            log(f"run {run} of {runs}…")
            env = here.env()
            refs.python_cpu.append(run_cpu([py, "-c", "pass"], here.path, env)[0])
            refs.typer_help_cpu.append(run_cpu([py, "-c", TYPER_ONLY, "--help"], here.path, env)[0])
            refs.typer_command_help_cpu.append(run_cpu([py, "-c", TYPER_ONLY, "one", "--help"], here.path, env)[0])
            refs.typer_renderer_cpu.append(run_cpu([py, "-c", "import typer.rich_utils"], here.path, env)[0])
            refs.textual_cpu.append(run_cpu([py, "-c", "import textual.app"], here.path, env)[0])
            for what, code in IMPORT_STEPS:
                refs.steps.setdefault(what, []).append(run_cpu([py, "-c", code], here.path, env)[0])
            said = run_cpu_stdout([py, "-c", BREAKDOWN, dbs[here.label]], here.path, env).split()
            refs.routes = int(said[1])
            refs.kinds.append([float(v) for v in said[2:]])
            port = free_port()
            cpu, wall = first_answer([py, "-c", NOOP_SERVER, str(port)], port, here.path, env)
            refs.noop_cpu.append(cpu)
            refs.noop_wall.append(wall)
            for c, f in zip(checkouts, figures, strict=True):
                env = c.env()
                f.help_cpu.append(run_cpu([py, "-c", UNODUO, "--help"], c.path, env)[0])
                f.play_help_cpu.append(run_cpu([py, "-c", UNODUO, "play", "--help"], c.path, env)[0])
                f.client_cpu.append(run_cpu([py, "-c", "import tui_client.apps.play_app"], c.path, env)[0])
                port = free_port()
                cpu, wall = first_answer(serve_argv(dbs[c.label], port), port, c.path, env)
                f.serve_cpu.append(cpu)
                f.serve_wall.append(wall)
    return figures, refs


def _m(values: list[float]) -> float:
    return statistics.median(values)


def _s(values: list[float]) -> str:
    return f"{_m(values):.2f} s"


def _fmt(seconds: float) -> str:
    return f"{seconds:.2f} s"


def kind_medians(refs: References) -> list[float]:
    """The median of each of KINDS over the runs, then of the total."""
    return [statistics.median(run[i] for run in refs.kinds) for i in range(len(KINDS) + 1)]


def breakdown_lines(refs: References) -> list[str]:
    """Where the server's own start goes (BREAKDOWN), by kind."""
    *kinds, total = kind_medians(refs)
    rows = [f"| {what} | {_fmt(cpu)} | {cpu / total:.0%} |" for what, cpu in zip(KINDS, kinds, strict=True)]
    rest = total - sum(kinds)
    return [
        f"Where the server's own start goes, its libraries imported ({LIBRARIES}): importing what serve imports and "
        f"building the app, {_fmt(total)} of CPU (median; a process instrumented by kind, the outermost only):",
        "",
        "| work | CPU | share |",
        "| --- | --- | --- |",
        *rows,
        f"| the rest: the modules' own code, the engine, other libraries (ICU, argon2, …), the store's opening | "
        f"{_fmt(rest)} | {rest / total:.0%} |",
    ]


HELP_TARGET = 0.2  # s of CPU for unoduo --help (issue 34)
SERVE_TARGET = 2.0  # × the no-op FastAPI app's CPU to the first answer


def lines(figures: Sequence[Figures], refs: References, runs: int) -> list[str]:
    labels = " | ".join(f.label for f in figures)
    head = f"| | {labels} | reference | ratio ({figures[-1].label}) |"
    rule = "| --- |" + " --- |" * (len(figures) + 2)
    serve_ratio = _m(figures[-1].serve_cpu) / _m(refs.noop_cpu)
    help_fig = _m(figures[-1].help_cpu)
    noop = _m(refs.noop_cpu)
    floor_ratio = (noop + _m(refs.steps[STORE_STEP]) - _m(refs.steps[NOOP_STEP])) / noop
    libraries = _m(refs.steps[LIBRARIES_STEP]) - _m(refs.steps[NOOP_STEP])
    libraries_ratio = (noop + libraries) / noop
    api_work = sum(kind_medians(refs)[:3])  # routes, pydantic models, SQLModel classes
    api_ratio = (noop + libraries + api_work) / noop

    def row(what: str, values: Callable[[Figures], list[float]], ref: list[float] | None, ref_name: str) -> str:
        cells = " | ".join(_s(values(f)) for f in figures)
        if ref is None:
            return f"| {what} | {cells} | {ref_name} | |"
        return f"| {what} | {cells} | {_s(ref)} ({ref_name}) | {_m(values(figures[-1])) / _m(ref):.2f}× |"

    body = [
        f"CPU (user + system) of a fresh process, median of {runs} runs; python -c pass costs {_s(refs.python_cpu)}.",
        "",
        head,
        rule,
        row("`unoduo --help`, CPU", lambda f: f.help_cpu, refs.typer_help_cpu, "a one-command Typer app's --help"),
        row(
            "`unoduo play --help`, CPU",
            lambda f: f.play_help_cpu,
            refs.typer_command_help_cpu,
            "its command's --help",
        ),
        row("`unoduo serve` to its first 200, CPU", lambda f: f.serve_cpu, refs.noop_cpu, "no-op FastAPI app"),
        row("`unoduo serve` to its first 200, wall", lambda f: f.serve_wall, refs.noop_wall, "no-op FastAPI app"),
        row("import the terminal client, CPU", lambda f: f.client_cpu, refs.textual_cpu, "import textual.app"),
        "",
        f"What `unoduo serve` imports before it answers ({figures[-1].label}; CPU of a process that only imports):",
        "",
        "| imports | CPU |",
        "| --- | --- |",
        *(f"| {what} | {_s(values)} |" for what, values in refs.steps.items()),
        "",
        *breakdown_lines(refs),
        "",
        "Heavy packages imported (of " + ", ".join(HEAVY) + "):",
        "",
    ]
    for f in figures:
        for what, names in f.imported.items():
            body.append(f"- {f.label}, {what}: {', '.join(names) or 'none'}")
    body += [
        "",
        f"`unoduo --help`: {help_fig:.2f} s of CPU (target ≤ {HELP_TARGET} s: "
        f"{'met' if help_fig <= HELP_TARGET else 'NOT met'}; a one-command Typer app's own --help, the floor, "
        f"{_s(refs.typer_help_cpu)}). `unoduo serve` to its first answer: {serve_ratio:.2f}× the no-op FastAPI "
        f"app's CPU (target ≤ {SERVE_TARGET:g}×: {'met' if serve_ratio <= SERVE_TARGET else 'NOT met'}). "
        f"Its floor, the no-op app plus importing the libraries the store is written with (sqlalchemy's ORM and "
        f"SQLModel: {_m(refs.steps[STORE_STEP]) - _m(refs.steps[NOOP_STEP]):.2f} s), is already "
        f"{floor_ratio:.2f}× the no-op app, before any of the server's own code; with pydantic-settings and Typer "
        f"too (every library serve's code is written with) {libraries_ratio:.2f}×; and with the work those "
        f"libraries do for the server's {refs.routes} routes, its models and its tables ({_fmt(api_work)}: "
        f"what a minimal app of the same routes and models would cost), {api_ratio:.2f}×.",
        "",
        f"Typer's help renderer alone (`import typer.rich_utils`: rich's console, tables, panels, Markdown and "
        f"traceback, in either markup mode) costs {_s(refs.typer_renderer_cpu)}: no help that Typer draws with rich "
        "costs less.",
    ]
    return body


def run_and_report(against: Path | None, runs: int, write_docs: bool, command: str) -> list[Figures]:
    console = Console()
    with tempfile.TemporaryDirectory(prefix="unoduo-startup-pyc-") as caches:
        checkouts = [Checkout("this checkout", ROOT, Path(caches) / "here")]
        if against is not None:  # this checkout last: the ratios are its
            checkouts = [
                Checkout("before", against.resolve(), Path(caches) / "against"),
                Checkout("after", ROOT, Path(caches) / "here"),
            ]
        figures, refs = measure(checkouts, runs, console.log)
    body = lines(figures, refs, runs)
    for line in body:
        console.print(line, highlight=False, soft_wrap=True)
    if write_docs:
        facts = [
            f"CPU: {cpu_model()}; {os.cpu_count()} cores; Python {sys.version.split()[0]}",
            "a fresh process per figure, each with a warmed bytecode cache of its own",
        ]
        if against is not None:
            facts.append(
                f"before: commit {_head(against)} (checked out at `{against}`), its runs interleaved with this checkout's"
            )
        facts.append(
            f"load average at the end: {os.getloadavg()[0]:.1f} (the machine is shared: CPU figures over wall)"
        )
        write_docs_section(BENCHMARKS_MD, SECTION, "\n".join([*section_head(SECTION, command, facts), *body]) + "\n")
    return figures


def _head(path: Path) -> str:
    done = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"
