"""Shared pytest configuration: hypothesis profiles.

"dev"  (default)              quick, random: few examples, a fresh seed per run
"ci"   (default when CI=true) quick and derandomized: the same examples on every commit, so a
                              fuzz failure cannot surface on an unrelated change
HYPOTHESIS_PROFILE=fuzz       long and random: many examples, no time limit per example

A random profile prints its seed at the end of the session; rerun a failure with
`--hypothesis-seed=N` (or the @reproduce_failure blob hypothesis prints).
"""

import os
import random

import pytest
from hypothesis import HealthCheck, settings

# the fixtures' scripts, run once and shared by the tests reading them
pytest_plugins = ("fixture_runs",)

# Subprocess-running properties take ~1 s per example, so no per-example deadline anywhere;
# tests choose their own max_examples relative to the profile.
_COMMON = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile("dev", max_examples=25, **_COMMON)
settings.register_profile("ci", max_examples=25, derandomize=True, database=None, **_COMMON)
settings.register_profile("fuzz", max_examples=2000, **_COMMON)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or (
    "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
)
settings.load_profile(PROFILE)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # Choose the seed of a random profile here, through hypothesis's own --hypothesis-seed,
    # so that it can be printed and a failure rerun with it.
    if not settings.default.derandomize and config.getoption("hypothesis_seed", None) is None:
        config.option.hypothesis_seed = str(random.SystemRandom().randrange(2**32))


def pytest_terminal_summary(terminalreporter, config):
    # At the end, next to any failure (also under -q, which hides the session header).
    if settings.default.derandomize:
        terminalreporter.write_line(f"hypothesis: profile {PROFILE!r}, derandomized")
        return
    seed = config.getoption("hypothesis_seed", None)
    terminalreporter.write_line(
        f"hypothesis: profile {PROFILE!r}, seed {seed} (rerun with --hypothesis-seed={seed})"
    )


@pytest.fixture(autouse=True)
def _restore_environment():
    """Give every test the environment it started with. In-process runs of a trainer write
    os.environ as Lightning does (seed_everything's PL_GLOBAL_SEED, DDP's MASTER_ADDR/PORT);
    left behind, they reach the scripts later tests start: a stale MASTER_PORT hung every
    DDP fixture, and PL_GLOBAL_SEED changed the seed of an injected DistributedSampler."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)
