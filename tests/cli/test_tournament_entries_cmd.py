"""``unoduo tournament create --open``, ``enter`` and ``leave`` against a real ``unoduo serve``."""

from __future__ import annotations

import httpx

from tests.cli.test_tournament_cmd import base, refused, unoduo  # noqa: F401 - base is the server fixture
from tests.server.helpers import register


def test_an_open_tournament_is_made_empty_and_filled_by_entries_until_its_start(base: str) -> None:  # noqa: F811
    made = unoduo("create", "Open night", "--open", "--rule", "target=30", url=base)
    assert made.exit_code == 0, made.output
    tournament = made.stdout.splitlines()[0].split()[2]
    # no empty table of entrants: what the director does next, in words
    assert "Entrants" not in made.stdout and "players enter it themselves" in made.stdout
    assert f"unoduo tournament start {tournament}" in made.stdout
    with httpx.Client(base_url=base) as client:
        _, ada = register(client, "ada-cli")
    token = ada["Authorization"].removeprefix("Bearer ")
    itself = unoduo("enter", tournament, url=base, token=token)
    assert itself.exit_code == 0 and "entered ada-cli" in itself.stdout and "1 player entered" in itself.stdout
    bot = unoduo("enter", tournament, "--player", "bot:greedy", url=base)
    assert bot.exit_code == 0 and "entered greedy" in bot.stdout and "2 players entered" in bot.stdout
    twice = refused(unoduo("enter", tournament, url=base, token=token))
    assert twice.startswith("error (409 not_now)") and "already" in twice
    left = unoduo("leave", tournament, "ADA-CLI", url=base)
    assert left.exit_code == 0 and "1 player entered (greedy)" in left.stdout
    listed = unoduo("list", url=base)
    assert tournament in listed.stdout and "yes" in listed.stdout
    unoduo("enter", tournament, "-p", "ada-cli", url=base)
    started = unoduo("start", tournament, url=base)
    assert started.exit_code == 0, started.output
    late = refused(unoduo("enter", tournament, "-p", "bot:random", url=base))
    assert late.startswith("error (409 not_now)") and "started" in late
