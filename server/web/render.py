"""The Jinja2 environment of the pages and its filters (times, names, results).

One environment for the whole process: the routes render whole pages through it and the live
updates render single regions (``{% block %}`` of a template) through the same templates, so a
region looks the same whether it came with the page or arrived later. Autoescape is on for
every template: a name a player chose is text, never markup.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import jinja2

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
    whole = int(value)
    if value == whole:
        return str(whole)
    if value * 2 == int(value * 2):
        return f"{whole}½" if whole else "½"
    return f"{value:.2f}"


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
    return env


ENV: Final = _environment()


def render(template: str, **context: Any) -> str:
    """A whole page."""
    return ENV.get_template(template).render(**context)


def render_block(template: str, block: str, **context: Any) -> str:
    """One ``{% block %}`` of a template, alone: a live region re-rendered for a new version."""
    tmpl = ENV.get_template(template)
    ctx = tmpl.new_context(dict(context))
    return "".join(tmpl.blocks[block](ctx))
