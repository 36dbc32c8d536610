"""``unoduo serve --web-client PORT``: ``unoduo web`` started beside the server, stopped with it.

The club runs one command; players open ``http://<this machine>:PORT/`` and each browser signs in
as itself (docs/TUI.md "In a browser"). The play client is a process of its own (aiohttp,
textual-serve, one client process per open tab), never inside the API server's event loop; it
talks to the server over loopback. It listens where the server does (``--host``): loopback by
default, so ``unoduo serve --web-client 8001`` alone opens nothing to the network; with
``--host 0.0.0.0`` (README) players' own devices reach both.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SECONDS = 10.0  # after SIGTERM, the web client still running this much later is killed


def local_server_url(host: str, port: int) -> str:
    """The server's address as a process on this machine reaches it: loopback when it listens on
    every address, else the address it listens on."""
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def web_client_argv(server_url: str, host: str, web_port: int) -> list[str]:
    """``unoduo web`` for ``server_url``, listening on ``host:web_port`` (the server's own ``--host``)."""
    return [sys.executable, "-m", "cli.main", "web", "--server", server_url, "--host", host, "--port", str(web_port)]


@contextmanager
def web_client_beside(host: str, port: int, web_port: int | None) -> Iterator[subprocess.Popen[bytes] | None]:
    """``unoduo web`` for the server on ``host:port``, listening on ``web_port`` (None: nothing
    started), for as long as the block runs; its output goes where the server's goes."""
    if web_port is None:
        yield None
        return
    child = subprocess.Popen(web_client_argv(local_server_url(host, port), host, web_port))
    try:
        yield child
    finally:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
