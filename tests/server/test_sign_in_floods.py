"""Sign-in floods (issue 32, points 2 and 3): nobody can jam the hasher for the others, and the
wrong-password limits hold however many guesses arrive at once.

Before: the hasher was one first-come queue per process (2 running, 32 waiting), so 10 addresses
× 4 concurrent guesses refused every sign-in of an 11th address ("too many passwords are being
checked"); and the limit was checked before the hash but counted after it, so concurrent guesses
from one address were all checked (145 in 60 s against 30 a minute), and four addresses at one
name each got their own limit.

The hashes here are a stand-in (:class:`SlowHasher`) that holds each guess until the test lets it
go, so what waits where is decided by the test, not by a clock.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import pytest
from fastapi.testclient import TestClient

from bench.progress import wait_for
from server.domain_errors import TooManyRequests
from server.services import passwords, players, sessions
from server.services.passwords import Hasher
from server.services.rate_limits import RateLimit
from server.services.sign_in_gate import SignInGate
from tests.server.conftest import app_client

PASSWORD = "the right password"


class SlowHasher:
    """argon2's two calls, with "hashes" anyone can read; a guess (any wrong secret) waits until
    :meth:`let_go` lets it through, one per call, and every secret checked is recorded in order."""

    def __init__(self) -> None:
        self.checked: list[str] = []
        self.turns = threading.Semaphore(0)
        self.held = threading.Event()  # set while no guess has to wait
        self._lock = threading.Lock()

    def hash(self, secret: str) -> str:
        return "fake$" + secret

    def verify(self, stored: str, secret: str) -> bool:
        with self._lock:
            self.checked.append(secret)
        if secret != PASSWORD and not self.held.is_set():
            self.turns.acquire()
        return stored == "fake$" + secret

    def let_go(self, n: int = 1) -> None:
        for _ in range(n):
            self.turns.release()

    def open(self) -> None:
        self.held.set()
        self.let_go(1000)


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Hasher, SlowHasher]]:
    fake = SlowHasher()
    hasher = Hasher(hasher=fake)
    for module in (passwords, players, sessions):
        monkeypatch.setattr(module, "hasher", hasher)
    yield hasher, fake
    fake.open()


@contextmanager
def released_at_the_end(fake: SlowHasher) -> Iterator[None]:
    """Every held guess goes at the end, failed or not (else the threads that wait on them never end)."""
    try:
        yield
    finally:
        fake.open()


def from_address(main: TestClient, address: str) -> TestClient:
    """A client of the same app (its lifespan run by ``main``) whose requests come from ``address``."""
    return TestClient(main.app, client=(address, 50000), raise_server_exceptions=False)


def sign_in(client: TestClient, name: str, password: str) -> httpx.Response:
    return client.post("/api/sessions", json={"name": name, "password": password})


# ---------------------------------------------------------------- the hasher: a turn for each source


async def turns_until(condition: Callable[[], bool]) -> None:
    """Let the event loop run until ``condition`` holds (a few turns: a task's start, a cancellation's
    callbacks); fail if a hundred are not enough."""
    for _ in range(100):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the hasher never got there")


def test_the_hasher_takes_one_hash_from_each_waiting_source_in_turn_and_a_newcomer_displaces_the_greediest() -> None:
    fake = SlowHasher()
    hasher = Hasher(running=1, waiting=6, hasher=fake, per_source=4)

    async def scenario() -> list[str]:
        tasks = []
        for source, n in (("a", 4), ("b", 3)):
            for i in range(n):
                tasks.append(asyncio.ensure_future(hasher.verify("x", f"{source}{i}", source=source)))
                await asyncio.sleep(0)
        await turns_until(lambda: hasher.load() == (1, 6, 2))  # "a0" on the thread; a1-a3 and b0-b2 waiting
        with pytest.raises(TooManyRequests, match="your address"):
            await hasher.verify("x", "a4", source="a")  # a has its four
        newcomer = asyncio.ensure_future(hasher.verify("x", "c0", source="c"))
        await turns_until(lambda: hasher.load() == (1, 6, 3))  # b's newest gave up its place to c
        fake.open()
        results = await asyncio.gather(*tasks, newcomer, return_exceptions=True)
        refused = [r for r in results if isinstance(r, TooManyRequests)]
        assert len(refused) == 1 and "too many passwords" in str(refused[0])
        return fake.checked

    order = asyncio.run(scenario())
    assert order[0] == "a0" and set(order[1:4]) == {"a1", "b0", "c0"}, order  # c waited one round, not six
    assert hasher.load() == (0, 0, 0)


def test_a_caller_that_goes_away_leaves_the_queue_at_once() -> None:
    fake = SlowHasher()
    hasher = Hasher(running=1, waiting=4, hasher=fake, per_source=4)

    async def scenario() -> None:
        first = asyncio.ensure_future(hasher.verify("x", "a0", source="a"))
        await turns_until(lambda: hasher.load() == (1, 0, 1))
        waiting = asyncio.ensure_future(hasher.verify("x", "a1", source="a"))
        await turns_until(lambda: hasher.load() == (1, 1, 1))
        waiting.cancel()
        await turns_until(lambda: hasher.load() == (1, 0, 1))
        fake.open()
        await first

    asyncio.run(scenario())
    assert fake.checked == ["a0"] and hasher.load() == (0, 0, 0)


# ---------------------------------------------------------------- the flood of the issue, through the route


def test_a_flood_of_wrong_guesses_from_ten_addresses_does_not_keep_an_eleventh_out(
    url: str, slow: tuple[Hasher, SlowHasher]
) -> None:
    """10 addresses × 4 concurrent wrong guesses hold both hashing threads; a sign-in from an 11th
    address is still admitted, and is checked within one round of the flooding addresses."""
    hasher, fake = slow
    with app_client(url) as main:
        assert main.post("/api/players", json={"name": "ann", "password": PASSWORD}).status_code == 201
        flooders = [from_address(main, f"203.0.113.{n}") for n in range(1, 11)]
        with ThreadPoolExecutor(max_workers=41) as pool, released_at_the_end(fake):
            guesses = [
                pool.submit(sign_in, flooder, f"target{n}", f"guess {n}.{i}")
                for n, flooder in enumerate(flooders)
                for i in range(4)
            ]
            wait_for(
                lambda: sum(g.done() for g in guesses) == 20,
                "the third and fourth guess of each address refused",
                poll=0.01,
            )
            assert {g.result().status_code for g in guesses if g.done()} == {429}
            wait_for(lambda: hasher.load() == (2, 18, 10), "two guesses of each address held or waiting", poll=0.01)
            before = len(fake.checked)
            ann = pool.submit(sign_in, from_address(main, "198.51.100.7"), "ann", PASSWORD)
            wait_for(lambda: hasher.load()[1] == 19, "ann's sign-in waiting for its turn", poll=0.01)
            released = 0
            while PASSWORD not in fake.checked:  # one held guess at a time lets go; the next in turn takes its thread
                assert released <= 11, "ann waited behind more than one guess of each flooding address"
                fake.let_go()
                released += 1
                wait_for(lambda n=before + released: len(fake.checked) >= n, "the next hash", poll=0.01)
            assert ann.result().status_code == 201, ann.result().text
            ahead = fake.checked[before : fake.checked.index(PASSWORD)]
            assert len(ahead) == len({guess.split(".")[0] for guess in ahead}) <= 10, ahead  # one of each at most
            fake.open()
            assert sorted(g.result().status_code for g in guesses) == [401] * 20 + [429] * 20
    assert hasher.load() == (0, 0, 0)
    assert main.app.state.sign_ins.in_progress() == (0, 0)  # type: ignore[attr-defined]


# ---------------------------------------------------------------- the limits hold in parallel


def guess_together(clients: list[TestClient], name: str) -> list[int]:
    """Waves of wrong guesses at ``name``, four at once from every client, until a whole wave is
    refused by the rate limit (a wave always gets some checked while there are tries left: at most
    two at once are refused for being at once); every status."""
    statuses: list[int] = []
    with ThreadPoolExecutor(max_workers=4 * len(clients)) as pool:
        for wave in range(50):
            futures = [
                pool.submit(sign_in, client, name, f"guess {n}.{wave}.{i}")
                for n, client in enumerate(clients)
                for i in range(4)
            ]
            answers = [f.result() for f in futures]
            statuses += [a.status_code for a in answers]
            if all(a.status_code == 429 and "a minute" in a.json()["message"] for a in answers):
                return statuses
    raise AssertionError(f"the limit never held: {statuses}")


def test_concurrent_wrong_guesses_from_one_address_are_checked_no_more_than_the_limit(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = SlowHasher()
    fake.held.set()  # no waiting: the guesses race each other through the route
    hasher = Hasher(hasher=fake)
    for module in (passwords, players, sessions):
        monkeypatch.setattr(module, "hasher", hasher)
    with app_client(url, bad_tokens_per_minute=5, wrong_passwords_per_name_per_minute=1000) as main:
        frozen(main)
        assert main.post("/api/players", json={"name": "ann", "password": PASSWORD}).status_code == 201
        statuses = guess_together([main], "ann")
        guesses = [s for s in fake.checked if s != PASSWORD]
        assert len(guesses) == 5 == statuses.count(401), (len(guesses), statuses)
        assert set(statuses) == {401, 429}
        assert sign_in(main, "ann", PASSWORD).status_code == 429  # the address is out of tries


def test_the_limit_holds_per_name_across_addresses(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = SlowHasher()
    fake.held.set()
    hasher = Hasher(hasher=fake)
    for module in (passwords, players, sessions):
        monkeypatch.setattr(module, "hasher", hasher)
    with app_client(url, bad_tokens_per_minute=1000, wrong_passwords_per_name_per_minute=6) as main:
        frozen(main)
        assert main.post("/api/players", json={"name": "ann", "password": PASSWORD}).status_code == 201
        addresses = [from_address(main, f"203.0.113.{n}") for n in range(1, 5)]
        statuses = guess_together(addresses, "ANN")  # as names compare: ann's limit
        guesses = [s for s in fake.checked if s != PASSWORD]
        assert len(guesses) == 6 == statuses.count(401), (len(guesses), statuses)
        refused = sign_in(addresses[0], "ann", PASSWORD)
        assert refused.status_code == 429 and "for this name" in refused.json()["message"]
        assert int(refused.headers["Retry-After"]) >= 1
        assert sign_in(addresses[0], "bob", "a guess at bob").status_code == 401  # another name is not held


def test_a_right_password_does_not_use_up_the_limit(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = SlowHasher()
    fake.held.set()
    hasher = Hasher(hasher=fake)
    for module in (passwords, players, sessions):
        monkeypatch.setattr(module, "hasher", hasher)
    with app_client(url, bad_tokens_per_minute=2, wrong_passwords_per_name_per_minute=2) as main:
        frozen(main)
        assert main.post("/api/players", json={"name": "ann", "password": PASSWORD}).status_code == 201
        for _ in range(6):
            assert sign_in(main, "ann", PASSWORD).status_code == 201
        assert sign_in(main, "ann", "wrong").status_code == 401


def frozen(client: TestClient) -> None:
    """Stop the refill of the app's buckets: what is counted stays counted for the test."""
    gate: SignInGate = client.app.state.sign_ins  # type: ignore[attr-defined]
    for limit in (gate.per_address, gate.per_name):
        limit.clock = lambda: 0.0


# ---------------------------------------------------------------- bounds


def test_the_gate_s_and_the_buckets_memory_is_bounded() -> None:
    per_name = RateLimit("wrong passwords", 3, clock=lambda: 0.0, size=100)
    gate = SignInGate(RateLimit("wrong tokens", 0), per_name)
    for n in range(1000):
        gate.admit("203.0.113.1", f"name{n}").done(counted=True)
    assert len(per_name._buckets) == 100 and gate.in_progress() == (0, 0)
    held = [gate.admit("203.0.113.1", "ann"), gate.admit("203.0.113.2", "ann")]
    assert gate.in_progress() == (2, 1)
    with pytest.raises(TooManyRequests, match="to this name"):
        gate.admit("203.0.113.3", "ann")
    for admission in held:
        admission.done(counted=False)
        admission.done(counted=False)  # a second end changes nothing
    assert gate.in_progress() == (0, 0)
    assert per_name._buckets["ann"].tokens == 3  # given back
