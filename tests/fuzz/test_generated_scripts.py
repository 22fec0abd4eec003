"""Properties of the migrator over generated training scripts (tests/fuzz/script_variants.py).

Pure properties (parse, fixed point, no-torch untouched) run many examples; the one that runs
scripts in subprocesses runs a handful per profile (HYPOTHESIS_PROFILE=fuzz for many more).
"""

import ast
import os
from concurrent.futures import ThreadPoolExecutor

from hypothesis import assume, event, given, note, settings
from hypothesis import strategies as st
from script_variants import ScriptSpec, render_script, script_specs

from torchlift.migrator import migrate_source
from torchlift.verify.compare import compare_runs
from torchlift.verify.trace import run_traced

FUZZ = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
# CI budget: ~0.3 s per migration and ~3 s per pair of script runs on a free core. Long runs
# can size themselves: TORCHLIFT_FUZZ_PURE / TORCHLIFT_FUZZ_RUN examples per property.
PURE_EXAMPLES = int(os.environ.get("TORCHLIFT_FUZZ_PURE", 3000 if FUZZ else 25))
RUN_EXAMPLES = int(os.environ.get("TORCHLIFT_FUZZ_RUN", 300 if FUZZ else 6))


def migrate(source: str, target: str = "runtime"):
    result = migrate_source(source, path="train.py", target=target)
    assert result.error is None, f"valid script rejected: {result.error}"
    return result


@settings(max_examples=PURE_EXAMPLES)
@given(spec=script_specs())
def test_output_parses_and_migrating_again_changes_nothing(spec: ScriptSpec):
    source = render_script(spec)
    note(source)
    result = migrate(source)
    event("converted" if result.changed else f"left alone: {_codes(result)}")
    if not result.changed:
        assert result.output == source
        assert any(f.severity == "warning" for f in result.findings), "unconverted, no reason"
        return
    note(result.output)
    ast.parse(result.output)
    again = migrate(result.output)
    assert again.output == result.output, "migrate(migrate(x)) != migrate(x)"


@settings(max_examples=PURE_EXAMPLES)
@given(spec=script_specs())
def test_training_code_without_torch_comes_back_byte_identical(spec: ScriptSpec):
    # The same script over a look-alike package: names only resolve to torch when imported
    # from torch, so nothing here is a PyTorch training loop.
    source = render_script(spec).replace("torch", "tensorlib")
    result = migrate(source)
    assert result.output == source and not result.changed


@settings(max_examples=PURE_EXAMPLES // 3)
@given(spec=script_specs())
def test_targets_differ_only_in_the_import_line(spec: ScriptSpec):
    source = render_script(spec)
    runtime = migrate(source).output
    for target, line in [
        ("lightning", "import lightning.pytorch as L"),
        ("pytorch_lightning", "import pytorch_lightning as L"),
    ]:
        other = migrate(source, target).output
        assert other == runtime.replace("import torchlift.runtime as L", line)


# Shapes the generator makes that the migrator still refuses (TL114: accumulation combined with
# clipping, a running loss, an epoch scheduler, main() ...). Only these may be left alone; the
# properties that compare training runs discard them (so every example they count compares
# two runs), and at least MIN_CONVERTED of a fixed sample must convert (53% of it does at the
# time of writing: raise the bar as the gaps close).
KNOWN_GAPS = {"TL114": lambda spec: spec.accumulation > 1}
MIN_CONVERTED = 0.5
SHARE_SAMPLE = 60


def _left_alone_for_a_known_gap(spec: ScriptSpec, result) -> bool:
    codes = {f.code for f in result.findings if f.severity == "warning"}
    return bool(codes) and all(code in KNOWN_GAPS and KNOWN_GAPS[code](spec) for code in codes)


def test_most_generated_scripts_convert():
    outcomes = []

    @settings(max_examples=SHARE_SAMPLE, derandomize=True, database=None)
    @given(spec=script_specs())
    def migrate_one(spec):
        result = migrate(render_script(spec))
        outcomes.append(result.changed)
        assert result.changed or _left_alone_for_a_known_gap(
            spec, result
        ), f"a script that must convert was left alone: {_codes(result)}\n{render_script(spec)}"

    migrate_one()
    share = sum(outcomes) / len(outcomes)
    assert share >= MIN_CONVERTED, f"only {share:.0%} of {len(outcomes)} generated scripts convert"


def _run_pair(tmp_path, original: str, converted: str, python_runs):
    paths = []
    for name, code in [("original", original), ("converted", converted)]:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "train.py").write_text(code)
        paths.append(folder / "train.py")
    # one thread per script: two runs share the machine, and thread counts change float sums
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")

    def run(path):  # forked as the fixture runs are (tests/fixture_runs.py)
        live = python_runs.live(False, path.parent.with_name(path.parent.name + ".streams"))
        return run_traced(
            path, cwd=path.parent, env=env, params=True, timeout=240, seed=0, live=live
        )

    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(run, paths))
    return runs


@settings(max_examples=RUN_EXAMPLES)
@given(spec=script_specs())
def test_converted_script_trains_with_the_same_losses(
    spec: ScriptSpec, tmp_path_factory, python_runs
):
    source = render_script(spec)
    result = migrate(source)
    if not result.changed:
        # left alone is allowed only for a known gap; such an example compares nothing, so it
        # does not count: hypothesis draws another
        assert _left_alone_for_a_known_gap(spec, result), f"left alone: {_codes(result)}"
        assume(False)
    note(result.output)
    original, converted = _run_pair(
        tmp_path_factory.mktemp("pair"), source, result.output, python_runs
    )
    assert original.ok and original.losses, original.stderr[-2000:]
    assert converted.ok, f"converted script failed:\n{converted.stderr[-3000:]}"
    comparison = compare_runs(original, converted, rtol=1e-5)
    assert comparison.equal, (
        f"{comparison.outcome} at step {comparison.step}: {comparison.detail}\n"
        f"original  {original.losses}\nconverted {converted.losses}"
    )


def _codes(result) -> str:
    return ",".join(sorted({f.code for f in result.findings if f.severity == "warning"}))


@st.composite
def mutated_scripts(draw) -> str:
    """A generated script with a few lines deleted, duplicated or moved: odd shapes (a missing
    zero_grad, a step before backward, a statement after the loop) that still parse."""
    lines = render_script(draw(script_specs())).splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "move"]))
        if action == "delete":
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        else:
            j = draw(st.integers(0, len(lines) - 1))
            lines.insert(j, lines.pop(i))
    return "".join(lines)


@settings(max_examples=PURE_EXAMPLES)
@given(source=mutated_scripts())
def test_mutated_scripts_never_raise_and_output_is_a_fixed_point(source):
    try:
        compile(source, "train.py", "exec")
    except SyntaxError:
        assume(False)
    note(source)
    result = migrate(source)
    event("converted" if result.changed else f"left alone: {_codes(result)}")
    if result.changed:
        note(result.output)
        compile(result.output, "train.py", "exec")
        assert migrate(result.output).output == result.output, "not a fixed point"


@settings(max_examples=RUN_EXAMPLES)
@given(source=mutated_scripts())
def test_a_mutated_script_is_converted_only_if_it_trains_the_same(
    source, tmp_path_factory, python_runs
):
    # A deleted zero_grad or a step moved before backward changes training; a migrator that
    # converts such a loop anyway (the Trainer restores the usual order) loses the user's
    # behaviour, so it must leave the loop alone instead.
    try:
        compile(source, "train.py", "exec")
    except SyntaxError:
        assume(False)
    result = migrate(source)
    event("converted" if result.changed else "left alone")
    if not result.changed:
        return
    note(source)
    note(result.output)
    original, converted = _run_pair(
        tmp_path_factory.mktemp("pair"), source, result.output, python_runs
    )
    if not (original.ok and original.losses):
        event("original does not train")
        return
    assert converted.ok, f"converted script failed:\n{converted.stderr[-3000:]}"
    comparison = compare_runs(original, converted, rtol=1e-5)
    assert comparison.equal, (
        f"{comparison.outcome} at step {comparison.step}: {comparison.detail}\n"
        f"original  {original.losses}\nconverted {converted.losses}"
    )
