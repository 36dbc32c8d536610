"""``unoduo``: one console script, one sub-command per job. Each sub-command lives in its own module.

Speed: a command's module is imported only when that command runs or shows its own help (measured:
``unoduo --help`` and ``unoduo play`` imported every module, with the engine, httpx and the server's
settings: 0.69 s of CPU for ``--help``; ``unoduo bench startup`` has the figures). The root's own
``--help`` lists each command by the summary in :data:`COMMANDS`, the first paragraph of the
command's help (tests/cli/test_startup.py checks that they agree).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from typing import Any, NamedTuple

import typer
import typer.main
from typer._click.core import Command, Context  # Typer's own copy of click
from typer.core import TyperCommand, TyperGroup


class Entry(NamedTuple):
    """A sub-command: its module, the sub-app in it (None: the module's ``register(app)`` adds the
    command), and its summary in ``unoduo --help``."""

    module: str
    sub_app: str | None
    summary: str


COMMANDS: dict[str, Entry] = {
    "scenario": Entry(
        "cli.scenario_cmd",
        None,
        "Run a stacked-deck scenario, or a what-if from a replay: every command answered, then every seat's"
        " view and the audit view.",
    ),
    "verify": Entry(
        "cli.verify_cmd",
        None,
        "Check the chain, the seed against its commitment, every shuffle and decision, and receipts.",
    ),
    "audit": Entry(
        "cli.audit_cmd",
        None,
        "Verify the replay, then report every Wild Draw Four challenge (the table at --at, the house bots"
        " with --bots).",
    ),
    "proof": Entry(
        "cli.proof_cmd",
        None,
        "Write the proof of one challenged Wild Draw Four or caught UNO: the public chain up to it, the"
        " challenged hand's openings and nothing else, and the verdict.",
    ),
    "replay": Entry(
        "cli.replay_cmd",
        None,
        "Scrub through a replay, event by event: the table as each seat or the auditor saw it, every Wild"
        " Draw Four challenge audited, the scores by round.",
    ),
    "review": Entry(
        "cli.review_cmd",
        None,
        "Game Review: each decision's loss in expected match points against the best option, banded"
        " (inaccuracy, mistake, blunder), the seat's accuracy and each hand's luck.",
    ),
    "web": Entry(
        "cli.web_cmd",
        None,
        "The same client as ``unoduo play``, in a browser (textual-serve): players open the address"
        " it prints on their own devices, and each browser signs in as its player.",
    ),
    "play": Entry(
        "cli.play_cmd",
        None,
        "The lobby (your matches, your next pairing, live matches to watch, a house bot to play now) and the"
        " table: your hand, the clock, the event log, every command by key or mouse.",
    ),
    "export": Entry("cli.export_cmd", None, "Write the replay file of a finished match from the database."),
    "simulate": Entry(
        "cli.simulate_cmd",
        None,
        "Bots play whole matches to the target; prints wins and hands won (95% intervals), rounds, actions, challenges, catches.",
    ),
    "serve": Entry(
        "cli.serve_cmd",
        None,
        "Serve the HTTP API: migrate the database, register the house bots, listen until Ctrl-C.",
    ),
    "bench": Entry(
        "cli.bench_cmd", "bench_app", "Benchmarks: each result a ratio against a reference run in the same process."
    ),
    "db": Entry("cli.db_cmd", "db_app", "The database: migrations, read models, chain checks."),
    "tournament": Entry(
        "cli.tournament_cmd",
        "tournament_app",
        "Tournaments on a running server (round robin, Swiss, classic at tables): create, start, follow,"
        " withdrawals, disputes, the FIDE TRF export.",
    ),
    "season": Entry(
        "cli.season_cmd",
        "season_app",
        "Seasons on a running server: tournaments grouped into one table (points by place, the best N events"
        " count), with divisions, promotion and relegation.",
    ),
    "player": Entry(
        "cli.player_cmd",
        "player_app",
        "Players on a running server: find them by name, show one, a one-time sign-in code (the director).",
    ),
    "ratings": Entry("cli.ratings_cmd", "ratings_app", "Ratings: rebuild them from the event log, list them."),
}

ROOT_HELP = "UNO Duo tournament server, rules engine and auditor tools."


def _typer() -> typer.Typer:
    """The root app's settings, for the root itself and for each command built apart (the same help)."""
    return typer.Typer(
        name="unoduo",
        help=ROOT_HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        # Help is Markdown, for every command (sub-apps take the root's mode): the docstrings' ``literal``
        # shows as code without its marks, and a [word] stays a word (Rich markup would drop it as a tag).
        rich_markup_mode="markdown",
        cls=LazyGroup,
    )


def _root() -> None:
    """UNO Duo tournament server, rules engine and auditor tools."""


def load_command(name: str) -> Command:
    """The click command ``name``, built from its module exactly as the root would build it."""
    entry = COMMANDS[name]
    module = importlib.import_module(entry.module)
    one = _typer()
    one.callback()(_root)
    if entry.sub_app is None:
        module.register(one)
    else:
        one.add_typer(getattr(module, entry.sub_app), name=name)
    return typer.main.get_group(one).commands[name]


class LazyCommands(MutableMapping[str, Command]):
    """Every name of :data:`COMMANDS`; a command is built (its module imported) when first looked up."""

    def __init__(self, own: MutableMapping[str, Command]) -> None:
        self.own = own  # what Typer registered on this group itself

    def __getitem__(self, name: str) -> Command:
        if name not in self.own:
            if name not in COMMANDS:
                raise KeyError(name)
            self.own[name] = load_command(name)
        return self.own[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self.own[name] = command

    def __delitem__(self, name: str) -> None:
        del self.own[name]

    def __iter__(self) -> Iterator[str]:
        yield from self.own
        yield from (name for name in COMMANDS if name not in self.own)

    def __len__(self) -> int:
        return len(self.own.keys() | COMMANDS.keys())

    def summary(self, name: str) -> Command | None:
        """The command if it is built, else a stand-in with its name and summary (for a listing)."""
        if name in self.own:
            return self.own[name]
        entry = COMMANDS.get(name)
        return None if entry is None else TyperCommand(name=name, help=entry.summary)


class LazyGroup(TyperGroup):
    """The root: its commands come from :data:`COMMANDS`, each imported on first use."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands(self.commands)
        self._listing = False

    def list_commands(self, ctx: Context) -> list[str]:
        return list(self.commands)

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if self._listing and isinstance(self.commands, LazyCommands):
            return self.commands.summary(cmd_name)
        return self.commands.get(cmd_name)

    def format_help(self, ctx: Context, formatter: Any) -> None:
        self._listing = True  # the listing needs each command's summary only, not its module
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = _typer()
app.callback()(_root)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
