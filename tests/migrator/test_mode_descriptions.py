"""The modes TL147 / TL148 name in their messages (patterns/step_modes.py's _describe)."""

from torchlift.migrator.analysis.model_modes import TRAIN, Mode, called, settle
from torchlift.migrator.patterns.step_modes import _describe


def test_a_call_the_tracer_cannot_look_into_is_named_once():
    mode = called("model.encode(x)", Mode(TRAIN), None)
    assert _describe(mode) == "the mode `model.encode(x)` leaves it in"


def test_calls_repeated_at_each_step_are_named_once_each_in_order():
    # heldout26 Umar Jamil transformer: every step calls encode / decode / project; settled
    # twice (the batch loop, then the epochs) the term nests, its message must not
    def step(entry: Mode) -> Mode:
        for code in ("model.encode(x)", "model.decode(h)", "model.project(h)"):
            entry = called(code, entry, None)
        return entry

    batches = settle(step, step(Mode(TRAIN)))
    epochs = settle(step, step(batches))
    said = _describe(epochs)
    assert said == (
        "the mode the calls repeated at each step (`model.encode(x)`, `model.decode(h)`, "
        "`model.project(h)`) leave it in"
    )
