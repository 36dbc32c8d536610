"""A seat's review as JSON (the API's answer, ``unoduo review --json``) and what a replay gives it.

Every figure is rounded to four places: the estimator's noise is far above that, and the same
review must print the same on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.game.events import Event
from engine.review.review import BANDS, NOISE_SIGMAS, REVIEW_VERSION, SeatReview

UNIT = "expected match points: the probability of winning the match (0 to 1)"


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def review_dict(review: SeatReview, match_id: str | None = None, player: str | None = None) -> dict[str, Any]:
    return {
        "match": match_id,
        "seat": review.seat,
        "player": player,
        "unit": UNIT,
        "settings": {"samples": review.settings.samples, "version": REVIEW_VERSION},
        "bands": {name: floor for name, floor in reversed(BANDS)},
        "noise_sigmas": NOISE_SIGMAS,
        "reviewed": review.reviewed,
        "forced": review.forced,
        "accuracy": _r(review.accuracy),
        "average_loss": _r(review.average_loss),
        "agreement": _r(review.agreement),
        "counts": {name: review.count(name) for name, _ in reversed(BANDS)},
        "decisions": [
            {
                "seq": d.seq,
                "round": d.round,
                "kind": d.kind,
                "chosen": d.chosen,
                "best": d.best,
                "coach": d.coach,
                "loss": _r(d.loss),
                "loss_stderr": _r(d.loss_stderr),
                "band": d.band,
                "options": [{"option": o.option, "mean": _r(o.mean), "stderr": _r(o.stderr)} for o in d.options],
            }
            for d in review.decisions
        ],
        "hands": [
            {
                "round": h.round,
                "before": _r(h.before),
                "deal": _r(h.deal),
                "deal_stderr": _r(h.deal_stderr),
                "luck": _r(h.luck),
                "after": _r(h.after),
                "points": h.points,
            }
            for h in review.hands
        ],
    }


def player_of(header: dict[str, Any], events: Sequence[Event], seat: int) -> str | None:
    """The seat's player name: the replay header's players, else match_created's names."""
    players = header.get("players")
    if isinstance(players, list) and 0 <= seat < len(players) and players[seat]:
        return str(players[seat])
    names = events[0].data.get("names") if events else None
    return str(names[seat]) if isinstance(names, list) and 0 <= seat < len(names) else None


def option_words(option: dict[str, Any]) -> str:
    """An option in a few words: ``play R5``, ``play W blue``, ``draft keep``, ``challenge``."""
    kind = str(option.get("type"))
    if kind == "play":
        colour = f" {option['color']}" if option.get("color") else ""
        return f"play {option.get('card')}{colour}"
    if kind == "draft":
        return "draft keep" if option.get("keep") else "draft pass"
    if kind == "dump":
        return "dump " + " ".join(str(c) for c in option.get("cards", []))
    if kind == "color":
        return f"colour {option.get('color')}"
    return kind


def review_of_replay(text: str, match_id: str | None, seat: int, samples: int) -> dict[str, Any]:
    """The JSON review of seat ``seat`` in a replay's text (one the caller trusts, e.g. its own);
    a plain function of plain values, so that a worker process can run it."""
    from engine.review.replay_events import replay_events
    from engine.review.review import ReviewSettings, review_seat

    header, events = replay_events(text)
    review = review_seat(events, seat, ReviewSettings(samples=samples))
    return review_dict(review, match_id, player_of(header, events, seat))
