"""Database fixtures for every test that touches the store: each runs on SQLite (a temporary
file) and on PostgreSQL (a schema of its own).

PostgreSQL comes from UNODUO_TEST_POSTGRES_URL (default: postgres@127.0.0.1:5432/test). If it
cannot be reached, the PostgreSQL half of the suite fails; it is never skipped.

Migrated databases are made fast: SQLite copies a file migrated once per worker; PostgreSQL
runs, in a new schema, the SQL that ``alembic upgrade head --sql`` writes (the migrations'
own DDL), and a test's schema is renamed, emptied and reused by a later test of the same worker
when the test left its shape as it was (tests/pg_schemas.py). The migration tests themselves run
Alembic for real on empty databases, fresh ones each time.

Three tiers (``.ci/run`` runs them all): ``pytest -m "not e2e and not slow"`` is the fast tier, in
one process (engine, store, services and routes through TestClient, the terminal client under
Pilot); ``pytest -m slow`` the long jobs: the sweeps (a property test's thousands of examples, the
self-play statistics, the sample replays' search; each marked ``slow`` where it is written) and the
PostgreSQL repeat of every test outside the store's own that also runs on SQLite (marked here: the
store's tests, which are what differs between the two, run both in the fast tier);
``pytest -m e2e`` is the end-to-end tier, the tests that run real processes. A test is end-to-end
when its module starts ``unoduo serve`` through the shared harness (it imports
``tests.cli.serving``) or drives the benchmark harness (it imports from ``bench``, other than
``bench.progress``, the waiting on progress that any test may use), or when it
says so with ``pytestmark = pytest.mark.e2e`` (a real terminal, a browser). The rules are applied
here, at collection, so a new test that starts a server is in the right tier without a mark.

Hypothesis runs under the profile ``UNODUO_HYPOTHESIS_PROFILE`` names (tests/profiles.py): ``ci``
(``.ci/run``: every count as written) or ``dev`` (the default: a fifth of them).
"""

from __future__ import annotations

import functools
import gc
import io
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import psycopg
import pytest
from alembic import command
from hypothesis import settings as hypothesis_settings

from server.db import make_engine
from server.settings import Settings
from server.store.event_store import EventStore
from server.store.migrate import alembic_config, upgrade
from tests.pg_schemas import MigratedSchemas
from tests.profiles import chosen
from tests.server.store.helpers import PG_URL, TickClock, create_pg_schema, drop_pg_schemas, pg_conninfo, pg_schema_url

DATABASES = ["sqlite", "postgres"]
STORE_TESTS = Path(__file__).parent / "server" / "store"


E2E_HARNESSES = ("tests.cli.serving", "bench")  # a module using either runs real processes
NOT_A_HARNESS = "bench.progress"  # waiting on progress: any tier may use it


hypothesis_settings.load_profile(chosen())  # tests/profiles.py: dev, or ci as .ci/run sets


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: seconds or minutes of one job (a long sweep, a search); pytest -m 'not e2e and not slow' is the fast tier, CI runs them all",
    )
    config.addinivalue_line(
        "markers",
        "e2e: end to end, real processes (a server, the bench harness, a terminal); pytest -m 'not e2e' skips them",
    )


def _module_name(value: object) -> str | None:
    name = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
    return name if isinstance(name, str) else None


def _is_harness(name: str) -> bool:
    return name != NOT_A_HARNESS and any(name == h or name.startswith(h + ".") for h in E2E_HARNESSES)


@functools.cache
def uses_harness(module_name: str) -> bool:
    """Whether the module ``module_name`` uses the real-server or the bench harness, itself or
    through a helper module of the tests it takes something from (``tests.reliability.attacks``
    starts its servers with ``tests.cli.serving``)."""
    module = sys.modules.get(module_name)
    if module is None or module_name in _LOOKING:
        return False
    _LOOKING.add(module_name)  # two helpers that take from each other: each looked into once
    try:
        for value in list(vars(module).values()):
            name = _module_name(value)
            if name is None or name == module_name:
                continue
            if _is_harness(name) or (name.startswith("tests.") and uses_harness(name)):
                return True
        return False
    finally:
        _LOOKING.discard(module_name)


_LOOKING: set[str] = set()


def runs_real_processes(module: ModuleType | None) -> bool:
    """Whether a test module uses the real-server harness or the bench harness (see the docstring)."""
    return module is not None and uses_harness(module.__name__)


def repeats_on_postgres(item: pytest.Item, ids: set[str]) -> bool:
    """Whether ``item`` is the PostgreSQL run of a test outside the store's own tests that also runs
    on SQLite (its twin's id has ``sqlite`` in place of ``postgres``): the slow tier's. The store's
    tests, and a test that runs on PostgreSQL only, stay where they are."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or callspec.params.get("db_kind") != "postgres":
        return False
    if STORE_TESTS in Path(str(item.fspath)).parents:
        return False
    head, _, params = item.nodeid.partition("[")
    return f"{head}[{params.replace('postgres', 'sqlite', 1)}" in ids


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the end-to-end tier and the PostgreSQL repeats of the slow tier (see the docstring); in the
    store tests, an exception that kills a thread fails the test (it is not just a warning)."""
    strict = pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
    e2e = pytest.mark.e2e
    judged: dict[str, bool] = {}
    ids = {item.nodeid for item in items}
    for item in items:
        if STORE_TESTS in Path(str(item.fspath)).parents:
            item.add_marker(strict)
        module = getattr(item, "module", None)
        name = module.__name__ if module is not None else ""
        if name not in judged:
            judged[name] = runs_real_processes(module)
        if judged[name] and item.get_closest_marker("e2e") is None:
            item.add_marker(e2e)
        if repeats_on_postgres(item, ids):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once the tests are collected, keep what collection built (the modules of every test, the
    items) out of the collector's sight: it lives to the end of the run anyway.

    Speed: the collector's full passes walked all of it again and again while the tests ran (and
    five times more at the session's end); frozen, the collector's own CPU over 134 tests of the
    fast tier fell from 6.2-6.4 to 4.4 s (two pairs; docs/BENCHMARKS.md, "Test tiers"). A test
    that counts what is frozen starts unfrozen (tests/cli/test_serve_gc.py, ``unfrozen``).
    """
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def postgres_reachable() -> None:
    try:
        psycopg.connect(pg_conninfo(), connect_timeout=5).close()
    except Exception as exc:  # noqa: BLE001 - any failure to connect fails the run loudly
        pytest.fail(f"PostgreSQL is not reachable at {PG_URL} ({exc}); the store tests need it", pytrace=False)


@pytest.fixture(scope="session")
def pg_schemas(postgres_reachable: None) -> Iterator[list[str]]:
    """Schemas made by this worker; dropped together when the session ends."""
    made: list[str] = []
    yield made
    drop_pg_schemas(made)


@pytest.fixture(scope="session")
def pg_migration_sql(postgres_reachable: None) -> str:
    buffer = io.StringIO()
    cfg = alembic_config()
    cfg.output_buffer = buffer
    cfg.set_main_option("sqlalchemy.url", PG_URL.replace("%", "%%"))
    command.upgrade(cfg, "head", sql=True)
    return buffer.getvalue()


@pytest.fixture(scope="session")
def pg_migrated_schemas(pg_migration_sql: str) -> Iterator[MigratedSchemas]:
    """This worker's migrated schemas, emptied between tests (tests/pg_schemas.py)."""
    migrated = MigratedSchemas(pg_migration_sql)
    yield migrated
    migrated.close()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "store.sqlite3"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(params=DATABASES)
def db_kind(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


@pytest.fixture
def db_url(db_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """An empty database: a fresh SQLite file, or a fresh PostgreSQL schema."""
    if db_kind == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    schemas: list[str] = request.getfixturevalue("pg_schemas")
    schema = create_pg_schema()
    schemas.append(schema)
    return pg_schema_url(schema)


@pytest.fixture
def url(db_kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A database at the latest revision."""
    if db_kind == "sqlite":
        path = tmp_path / "store.sqlite3"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    migrated: MigratedSchemas = request.getfixturevalue("pg_migrated_schemas")
    schema = migrated.take()
    request.addfinalizer(lambda: migrated.give_back(schema))
    return pg_schema_url(schema)


@pytest.fixture
def clock() -> TickClock:
    return TickClock()


@pytest.fixture
def store(url: str, clock: TickClock) -> Iterator[EventStore]:
    s = EventStore(make_engine(url, Settings()), clock=clock)
    try:
        yield s
    finally:
        s.close()
