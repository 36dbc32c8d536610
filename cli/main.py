"""``unoduo``: one console script, one sub-command per job. Each sub-command lives in its own module."""

from __future__ import annotations

import typer

from cli import scenario_cmd, verify_cmd

app = typer.Typer(
    name="unoduo",
    help="UNO Duo tournament server, rules engine and auditor tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """UNO Duo tournament server, rules engine and auditor tools."""


scenario_cmd.register(app)
verify_cmd.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
