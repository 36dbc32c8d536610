"""Who is who in ``unoduo web``: one client config directory per browser (docs/TUI.md "In a browser").

A browser is known by a random id (256 bits, ``secrets.token_urlsafe``) kept in an HttpOnly
cookie. The id selects a config directory under this machine's state directory,
``web-browsers/<sha256(id)>``: the token the browser's player signed in with, and their match
receipts, live there and nowhere else, so every browser signs in as itself and the host's own
config directory is never read. The directory's name is a hash: the ids (the cookies) are not
on disk. Bounded: at most ``max_browsers`` directories, and one unused for ``max_age`` seconds is
removed (its browser then signs in again; ``cli.web_server`` signs its token out first).
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import time
from collections.abc import Collection
from pathlib import Path

import platformdirs

from tui_client.connection.config import APP_NAME, DIR_MODE

ID_BYTES = 32  # 256 bits of randomness per browser
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{43}")  # what secrets.token_urlsafe(32) gives
DEFAULT_MAX_BROWSERS = 1_000
DEFAULT_MAX_AGE = 90 * 24 * 3600  # a browser unused for 90 days signs in again
DEFAULT_MAX_SESSIONS = 32  # clients running at once, in all (each is a Python process: ~60 MB)
DEFAULT_MAX_PER_BROWSER = 4  # clients running at once per browser (its tabs)


def default_browsers_dir() -> Path:
    """``platformdirs.user_state_dir("unoduo")/web-browsers`` (e.g. ``~/.local/state/unoduo/web-browsers``)."""
    return Path(platformdirs.user_state_dir(APP_NAME)) / "web-browsers"


def new_browser_id() -> str:
    return secrets.token_urlsafe(ID_BYTES)


def valid_browser_id(value: str | None) -> str | None:
    """``value`` if it is an id this server could have made, else None (a forged or mangled cookie
    is treated as no cookie: the browser gets a new id)."""
    return value if value is not None and ID_PATTERN.fullmatch(value) else None


def browser_key(browser_id: str) -> str:
    """The directory name of a browser: the id's SHA-256, hex."""
    return hashlib.sha256(browser_id.encode("ascii")).hexdigest()


class BrowserDirs:
    """The per-browser config directories under ``root``, at most ``max_browsers`` of them."""

    def __init__(self, root: Path, max_browsers: int = DEFAULT_MAX_BROWSERS, max_age: float = DEFAULT_MAX_AGE) -> None:
        self.root = root
        self.max_browsers = max_browsers
        self.max_age = max_age

    def path(self, key: str) -> Path:
        return self.root / key

    def known(self) -> list[Path]:
        """The browser directories there are, least recently used first."""
        try:
            found = [p for p in self.root.iterdir() if p.is_dir() and re.fullmatch(r"[0-9a-f]{64}", p.name)]
        except FileNotFoundError:
            return []
        return sorted(found, key=_used_at)

    def open(self, key: str) -> Path:
        """The directory of the browser ``key``, made if new (mode 0700), marked as used now."""
        path = self.path(key)
        self.root.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        path.mkdir(mode=DIR_MODE, exist_ok=True)
        os.utime(path)
        return path

    def expired(self, busy: Collection[str] = (), room_for: int = 0) -> list[Path]:
        """The directories to remove: those unused for ``max_age``, then the least recently used
        until ``room_for`` more fit under ``max_browsers`` — never one in ``busy`` (browsers with
        a client running)."""
        now = time.time()
        known = self.known()
        free = [p for p in known if p.name not in busy]
        old = [p for p in free if now - _used_at(p) > self.max_age]
        rest = [p for p in free if p not in old]
        over = len(known) - len(old) + room_for - self.max_browsers
        return old + rest[: max(over, 0)]

    @staticmethod
    def remove(paths: Collection[Path]) -> None:
        for path in paths:
            shutil.rmtree(path, ignore_errors=True)


def _used_at(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0
