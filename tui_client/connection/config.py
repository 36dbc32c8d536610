"""What ``unoduo play`` keeps between runs, in the user's config directory (docs/TUI.md "Playing").

One JSON file per server URL under ``servers/``: the player this client registered there (id,
name) and its token, which the server shows only once. One JSON file per server under
``receipts/``: per match, the last ``seq`` and ``hash`` the client received and checked
(docs/FAIRNESS.md "Receipts"). Files are written whole (a temporary file, then a rename) with
mode 0600, in directories of mode 0700: a token is a password.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

APP_NAME = "unoduo"
FILE_MODE = 0o600
DIR_MODE = 0o700


def default_config_dir() -> Path:
    """``platformdirs.user_config_dir("unoduo")`` (e.g. ``~/.config/unoduo`` on Linux)."""
    return Path(platformdirs.user_config_dir(APP_NAME))


def normalise_server(url: str) -> str:
    """The server URL as the client uses it: no trailing slash, ``http://`` if no scheme is given."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = f"http://{url}"
    return url


def server_key(url: str) -> str:
    """A file name for a server URL: its readable part, and a short hash that keeps two URLs apart."""
    url = normalise_server(url)
    readable = re.sub(r"[^A-Za-z0-9.-]+", "_", url.split("://", 1)[-1]).strip("_")[:60] or "server"
    return f"{readable}-{hashlib.sha256(url.encode()).hexdigest()[:10]}"


@dataclass(frozen=True)
class Credentials:
    """Who this client is on one server."""

    server: str
    player_id: str
    name: str
    token: str


@dataclass(frozen=True)
class Receipt:
    """The newest event the client received of a match and checked: ``seq`` and ``hash``."""

    match: str
    seq: int
    hash: str
    at: str = ""
    ok: bool = True
    problem: str | None = None


def write_private(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` whole, mode 0600 (never readable by others, even briefly)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), FILE_MODE)
            json.dump(data, handle, indent=2, sort_keys=True, ensure_ascii=False)
            handle.write("\n")
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class ConfigStore:
    """The client's files for one server, under ``config_dir`` (default: :func:`default_config_dir`)."""

    def __init__(self, server: str, config_dir: Path | str | None = None) -> None:
        self.server = normalise_server(server)
        self.dir = Path(config_dir) if config_dir is not None else default_config_dir()
        key = server_key(self.server)
        self.credentials_path = self.dir / "servers" / f"{key}.json"
        self.receipts_path = self.dir / "receipts" / f"{key}.json"
        self._receipts: dict[str, dict[str, Any]] | None = None

    # ------------------------------------------------------------ credentials

    def load_credentials(self) -> Credentials | None:
        data = _read(self.credentials_path)
        if data is None:
            return None
        player, token = data.get("player"), data.get("token")
        if not isinstance(player, dict) or not isinstance(token, str) or not token:
            return None
        player_id, name = player.get("id"), player.get("name")
        if not isinstance(player_id, str) or not isinstance(name, str):
            return None
        return Credentials(self.server, player_id, name, token)

    def save_credentials(self, credentials: Credentials) -> None:
        write_private(
            self.credentials_path,
            {
                "server": self.server,
                "player": {"id": credentials.player_id, "name": credentials.name},
                "token": credentials.token,
            },
        )

    def forget_credentials(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.credentials_path.unlink()

    # ------------------------------------------------------------ receipts

    def _all_receipts(self) -> dict[str, dict[str, Any]]:
        if self._receipts is None:
            data = _read(self.receipts_path) or {}
            matches = data.get("matches")
            self._receipts = (
                {k: v for k, v in matches.items() if isinstance(v, dict)} if isinstance(matches, dict) else {}
            )
        return self._receipts

    def receipt(self, match: str) -> Receipt | None:
        entry = self._all_receipts().get(match)
        if entry is None:
            return None
        seq, hash_ = entry.get("seq"), entry.get("hash")
        if not isinstance(seq, int) or not isinstance(hash_, str):
            return None
        problem = entry.get("problem")
        return Receipt(
            match,
            seq,
            hash_,
            str(entry.get("at") or ""),
            bool(entry.get("ok", True)),
            problem if isinstance(problem, str) else None,
        )

    def save_receipt(self, receipt: Receipt) -> None:
        receipts = self._all_receipts()
        receipts[receipt.match] = {
            "seq": receipt.seq,
            "hash": receipt.hash,
            "at": receipt.at,
            "ok": receipt.ok,
            "problem": receipt.problem,
        }
        write_private(self.receipts_path, {"server": self.server, "matches": receipts})
