"""The Jinja2 environment of the pages and its filters (times, names, results).

One environment for the whole process: the routes render whole pages through it and the live
updates render single regions (``{% block %}`` of a template) through the same templates, so a
region looks the same whether it came with the page or arrived later. Autoescape is on for
every template: a name a player chose is text, never markup.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import jinja2

from server.schemas import StandingPublic

WEB_DIR: Final = Path(__file__).parent
TEMPLATE_DIR: Final = WEB_DIR / "templates"
STATIC_DIR: Final = WEB_DIR / "static"


def when(value: str | None, empty: str = "—") -> str:
    """An ISO 8601 moment as the pages show it: ``2026-12-07 19:30 UTC`` (``empty`` for none)."""
    if not value:
        return empty
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def format_label(value: str | None) -> str:
    """A format's name for people: ``single_elimination`` → ``single elimination``."""
    return (value or "").replace("_", " ")


def number(value: float | None) -> str:
    """A score or tie-break: whole numbers without a decimal point, halves as ``½``, others to 2 places."""
    if value is None:
        return "—"
    if value == int(value):
        return str(int(value))
    if value * 2 == int(value * 2):
        sign, whole = ("−" if value < 0 else ""), int(abs(value))
        return f"{sign}{whole or ''}½"
    return f"{value:.2f}"


TIEBREAK_NAMES: Final = {  # a tie-break's column heading and its words (docs/TOURNAMENTS.md "Standings and tie-breaks")
    "score": ("Pts", "score"),
    "match_wins": ("MW", "match wins"),
    "head_to_head": ("H2H", "head to head"),
    "buchholz": ("BH", "Buchholz"),
    "sonneborn_berger": ("SB", "Sonneborn–Berger"),
    "points_difference": ("PD", "points difference"),
    "points_conceded": ("PC", "points conceded"),
    "placement_points": ("PP", "placement points"),
    "match_points": ("MP", "match points"),
    "firsts": ("1st", "first places"),
    "lot": ("Lot", "the drawn lot"),
    "withdrawal": ("Wd", "withdrawal"),
}


def tiebreak_short(name: str) -> str:
    return TIEBREAK_NAMES.get(name, (name.replace("_", " "), ""))[0]


def tiebreak_words(name: str) -> str:
    return TIEBREAK_NAMES.get(name, ("", name.replace("_", " ")))[1]


def tiebreak_columns(rows: Iterable[StandingPublic]) -> list[str]:
    """Every tie-break the standings carry, in their order (the format's chain)."""
    return list(dict.fromkeys(name for row in rows for name in row.tiebreaks))


def path_part(value: str) -> str:
    """A name as one path segment of a URL (``/p/{name}``): every reserved character escaped."""
    return quote(value, safe="")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,  # a model field misspelt in a template fails the tests, not silently
    )
    env.filters["when"] = when
    env.filters["format_label"] = format_label
    env.filters["number"] = number
    env.filters["tiebreak_short"] = tiebreak_short
    env.filters["tiebreak_words"] = tiebreak_words
    env.filters["tiebreak_columns"] = tiebreak_columns
    env.filters["path_part"] = path_part
    return env


ENV: Final = _environment()


def render(template: str, **context: Any) -> str:
    """A whole page."""
    return ENV.get_template(template).render(**context)


def render_block(template: str, block: str, **context: Any) -> str:
    """One ``{% block %}`` of a template, alone: a live region (the whole element with its id)
    re-rendered for a new version."""
    tmpl = ENV.get_template(template)
    return "".join(tmpl.blocks[block](tmpl.new_context(dict(context))))


def render_macro(template: str, macro: str, *args: Any) -> str:
    """One macro of a template, called alone: a page's region (``_tournament.html``'s
    ``pairings_region``…) re-rendered for a live update, the same HTML the whole page holds."""
    return str(getattr(ENV.get_template(template).module, macro)(*args))
