"""Hypothesis's two profiles, chosen by ``UNODUO_HYPOTHESIS_PROFILE`` (tests/conftest.py loads it).

``ci`` (what ``.ci/run`` sets): every property test runs the number of examples it names, as
written. ``dev`` (the default, for a run at a desk): a fifth of that, at least one, and a fifth
of Hypothesis's default for a test that names none. Write a count as ``examples(1500)``: it is
the CI count, and the profile scales it. Neither profile has a deadline: a slow example is no
failure.
"""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE_VARIABLE = "UNODUO_HYPOTHESIS_PROFILE"
DEV_SHARE = 5  # the dev profile runs one example in this many
CI_DEFAULT = 100  # Hypothesis's own default (100): what a test without a count runs in CI

# No deadline in either: Hypothesis's default (200 ms an example) is a time budget, and a loaded
# machine broke it (test_glicko2 and test_table_standings failed so, at 296 ms, in the fast tier).
settings.register_profile("ci", max_examples=CI_DEFAULT, deadline=None)
settings.register_profile("dev", max_examples=max(1, CI_DEFAULT // DEV_SHARE), deadline=None)


def chosen() -> str:
    """The profile named by the environment: ``ci`` or ``dev`` (the default); anything else is an error."""
    name = os.environ.get(PROFILE_VARIABLE, "dev")
    if name not in ("ci", "dev"):
        raise ValueError(f"{PROFILE_VARIABLE}={name!r}: expected 'ci' or 'dev'")
    return name


def examples(ci_count: int) -> int:
    """How many examples a property test that CI runs ``ci_count`` times runs under this profile."""
    return ci_count if chosen() == "ci" else max(1, ci_count // DEV_SHARE)
