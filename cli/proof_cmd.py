"""``unoduo proof [MATCH | --replay FILE] [--seq N] -o FILE``: the proof of one disputed event
(docs/REPLAYS.md "Proofs of one event"), made during the match and revealing nothing else.

From a running server (``MATCH``): the events as the caller may see them (``GET
/api/matches/{id}/events``, each envelope with the openings this caller was sent), with the token
``unoduo play`` saved for that server (or ``--token`` / ``UNODUO_TOKEN``). From a finished match's
replay (``--replay``): the salts of the disputed event's opened fields recomputed from the seed.
The event is ``--seq``, or else the last challenge or caught UNO whose proof the caller can make.
Only a ``challenge_resolved`` or an ``uno_caught`` is provable; anything else is refused in words.
Check the file with ``python3 tools/proof_check.py FILE``. Exit 0 written, 1 refused, 2 bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import typer

from cli.replay_input import read_replay
from cli.tournament_cmd import DEFAULT_URL, Server, answer_to, fail
from engine.fairness.proofs import (
    PROOF_OPENINGS,
    ProofRefused,
    proof_from_events,
    proof_from_replay,
    proof_text,
    recorded_verdict,
)
from tui_client.connection.config import ConfigStore


def server_events(server: Server, match: str) -> list[dict[str, Any]]:
    """Every event of the match from seq 1 as this caller may see it (NDJSON, one envelope a line)."""
    response = answer_to(server, "GET", f"/api/matches/{quote(match, safe='')}/events", params={"since": "0"})
    events: list[dict[str, Any]] = []
    for line in response.text.splitlines():
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            fail(f"the server at {server.url} answered the events of {match} with a line that is not JSON")
        if isinstance(event, dict):
            events.append(event)
    return events


def last_provable(events: list[dict[str, Any]]) -> int | None:
    """The last challenge or catch whose proof these events allow: a catch always (it opens
    nothing), a challenge only with its hand opened (the challenger's, or the director's, copy)."""
    for event in reversed(events):
        names = PROOF_OPENINGS.get(str(event.get("type")))
        if names is not None and all(n in (event.get("open") or {}) for n in names):
            return int(event["seq"])
    return None


def token_for(server: str, token: str | None, config_dir: Path | None) -> str | None:
    """``--token``, else the token ``unoduo play`` saved for this server (None: ask as a spectator)."""
    if token:
        return token
    credentials = ConfigStore(server, config_dir).load_credentials()
    return credentials.token if credentials is not None else None


def proof(
    match: str | None = typer.Argument(None, help="the match, on a running server (leave out with --replay)"),
    output: Path = typer.Option(..., "-o", "--output", help="the proof file to write"),
    replay: Path | None = typer.Option(None, "--replay", help="a finished match's replay file instead of a server"),
    seq: int | None = typer.Option(
        None, "--seq", help="the event to prove (default: the last challenge or caught UNO you can prove)"
    ),
    url: str = typer.Option(DEFAULT_URL, "--server", "--url", envvar="UNODUO_URL", help="the server's address"),
    token: str | None = typer.Option(
        None, "--token", envvar="UNODUO_TOKEN", help="your token (default: the one unoduo play saved)"
    ),
    config_dir: Path | None = typer.Option(None, "--config-dir", help="where unoduo play keeps its token"),
) -> None:
    """Write the proof of one challenged Wild Draw Four or caught UNO: the public chain up to it,
    the challenged hand's openings and nothing else, and the verdict."""
    if (match is None) == (replay is None):
        fail("unoduo proof: name a MATCH on a server, or give --replay FILE (one of the two)", 2)
    try:
        if replay is not None:
            made = proof_from_replay(read_replay(replay, "proof"), seq)
        else:
            assert match is not None
            events = server_events(Server(url, token_for(url, token, config_dir)), match.strip())
            made = proof_from_events(events, seq if seq is not None else last_provable(events))
    except ProofRefused as exc:
        fail(f"unoduo proof: {exc}")
    try:
        output.write_text(proof_text(made), encoding="utf-8")
    except OSError as exc:
        fail(f"unoduo proof: cannot write {output}: {exc.strerror or exc}", 2)
    event, verdict = made["event"], made["verdict"]
    recorded = recorded_verdict(made)
    against = "" if recorded == verdict["verdict"] else f" — the log recorded {recorded}: its ruling breaks the rules"
    typer.echo(
        f"wrote {output}: proof of #{event['seq']} {event['type']} ({verdict['ruling']}: {verdict['verdict']}){against}, "
        f"{len(made['envelopes'])} public events, {len(made['open'])} field(s) opened; "
        f"check it with: python3 tools/proof_check.py {output}"
    )


def register(app: typer.Typer) -> None:
    app.command("proof")(proof)
