"""``unoduo serve --workers N`` (issue 24, point 2): N server processes on one port, on PostgreSQL.

Which worker took a connection is read from ``/proc``: the server's end of the connection is a
socket (an inode in ``/proc/net/tcp``) that one worker holds among its descriptors. Both workers
of ``--workers 2`` take connections on the one port; each also answers on its private peer port,
where the per-address cap does not apply, but only requests carrying the servers' key. Ctrl-C stops them all (no process left behind); a
worker killed with ``kill -9`` is replaced and the port keeps answering. A match played with a
new connection per request reaches both workers, and what reaches the one that does not own it
is forwarded to the owner's peer port. SQLite is refused.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from bench.progress import STALL_SECONDS, wait_for
from cli.main import app
from engine.fairness.verify import verify_replay
from server.api.forwarding import PEER_KEY
from server.settings import Settings
from server.store.event_store import EventStore
from server.store.secrets import peer_key
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok, play_to_end, register

STARTED = re.compile(r"^worker (\d+) started: pid (\d+)$", re.MULTILINE)
PEER = re.compile(r"^worker (\d+) \(pid (\d+)\): other servers reach it at (http://\S+)$", re.MULTILINE)
REQUEST = b"GET /api HTTP/1.1\r\nHost: x\r\n\r\n"


@dataclass
class Served:
    base: str
    port: int
    process: subprocess.Popen[str]
    log: Path

    def output(self) -> str:
        return self.log.read_text()

    def stop(self) -> None:
        """Ctrl-C; it must exit 0 (within the harness's wait), its output shown if it does not."""
        try:
            stop(self.process)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nthe server's output:\n{self.output()}") from None

    def started(self) -> dict[int, int]:
        """Each worker's number → the pid of its latest process, as the supervisor printed them."""
        return {int(n): int(pid) for n, pid in STARTED.findall(self.output())}

    def peers(self) -> dict[int, str]:
        """Each worker process's pid → its peer URL, as the workers printed them."""
        return {int(pid): url for _n, pid, url in PEER.findall(self.output())}


@contextlib.contextmanager
def workers(url: str, tmp_path: Path, count: int = 2, **settings: str) -> Iterator[Served]:
    """``unoduo serve --workers COUNT`` on the database ``url``, up, every worker serving."""
    port = free_port()
    log = tmp_path / "serve.log"
    env = serve_env(UNODUO_DATABASE_URL=url, **settings)
    process = serve("--port", str(port), "--workers", str(count), env=env, log=log)
    served = Served(f"http://127.0.0.1:{port}", port, process, log)
    try:
        try:
            wait_until_up(served.base, process)
            wait_for(lambda: len(served.peers()) == count, "every worker started serving")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nthe server's output:\n{served.output()}") from None
        yield served
    finally:
        if process.poll() is None:
            served.stop()


def alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def server_side_inode(server_port: int, client_port: int) -> str | None:
    """The inode of the server's end of the connection from ``client_port`` to ``server_port``."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            next(rows)
            for row in rows:
                fields = row.split()
                local, remote, inode = fields[1], fields[2], fields[9]
                if int(local.rsplit(":", 1)[1], 16) == server_port and int(remote.rsplit(":", 1)[1], 16) == client_port:
                    return inode
    return None


def holder(inode: str, pids: list[int]) -> int | None:
    """Which of ``pids`` holds the socket ``inode`` among its descriptors."""
    target = f"socket:[{inode}]"
    for pid in pids:
        with contextlib.suppress(OSError):  # a process that just ended
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                        return pid
    return None


def answered_by(port: int, pids: list[int], key: str | None = None) -> int | None:
    """Ask GET /api on a new connection to ``port`` (with the servers' ``key``, as a peer port wants
    it): which of ``pids`` accepted it (None: none of them)."""
    with socket.create_connection(("127.0.0.1", port), timeout=STALL_SECONDS) as sock:
        sock.sendall(REQUEST if key is None else REQUEST[:-2] + f"{PEER_KEY}: {key}\r\n\r\n".encode())
        head = sock.recv(4096)
        assert head.startswith(b"HTTP/1.1 200"), head
        inode = server_side_inode(port, sock.getsockname()[1])
        return None if inode is None else holder(inode, pids)


def servers_key(url: str) -> str:
    """The key the servers of the database at ``url`` show each other (server.store.secrets.peer_key)."""
    with EventStore.open(url, Settings(database_url=url)) as store:
        key = peer_key(store)
    assert key is not None
    return key


def answering(port: int, pids: list[int]) -> set[int]:
    """Ask until each of ``pids`` has taken a connection on ``port``: the pids seen."""
    seen: set[int] = set()

    def every_one() -> bool:
        seen.add(answered_by(port, pids) or 0)
        return set(pids) <= seen

    wait_for(every_one, f"each of {pids} took a connection")
    return seen - {0}


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_two_workers_serve_one_port_and_ctrl_c_stops_them_all(url: str, tmp_path: Path) -> None:
    with workers(url, tmp_path) as served:
        pids = sorted(served.started().values())
        assert len(pids) == 2 and all(alive(p) for p in pids)
        output = served.output()
        assert output.count("director token (shown only now") == 1  # made once, by the supervisor
        assert f"unoduo server on {served.base}: API docs at {served.base}/docs" in output
        assert f"2 workers share port {served.port}" in output
        assert answering(served.port, pids) == set(pids)

        # Each worker also answers on its own peer port, which is nobody else's, and there only
        # requests carrying the servers' key (issue 32): a client's is 404 and its connection closed.
        peers = served.peers()
        assert sorted(peers) == pids and len(set(peers.values())) == 2
        key = servers_key(url)
        for pid, peer in peers.items():
            assert peer.startswith("http://127.0.0.1:")
            refused = httpx.get(f"{peer}/api", timeout=STALL_SECONDS)
            assert refused.status_code == 404 and refused.headers["connection"] == "close", refused.text
            assert httpx.get(f"{peer}/api", headers={PEER_KEY: key}, timeout=STALL_SECONDS).json()["name"] == "unoduo"
            assert answered_by(int(peer.rsplit(":", 1)[1]), pids, key) == pid

        served.stop()  # Ctrl-C: exit 0 once both have stopped
        output = served.output()
        for pid in pids:
            assert f"Finished server process [{pid}]" in output  # each ran its normal shutdown
            assert not alive(pid)
        assert "Traceback" not in output, output


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_a_killed_worker_is_replaced_and_the_port_keeps_answering(url: str, tmp_path: Path) -> None:
    with workers(url, tmp_path) as served:
        first = served.started()
        victim, survivor = first[1], first[2]
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: not alive(victim), "the killed worker is gone")
        assert httpx.get(f"{served.base}/api", timeout=STALL_SECONDS).status_code == 200  # the survivor answers
        wait_for(lambda: served.started()[1] != victim, "the supervisor started a new worker 1")
        newcomer = served.started()[1]
        assert f"worker 1 (pid {victim}) was killed by SIGKILL; a new one starts in 1 s" in served.output()
        wait_for(lambda: newcomer in served.peers(), "the new worker serves")
        assert answering(served.port, [survivor, newcomer]) == {survivor, newcomer}
        assert served.started()[2] == survivor
        served.stop()
        for pid in (victim, survivor, newcomer):
            assert not alive(pid)
        assert "Traceback" not in served.output()


def test_workers_on_sqlite_are_refused_before_anything_is_made(tmp_path: Path) -> None:
    database = tmp_path / "never.sqlite3"
    runner = CliRunner()
    result = runner.invoke(app, ["serve", "--port", str(free_port()), "--workers", "2", "--db", str(database)])
    assert result.exit_code == 2, result.output
    assert "--workers 2 needs PostgreSQL: a SQLite database is served by one process" in result.stderr
    assert "token" not in result.stdout
    assert not database.exists()


def test_workers_refuse_one_peer_url_for_all() -> None:
    runner = CliRunner()
    never = "postgresql+psycopg://nobody@127.0.0.1:1/never"  # not reached: the settings are refused first
    env = {"UNODUO_PEER_URL": "http://10.0.0.1:8000", "UNODUO_DATABASE_URL": never}
    result = runner.invoke(app, ["serve", "--port", str(free_port()), "--workers", "2"], env=env)
    assert result.exit_code == 2, result.output
    assert "UNODUO_PEER_URL names one process" in result.stderr


def test_serve_help_documents_workers() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "--workers" in result.stdout and "PostgreSQL only" in result.stdout


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_the_peer_port_is_not_capped_per_address(url: str, tmp_path: Path) -> None:
    with workers(url, tmp_path, UNODUO_CONNECTIONS_PER_ADDRESS="2") as served, contextlib.ExitStack() as held:
        peer = next(iter(served.peers().values()))
        peer_port = int(peer.rsplit(":", 1)[1])
        keyed = REQUEST[:-2] + f"{PEER_KEY}: {servers_key(url)}\r\n\r\n".encode()  # as other servers ask
        for _ in range(5):  # five at once from one address, to one worker, over a cap of two
            sock = held.enter_context(socket.create_connection(("127.0.0.1", peer_port), timeout=STALL_SECONDS))
            sock.sendall(keyed)
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        # On the public port the cap holds: each worker takes at most two, so of five one is refused.
        heads = []
        for _ in range(5):
            sock = held.enter_context(socket.create_connection(("127.0.0.1", served.port), timeout=STALL_SECONDS))
            sock.sendall(REQUEST)
            heads.append(sock.recv(4096))
        assert any(h.startswith(b"HTTP/1.1 503") for h in heads), heads
        assert all(h.startswith((b"HTTP/1.1 200", b"HTTP/1.1 503")) for h in heads), heads


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_a_match_played_through_the_shared_port_is_forwarded_to_its_owner(url: str, tmp_path: Path) -> None:
    with workers(url, tmp_path) as served:
        one_connection_a_request = httpx.Limits(max_keepalive_connections=0)
        with httpx.Client(base_url=served.base, timeout=STALL_SECONDS, limits=one_connection_a_request) as client:
            _player, headers = register(client, "zoe")
            match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
            ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "zoe"}))
            final, commands = play_to_end(client, match_id, headers, 0, random.Random(24))  # every answer 200
            assert final["phase"] == "match_over"
            report = verify_replay(client.get(f"/api/matches/{match_id}/replay").text)
            assert report.ok, report.failure
        served.stop()
        logged = len(re.findall(rf'"POST /api/matches/{match_id}/commands HTTP/1.1" 200', served.output()))
        # A command that reached the worker not owning the match is logged there and by the owner.
        assert logged > len(commands), (logged, len(commands))
        assert "Traceback" not in served.output()
