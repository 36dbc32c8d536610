"""``unoduo``: one console script, one sub-command per job. Each sub-command lives in its own module."""

from __future__ import annotations

import typer

from cli import (
    audit_cmd,
    export_cmd,
    play_cmd,
    proof_cmd,
    replay_cmd,
    scenario_cmd,
    serve_cmd,
    simulate_cmd,
    verify_cmd,
    web_cmd,
)
from cli.bench_cmd import bench_app
from cli.db_cmd import db_app
from cli.player_cmd import player_app
from cli.ratings_cmd import ratings_app
from cli.tournament_cmd import tournament_app

app = typer.Typer(
    name="unoduo",
    help="UNO Duo tournament server, rules engine and auditor tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Help is Markdown, for every command (sub-apps take the root's mode): the docstrings' ``literal``
    # shows as code without its marks, and a [word] stays a word (Rich markup would drop it as a tag).
    rich_markup_mode="markdown",
)


@app.callback()
def _root() -> None:
    """UNO Duo tournament server, rules engine and auditor tools."""


scenario_cmd.register(app)
verify_cmd.register(app)
audit_cmd.register(app)
proof_cmd.register(app)
replay_cmd.register(app)
web_cmd.register(app)
play_cmd.register(app)
export_cmd.register(app)
simulate_cmd.register(app)
serve_cmd.register(app)
app.add_typer(bench_app, name="bench")
app.add_typer(db_app, name="db")
app.add_typer(tournament_app, name="tournament")
app.add_typer(player_app, name="player")
app.add_typer(ratings_app, name="ratings")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
