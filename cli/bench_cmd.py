"""``unoduo bench …``: the benchmark group. Each benchmark registers itself on ``bench_app``."""

from __future__ import annotations

import typer

bench_app = typer.Typer(
    help="Benchmarks: each result a ratio against a reference run in the same process.",
    no_args_is_help=True,
)
