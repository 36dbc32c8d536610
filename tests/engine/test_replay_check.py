"""tools/replay_check.py, the stdlib-only checker of docs/REPLAYS.md, on every sample replay and
on tampered copies of them.

The checker is run as a third party would run it: a separate ``python -I`` process (isolated:
no site-packages, no project on the path) on a file. Tampering is done as a dishonest server
would do it. Some edits leave the hashes alone (the chain catches them); others recompute every
later hash (:func:`rechain`), or every commitment and hash with the seed in hand
(:func:`reseal`), so that only the seal, the seed or the shuffle check can catch them. An edit
of a public field with the chain rebuilt is beyond this checker (it needs the rules): the tests
show it passes here and that ``engine.fairness.verify.verify_replay`` catches it.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine import CLASSIC_2P, UNO_DUO
from engine.fairness.verify import verify_replay
from engine.game.shuffle import Dealer, shuffle_ids, shuffle_key
from engine.record.chain import ZERO_HASH, chain_envelope
from engine.record.replay import replay_text
from engine.record.sealing import commitment, seal_salt
from tests.engine.playing import play_match, short

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "replay_check.py"
SAMPLES = sorted((ROOT / "replays").glob("*.jsonl"))
SMALL = ROOT / "replays" / "sim-2026-uno-duo-11-greedy-vs-greedy.jsonl"

Lines = list[dict[str, Any]]


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("replay_check", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


replay_check = load_tool()


# ---------------------------------------------------------------- replay files and the checker's run


def read(path: Path) -> tuple[dict[str, Any], Lines]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[0], rows[1:]


def text_of(header: dict[str, Any], lines: Lines) -> str:
    return "\n".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) for row in [header, *lines]) + "\n"


def run(text: str, tmp_path: Path) -> tuple[int, str]:
    """Run the checker as a third party would: its own isolated interpreter, away from the repo."""
    path = tmp_path / "replay.jsonl"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", str(TOOL), str(path)], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    return done.returncode, done.stdout + done.stderr


def failure(text: str, tmp_path: Path) -> str:
    """The checker's FAIL line; the run must exit 1."""
    code, out = run(text, tmp_path)
    assert code == 1, out
    fails = [line for line in out.splitlines() if line.startswith("FAIL ")]
    assert len(fails) == 1, out
    return fails[0]


def index_of(lines: Lines, type_: str, where: Callable[[dict[str, Any]], bool] = lambda e: True) -> int:
    return next(i for i, e in enumerate(lines) if e["type"] == type_ and where(e))


def line_no(index: int) -> str:
    return f"FAIL line {index + 2}: "  # line 1 is the header; event lines[i] is on line i + 2


# ---------------------------------------------------------------- a dishonest server's tools


def copy(lines: Lines) -> Lines:
    return json.loads(json.dumps(lines))  # type: ignore[no-any-return]


def rechain(lines: Lines) -> Lines:
    """Every seq, prev and hash recomputed from the lines as they stand (commitments kept)."""
    out, prev = [], ZERO_HASH
    for seq, line in enumerate(lines, start=1):
        env = chain_envelope(line["stream"], seq, line["type"], line["data"], line["sealed"], line["at"], prev)
        out.append({**env, "open": line["open"]})
        prev = env["hash"]
    return out


def reseal(lines: Lines) -> Lines:
    """Every commitment recomputed from its opened value with the revealed seed, then every hash."""
    seed = bytes.fromhex(lines[-1]["data"]["server_seed"])
    for line in lines:
        line["sealed"] = {
            name: commitment(seal_salt(seed, line["stream"], line["seq"], name), value)
            for name, value in line["open"].items()
        }
    return rechain(lines)


def key_of(lines: Lines) -> bytes:
    data = lines[-1]["data"]
    return shuffle_key(bytes.fromhex(data["server_seed"]), *data["entropies"])


# ---------------------------------------------------------------- the checker itself


def test_the_checker_imports_only_the_standard_library_it_names() -> None:
    tree = ast.parse(TOOL.read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert imported == {"argparse", "hashlib", "hmac", "json", "sys"}
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]


def test_the_code_in_replays_md_is_the_checkers_code() -> None:
    source = TOOL.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "REPLAYS.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 6
    for block in blocks:
        assert block.strip() in source, block.splitlines()[0]


def test_the_checker_is_short_enough_to_read() -> None:
    assert len(TOOL.read_text(encoding="utf-8").splitlines()) <= 310  # 300, and a duplicate round's deal key


def test_its_algorithms_agree_with_the_engine() -> None:
    rng = random.Random(5)
    for _ in range(50):
        seed, e0, e1 = rng.randbytes(32), str(rng.random()), ""
        key = shuffle_key(seed, e0, e1)
        assert replay_check.shuffle_key(seed, e0, e1) == key
        ids = rng.sample(range(112), rng.randrange(1, 112))
        label = f"round:{rng.randrange(1, 9)}:recycle:{rng.randrange(1, 9)}"
        assert replay_check.shuffle(ids, key, label) == list(shuffle_ids(ids, key, label))
        seq = rng.randrange(1, 999)
        salt = seal_salt(seed, "match-x", seq, "cards")
        assert replay_check.seal_salt(seed, "match-x", seq, "cards") == salt
        assert replay_check.commitment(salt, ids) == commitment(salt, ids)
    assert replay_check.shuffle(list(range(112)), key, "cut:0")[:2] == list(Dealer(seed).cut((e0, e1), 0, 112))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_replay_passes(path: Path, tmp_path: Path) -> None:
    code, out = run(path.read_text(encoding="utf-8"), tmp_path)
    assert code == 0, out
    checks = [line.split()[1] for line in out.splitlines() if line.startswith("ok  ")]
    assert checks == ["lines:", "chain:", "seed:", "sealed:", "shuffles:", "faces:"]
    assert "checked:" in out and "unoduo verify" in out


def test_samples_are_there() -> None:
    assert len(SAMPLES) >= 2


def test_the_same_checks_when_imported() -> None:
    ok: list[str] = []
    replay_check.check(SMALL.read_text(encoding="utf-8"), ok)
    assert len(ok) == 6 and ok[4].startswith("shuffles: 2 cuts, 3 decks")


def _match_with(rules: Any, want_restart: bool) -> tuple[dict[str, Any], Lines]:
    """A random-command match with a recycled pile (and, for classic-2p, a round started again)."""
    for seed in range(1, 200):
        match = play_match(seed, short(rules, 100 if want_restart else 60), 0.5 if want_restart else 0.2)
        types = [e.type for e in match.events]
        restarts = [e for e in match.events if e.type == "round_started" and e.data["restart"] > 0]
        if "pile_recycled" in types and (restarts or not want_restart) and len(types) < 3000:
            rows = [json.loads(t) for t in replay_text(f"r{seed}", rules.name, ["a", "b"], match.events).splitlines()]
            return rows[0], rows[1:]
    raise AssertionError("no seed gives a recycle")


@pytest.fixture(scope="module", params=["uno-duo", "classic-2p"])
def recycled(request: pytest.FixtureRequest) -> tuple[dict[str, Any], Lines]:
    return _match_with(UNO_DUO if request.param == "uno-duo" else CLASSIC_2P, request.param == "classic-2p")


def test_recycles_and_restarts_are_checked(recycled: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = recycled
    code, out = run(text_of(header, lines), tmp_path)
    assert code == 0, out
    assert " 0 recycles" not in out


# ---------------------------------------------------------------- tampered copies: each caught, named by line


@pytest.fixture(scope="module")
def sample() -> tuple[dict[str, Any], Lines]:
    return read(SMALL)


def test_an_edited_card_in_open_fails_its_seal(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    i = index_of(lines, "cards_drawn")
    lines[i]["open"]["codes"][0] = "W+4" if lines[i]["open"]["codes"][0] != "W+4" else "R0"
    fail = failure(text_of(header, lines), tmp_path)
    assert fail.startswith(line_no(i)) and "cards_drawn.codes" in fail and "opened value" in fail


def test_an_edited_card_id_in_open_fails_its_seal(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    i = index_of(lines, "card_played")
    lines[i]["open"]["card"] = (lines[i]["open"]["card"] + 1) % 112
    fail = failure(text_of(header, lines), tmp_path)
    assert fail.startswith(line_no(i)) and "card_played.card" in fail


@pytest.mark.parametrize("field", ["scores", "color"])
def test_an_edited_public_field_breaks_the_chain(
    field: str, sample: tuple[dict[str, Any], Lines], tmp_path: Path
) -> None:
    header, lines = sample[0], copy(sample[1])
    i = _edit_public(lines, field)
    fail = failure(text_of(header, lines), tmp_path)
    assert fail.startswith(line_no(i)) and "hash" in fail


def _edit_public(lines: Lines, field: str) -> int:
    if field == "scores":
        i = index_of(lines, "round_ended")
        lines[i]["data"]["scores"][0] += 1
    else:
        i = index_of(lines, "card_played", lambda e: e["data"]["code"][0] in "RYGB")
        lines[i]["data"]["color"] = "blue" if lines[i]["data"]["color"] != "blue" else "red"
    return i


@pytest.mark.parametrize("field", ["scores", "color"])
def test_a_public_edit_with_the_chain_rebuilt_needs_the_rules(
    field: str, sample: tuple[dict[str, Any], Lines], tmp_path: Path
) -> None:
    """The limit of a rules-free check: a score or a colour is only wrong by the rules. The
    stdlib checker passes the file; the engine's re-run (`unoduo verify`) names the line."""
    header, lines = sample[0], copy(sample[1])
    i = _edit_public(lines, field)
    text = text_of(header, rechain(lines))
    code, out = run(text, tmp_path)
    assert code == 0, out
    report = verify_replay(text)
    assert not report.ok and report.line == i + 2, report.failure


def test_an_edited_face_with_the_chain_rebuilt_fails_the_faces(
    sample: tuple[dict[str, Any], Lines], tmp_path: Path
) -> None:
    header, lines = sample[0], copy(sample[1])
    i = index_of(lines, "starter_turned")
    lines[i]["data"]["code"] = "R0" if lines[i]["data"]["code"] != "R0" else "R1"
    fail = failure(text_of(header, rechain(lines)), tmp_path)
    assert fail.startswith(line_no(i)) and "starter_turned.code" in fail


def test_a_removed_event_is_named(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    del lines[40]
    fail = failure(text_of(header, lines), tmp_path)
    assert fail == f"{line_no(40)}seq: expected 41, found 42"


def test_two_swapped_events_are_named(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    lines[50], lines[51] = lines[51], lines[50]
    fail = failure(text_of(header, lines), tmp_path)
    assert fail == f"{line_no(50)}seq: expected 51, found 52"


def test_a_duplicated_event_is_named(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    lines.insert(61, copy([lines[60]])[0])
    fail = failure(text_of(header, lines), tmp_path)
    assert fail == f"{line_no(61)}seq: expected 62, found 61"


def test_a_changed_seed_is_caught(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    lines[-1]["data"]["server_seed"] = "00" * 32
    last = len(lines) - 1
    assert failure(text_of(header, lines), tmp_path).startswith(f"{line_no(last)}hash")
    fail = failure(text_of(header, rechain(lines)), tmp_path)
    assert fail.startswith(line_no(last)) and "commitment of line 2" in fail
    assert hashlib.sha256(bytes(32)).hexdigest()[:36] in fail


def test_a_changed_commitment_is_caught(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    lines[0]["data"]["commitment"] = "ab" * 32
    assert failure(text_of(header, lines), tmp_path).startswith(f"{line_no(0)}hash")
    fail = failure(text_of(header, rechain(lines)), tmp_path)
    assert fail.startswith(line_no(len(lines) - 1)) and "commitment of line 2" in fail and "abab" in fail


def test_a_reordered_deck_is_caught_by_the_seal_then_by_the_shuffle(
    sample: tuple[dict[str, Any], Lines], tmp_path: Path
) -> None:
    header, lines = sample[0], copy(sample[1])
    i = index_of(lines, "round_started", lambda e: e["data"]["round"] == 2)
    deck = lines[i]["open"]["deck"]
    deck[3], deck[4] = deck[4], deck[3]
    sealed = failure(text_of(header, rechain(lines)), tmp_path)
    assert sealed.startswith(line_no(i)) and "round_started.deck" in sealed
    fail = failure(text_of(header, reseal(lines)), tmp_path)
    assert fail == f"{line_no(i)}deck of round:2:deck, at index 3: expected {deck[4]}, found {deck[3]}"


def test_a_deck_shopped_under_another_label_is_caught(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    """A server may not try labels until it likes a deck: round 1's first deck is round:1:deck."""
    header, lines = sample[0], copy(sample[1])
    i = index_of(lines, "round_started")
    lines[i]["data"]["restart"] = 1
    lines[i]["open"]["deck"] = list(shuffle_ids(range(112), key_of(lines), "round:1:deck:1"))
    fail = failure(text_of(header, reseal(lines)), tmp_path)
    assert fail == f"{line_no(i)}round 1 restart 1 cannot follow round 0 restart 0"


def test_changed_cut_cards_are_caught_by_the_shuffle(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    i = index_of(lines, "cut")
    cards = lines[i]["open"]["cards"]
    lines[i]["open"]["cards"] = [cards[1], cards[0]]
    fail = failure(text_of(header, reseal(lines)), tmp_path)
    assert fail.startswith(line_no(i)) and "cards of cut:0, at index 0" in fail


def test_entropies_the_players_did_not_give_are_caught(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    lines[-1]["data"]["entropies"] = ["chosen by the server", lines[-1]["data"]["entropies"][1]]
    fail = failure(text_of(header, rechain(lines)), tmp_path)
    joined = index_of(lines, "seat_joined", lambda e: e["data"]["seat"] == 0)
    assert fail.startswith(line_no(joined)) and "seat 0's entropy" in fail
    lines[joined]["open"]["entropy"] = "chosen by the server"  # now consistent: the decks give it away
    fail = failure(text_of(header, reseal(lines)), tmp_path)
    assert fail.startswith(line_no(index_of(lines, "cut"))) and "cards of cut:0" in fail


def test_a_reordered_recycle_is_caught_by_the_shuffle(recycled: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = recycled[0], copy(recycled[1])
    i = index_of(lines, "pile_recycled", lambda e: len(e["open"]["cards"]) >= 2)
    cards = lines[i]["open"]["cards"]
    cards[0], cards[1] = cards[1], cards[0]
    fail = failure(text_of(header, reseal(lines)), tmp_path)
    assert fail.startswith(line_no(i)) and ":recycle:" in fail and "at index 0" in fail


def test_a_hidden_value_left_unsealed_is_caught(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    i = index_of(lines, "card_played")
    lines[i]["open"]["extra"] = 1
    fail = failure(text_of(header, lines), tmp_path)
    assert fail.startswith(line_no(i)) and "opened fields" in fail


@pytest.mark.parametrize(
    "content",
    ["", "not json\n", "[1, 2]\n", '{"format": "unoduo-replay", "version": 1}\n', '{"format": "other"}\n'],
)
def test_unreadable_files_exit_2(content: str, tmp_path: Path) -> None:
    code, out = run(content, tmp_path)
    assert code == 2 and "Traceback" not in out, out


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-I", str(TOOL), str(tmp_path / "none.jsonl")], capture_output=True, check=False
    )
    assert done.returncode == 2


def test_a_malformed_event_is_named_not_a_traceback(sample: tuple[dict[str, Any], Lines], tmp_path: Path) -> None:
    header, lines = sample[0], copy(sample[1])
    i = index_of(lines, "round_started")
    del lines[i]["data"]["restart"]
    fail = failure(text_of(header, rechain(lines)), tmp_path)
    assert fail.startswith(line_no(i)) and "malformed" in fail


# ---------------------------------------------------------------- a table of more than two


@pytest.fixture(scope="module")
def table() -> tuple[dict[str, Any], Lines]:
    from tests.engine.test_verify import play_table

    rows = [
        json.loads(t) for t in replay_text("t5", "classic", [f"p{s}" for s in range(5)], play_table(5, 5)).splitlines()
    ]
    return rows[0], rows[1:]


def test_a_table_of_five_passes_with_every_seats_entropy_in_the_key(
    table: tuple[dict[str, Any], Lines], tmp_path: Path
) -> None:
    header, lines = table
    code, out = run(text_of(header, lines), tmp_path)
    assert code == 0, out
    assert "recomputed from the seed and the 5 seats' entropies" in out
    entropies = lines[-1]["data"]["entropies"]
    seed = bytes.fromhex(lines[-1]["data"]["server_seed"])
    assert replay_check.shuffle_key(seed, *entropies) == shuffle_key(seed, *entropies)
    assert replay_check.shuffle_key(seed, *entropies) != replay_check.shuffle_key(seed, *entropies[:2])


def test_at_a_table_of_five_a_seat_left_out_of_the_key_or_a_hand_moved_is_caught(
    table: tuple[dict[str, Any], Lines], tmp_path: Path
) -> None:
    header, lines = table
    dropped = copy(lines)
    dropped[-1]["data"]["entropies"] = dropped[-1]["data"]["entropies"][:4]
    assert "entropies is not a list of 5 strings" in failure(text_of(header, rechain(dropped)), tmp_path)
    moved = copy(lines)
    dealt = index_of(moved, "cards_dealt")
    moved[dealt]["open"]["hand2"] = moved[dealt]["open"]["hand3"]
    assert failure(text_of(header, reseal(moved)), tmp_path).startswith(line_no(dealt) + "cards_dealt.hand2")
    oversized = copy(lines)
    oversized[0]["data"]["seats"] = 11
    assert "seats is not a number from 2 to 10" in failure(text_of(header, reseal(oversized)), tmp_path)
