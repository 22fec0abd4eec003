"""Adding a pattern is one module (and its cases): registered here from the test itself, it
needs no edit anywhere else -- not the shape, the plan, the emitter or the engine."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchlift.migrator import migrate_source, registry
from torchlift.migrator.analysis.statements import call_method
from torchlift.migrator.rule import EXAMPLE_HEADER


class DetectAnomaly:
    """`torch.autograd.set_detect_anomaly(True)` before the loop -> Trainer(detect_anomaly=True)."""

    RULES = ()

    @staticmethod
    def read(ctx, plan, steps) -> None:
        for stmt in ctx.scope_before:
            receiver = call_method(stmt, "set_detect_anomaly")
            if receiver is None:
                continue
            call = stmt.body[0].value
            if "torch.autograd.set_detect_anomaly" in ctx.call_qualnames(call) and (
                isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "True"
            ):
                plan.remove_stmts.append(stmt)
                plan.add_trainer_arg("detect_anomaly", "True")


SCRIPT = EXAMPLE_HEADER + textwrap.dedent("""
    torch.autograd.set_detect_anomaly(True)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    """)


@pytest.fixture
def detect_anomaly():
    registry.register(DetectAnomaly)
    try:
        yield
    finally:
        registry.unregister(DetectAnomaly)


def test_without_the_pattern_the_call_stays_and_no_argument_is_added():
    output = migrate_source(SCRIPT, "train.py").output
    assert "torch.autograd.set_detect_anomaly(True)" in output
    assert "detect_anomaly=True" not in output


def test_a_pattern_registered_from_outside_contributes_to_the_plan(detect_anomaly):
    result = migrate_source(SCRIPT, "train.py")
    assert result.changed
    assert (
        'L.Trainer(accelerator="cpu", devices=1, max_epochs=2, detect_anomaly=True)'
        in result.output
    )
    assert "set_detect_anomaly" not in result.output


def test_unregistering_restores_the_registry():
    assert DetectAnomaly not in registry.patterns()
    assert all(hasattr(p, "RULES") for p in registry.patterns())
