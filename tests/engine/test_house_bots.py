"""``unoduo audit --bots`` (engine/fairness/house_bots.py): every house-bot move of a server's replay is
asked again of its bot, with its chance from the revealed seed, and must be the recorded one.

The matches here are played the way the server plays a house bot (engine only): seat 1 is
``bot-random-1`` or ``bot-greedy-1``, asked afresh on every decision with
``Dealer.bot_chance(match_id, version, seat)``, and moves whenever it has something to decide
(its turn or a UNO window); seat 0 is a scripted person.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from engine.bots import get_bot
from engine.fairness.audit_report import audit
from engine.fairness.house_bots import house_bot_of_id, house_bot_seats
from engine.game.rulesets import CLASSIC_2P, UNO_DUO, Ruleset
from engine.game.shuffle import Dealer
from engine.play.match import LocalMatch
from engine.protocol.views import legal_commands, view
from engine.record.replay import replay_text

runner = CliRunner()
MATCH = "m-house-bots"
Chance = Callable[[Dealer, int, int], random.Random]  # (dealer, version, seat) -> the bot's chance


def server_chance(dealer: Dealer, version: int, seat: int) -> random.Random:
    return dealer.bot_chance(MATCH, version, seat)


def old_chance(dealer: Dealer, version: int, seat: int) -> random.Random:
    return random.Random(f"{MATCH}:{version}")  # the public seeding the server used before issue 19


def house_bot_match(bot: str, chance: Chance, seed: int = 1, ruleset: Ruleset = UNO_DUO) -> str:
    """A finished match's replay text: a scripted seat 0 against the house bot ``bot`` in seat 1."""
    server_seed = random.Random(seed).randbytes(32)
    match = LocalMatch.start(server_seed, ruleset, (f"e{seed}", ""))
    person = random.Random(seed)
    while match.state.phase.value != "match_over":
        state = match.state
        if legal_commands(state, 1) and (state.pending.seat == 1 or any(state.uno_open)):
            match.act(1, get_bot(bot).choose(view(state, 1), chance(match.dealer, state.version, 1)))
            continue
        legal = legal_commands(state, 0)
        command = dict(person.choice([c for c in legal if c["type"] in ("play", "dump")] or legal))
        if command["type"] == "color" or command.get("card") in ("W", "W+4"):
            command["color"] = person.choice(["red", "yellow", "green", "blue"])
        match.act(0, command)
    return replay_text(MATCH, ruleset.name, ["p_0123456789abcdef", f"bot-{bot}-1"], match.events)


def test_the_house_bot_ids_the_server_gives_name_their_bot() -> None:
    assert house_bot_of_id("bot-random-1") == "random"
    assert house_bot_of_id("bot-greedy-0123456789abcdef-12") == "greedy"  # a tournament's entry
    assert house_bot_of_id("bot-rule-v1-1") == "rule-v1"  # a name with a hyphen of its own
    assert house_bot_of_id("bot-rule-v1-0123456789abcdef-3") == "rule-v1"
    for other in ("p_0123456789abcdef", "bot:random", "bot-random", "random-1", "", None, 7):
        assert house_bot_of_id(other) is None
    assert house_bot_seats(["bot-random-1", "bot-nosuch-1"]) == ({0: "random"}, {1: "nosuch"})


@pytest.mark.parametrize(
    ("bot", "ruleset"), [("random", UNO_DUO), ("random", CLASSIC_2P), ("greedy", UNO_DUO), ("rule-v1", UNO_DUO)]
)
def test_every_house_bot_move_is_re_derived_from_the_revealed_seed(bot: str, ruleset: Ruleset) -> None:
    report = audit(house_bot_match(bot, server_chance, 3, ruleset), bots=True)
    assert report.verification.ok and report.bots is not None and report.ok
    assert report.bots.seats == {1: bot} and report.bots.checked[1] > 100 and report.bots.mismatch is None


def test_a_bot_that_did_not_choose_with_its_secret_chance_is_caught() -> None:
    """The old public seeding gives a log the engine accepts, but not the bot's moves."""
    text = house_bot_match("random", old_chance, 5)
    report = audit(text, bots=True)
    assert report.verification.ok, "the log itself is legal: only the bot's chance is not its own"
    assert report.bots is not None and not report.ok
    mismatch = report.bots.mismatch
    assert mismatch is not None and mismatch.seat == 1 and mismatch.bot == "random"
    line = json.loads(text.splitlines()[mismatch.seq])
    assert line["type"] == "command" and line["data"]["command"] == mismatch.recorded != mismatch.derived


def test_audit_bots_on_the_command_line(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text(house_bot_match("random", server_chance, 7), encoding="utf-8")
    bad.write_text(house_bot_match("random", old_chance, 7), encoding="utf-8")

    passed = runner.invoke(app, ["audit", str(good), "--bots", "--challenges"])
    assert passed.exit_code == 0, passed.output
    assert "seat 1 (bot-random-1) is bot:random:" in passed.output and "as recorded (every move)" in passed.output

    failed = runner.invoke(app, ["audit", str(bad), "--bots"])
    assert failed.exit_code == 1 and "DIFFERS at seq" in failed.output, failed.output
    as_json = json.loads(runner.invoke(app, ["audit", str(bad), "--bots", "--json"]).output)
    assert as_json["verified"] and not as_json["bots"]["ok"] and as_json["bots"]["mismatch"]["seat"] == 1

    # Without --bots nothing changes; a self-play replay has no house bot to re-derive.
    assert runner.invoke(app, ["audit", str(bad)]).exit_code == 0
    sample = Path(__file__).resolve().parents[2] / "replays" / "sim-2026-uno-duo-16-greedy-vs-random.jsonl"
    none = runner.invoke(app, ["audit", str(sample), "--bots", "--challenges"])
    assert none.exit_code == 0 and "House bots: none in this replay" in none.output
