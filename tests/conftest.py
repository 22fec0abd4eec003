"""Shared pytest configuration: hypothesis profiles.

(default) "ci"   quick: few examples, so the whole suite stays within CI's budget
HYPOTHESIS_PROFILE=fuzz   long runs: many examples, no time limit per example
"""

import os

from hypothesis import HealthCheck, settings

# Subprocess-running properties take ~1 s per example, so no per-example deadline anywhere;
# tests choose their own max_examples relative to the profile via `fuzz_examples`.
settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    "fuzz",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
