"""`migrate --verify`: prove that a migration kept training behaviour.

Contract with the CLI (torchlift/cli calls exactly this):

    run_verify(script, script_args, *, steps=20, rtol=1e-5, target="runtime", timeout=600.0,
               device="cpu", out=sys.stdout, err=None, html=None, launch="") -> int   # exit code

`html`, a path: also write the review page with both runs' losses (after the runs).
`err` receives the one-line usage and input errors (the CLI passes stderr); it defaults to `out`.
`launch`: a launcher both scripts run under (`torchrun --standalone --nproc_per_node=2`).
Every rank's losses are compared (trace/). A distributed script (mp.spawn, a process group, a
launcher) runs after the other, not beside it: a port the original fixes for its process
group must be free when the converted script starts its own.

It converts SCRIPT in memory, runs the original and the converted code side by side in
temporary copies of the script's folder (see workspace.py) with the backward trace installed
(trace/), for `steps` training steps (calls of backward), with the same seeds, and compares
every loss and the final value of every trained tensor. Exit codes: 0 equal within rtol,
1 anything else (diverged, a run failed or timed out, nothing to verify), 2 a bad option,
123 the script could not be read or parsed.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
import tokenize
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TextIO

from torchlift.verify.compare import Comparison, compare_runs
from torchlift.verify.diagnose import error_line, needs_network, stderr_tail
from torchlift.verify.table import format_table
from torchlift.verify.trace import LiveRuns, TracedRun, launcher_args, run_traced
from torchlift.verify.workspace import make_run_dir
from torchlift.verify.workspace import run_env as workspace_env

EXIT_EQUAL, EXIT_DIFFERENT, EXIT_USAGE, EXIT_INPUT = 0, 1, 2, 123
TARGETS = ("runtime", "lightning", "pytorch_lightning")
SEED = 0  # torch, numpy and `random` start from this in both runs (the script may reseed)


def run_verify(
    script: str,
    script_args: list[str] | tuple[str, ...] = (),
    *,
    steps: int = 20,
    rtol: float = 1e-5,
    target: str = "runtime",
    timeout: float = 600.0,
    device: str = "cpu",
    out: TextIO = sys.stdout,
    err: TextIO | None = None,
    html: str | None = None,
    launch: str = "",
) -> int:
    said: list[str] = []

    def say(text: str = "") -> None:
        said.append(text)
        print(text, file=out, flush=True)

    def complain(text: str) -> None:
        print(text, file=out if err is None else err, flush=True)

    path = Path(script)
    problem = check_options(path, steps, rtol, target, timeout, device)
    try:
        launcher = launcher_args(launch)
    except ValueError as exc:
        problem = problem or f"--launch: {exc}"
    if problem:
        complain(f"migrate --verify: {problem}")
        return EXIT_USAGE
    loaded = read_script(path)
    if isinstance(loaded, str):
        complain(f"migrate --verify: {loaded}; nothing to verify")
        return EXIT_INPUT
    source_bytes, text, encoding = loaded
    result = convert(text, str(path), target)
    if isinstance(result, str):
        complain(f"migrate --verify: {result}")
        return EXIT_INPUT
    if result.error is not None:
        complain(f"migrate --verify: {result.error}; nothing to verify")
        return EXIT_INPUT
    say(
        f"migrate --verify {path.name}: target {target}, device {device}, "
        f"up to {steps} training steps, rtol {rtol:g}"
    )
    if not result.changed:
        say(explain_unchanged(result))
        return EXIT_DIFFERENT
    for finding in result.findings:
        say(f"  {finding}")
    env, hide_gpus = run_environment(device)
    with tempfile.TemporaryDirectory(prefix="torchlift-verify-") as tmp:
        original_script = make_run_dir(Path(tmp), "original", path.resolve(), "")
        original_script.write_bytes(source_bytes)  # byte for byte, whatever its encoding
        converted_script = make_run_dir(Path(tmp), "converted", path.resolve(), "")
        converted_script.write_bytes(result.output.encode(encoding))
        say(f"  running the original and the converted script (timeout {timeout:g} s each)...")
        started = time.monotonic()
        live = LiveRuns()
        workers = 1 if launcher or is_distributed(text) else 2
        with ThreadPoolExecutor(max_workers=workers) as pool:
            runs = [
                pool.submit(
                    run_traced,
                    script_path,
                    list(script_args),
                    steps=steps,
                    cwd=script_path.parent,
                    env={**env, **workspace_env(script_path.parent, path.resolve())},
                    timeout=timeout,
                    params=True,
                    seed=SEED,
                    hide_gpus=hide_gpus,
                    live=live,
                    launcher=launcher,
                )
                for script_path in (original_script, converted_script)
            ]
            try:
                original, converted = [run.result() for run in runs]
            except BaseException:  # Ctrl-C, SIGTERM: end both runs now, so that leaving the
                live.stop_all()  # `with` blocks joins their threads and removes the folders
                raise
        say(f"  done in {time.monotonic() - started:.1f} s")
    say()
    code = report(original, converted, path.name, steps, rtol, timeout, say)
    if html is not None:
        verdict = next((line for line in reversed(said) if line.startswith("verdict")), "")
        write_review_page(Path(html), result, original, converted, verdict.split("\n")[0])
        say(f"review page: {html}")
    return code


def is_distributed(text: str) -> bool:
    """The script starts processes or a process group of its own."""
    return bool(re.search(r"\b(init_process_group|spawn|DistributedDataParallel)\b", text))


def write_review_page(page: Path, result, original: TracedRun, converted: TracedRun, verdict):
    """`--verify --html PAGE`: the conversion beside the original, with both loss curves."""
    from torchlift.review import LossTrace, render_review

    trace = LossTrace(original.losses, converted.losses, verdict.removeprefix("verdict: "))
    text = render_review([result], traces={result.path: trace})
    partial = page.with_name(f".{page.name}.{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, page)  # whole or not at all


def check_options(path: Path, steps, rtol, target, timeout, device) -> str | None:
    """A one-line description of a bad argument, or None."""
    if not path.is_file():
        return f"{path}: no such file (expected the training script to verify)"
    if not isinstance(steps, int) or steps < 1:
        return f"--steps must be a positive integer, got {steps!r}"
    if not rtol >= 0:
        return f"--rtol must be a number >= 0, got {rtol!r}"
    if not timeout > 0:
        return f"--timeout must be a number of seconds > 0, got {timeout!r}"
    if target not in TARGETS:
        return f"--target must be one of {', '.join(TARGETS)}, got {target!r}"
    if not re.fullmatch(r"cpu|cuda(:\d+)?", device):
        return f"--device must be cpu, cuda or cuda:N, got {device!r}"
    if device != "cpu":
        import torch

        if not torch.cuda.is_available():
            return f"--device {device}: no CUDA device is available here; use --device cpu"
    return None


def read_script(path: Path):
    """(bytes, text, encoding), or a one-line reason it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror or exc})"
    try:
        encoding, _ = tokenize.detect_encoding(iter(data.splitlines(keepends=True)).__next__)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        return f"{path}:1: cannot decode ({exc})"
    return data, text, "utf-8" if encoding == "utf-8-sig" else encoding


def convert(text: str, path: str, target: str):
    """The MigrationResult, or a one-line description of a migrator failure."""
    try:
        from torchlift.migrator import migrate_source

        return migrate_source(text, path=path, target=target)
    except Exception as exc:  # a migrator bug must not become a traceback for the user
        return f"{path}: internal error in the migrator ({type(exc).__name__}: {exc}); please report it"


def explain_unchanged(result) -> str:
    warnings = [f for f in result.findings if getattr(f, "severity", "") == "warning"]
    if warnings:
        lines = ["verdict: nothing to verify - migrate leaves the script unchanged:"]
        lines += [f"  {finding}" for finding in warnings]
        return "\n".join(lines)
    reasons = [f"  {finding}" for finding in result.findings]
    return "\n".join(
        ["verdict: nothing to verify - migrate found no training loop to convert", *reasons]
    )


def run_environment(device: str) -> tuple[dict[str, str], bool]:
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"  # same set/dict ordering of strings in both runs
    env.setdefault("PYTHONUNBUFFERED", "1")
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
        return env, True
    if ":" in device:
        env["CUDA_VISIBLE_DEVICES"] = device.split(":", 1)[1]
    return env, False


def report(original: TracedRun, converted: TracedRun, name, steps, rtol, timeout, say) -> int:
    """Print the table and the verdict for two finished runs; return the exit code."""
    failure = explain_failure("original", original, name, steps, timeout)
    if failure:
        if original.losses:
            say(format_table(original.losses, converted.losses, rtol))
            say()
        say(failure)
        return EXIT_DIFFERENT
    if not original.imported_torch or not original.losses:
        say(explain_no_backward(original, name))
        return EXIT_DIFFERENT
    say(format_table(original.losses, converted.losses, rtol))
    say()
    failure = explain_failure("converted", converted, name, steps, timeout)
    if failure:
        say(failure)
        return EXIT_DIFFERENT
    comparison = compare_runs(original, converted, rtol)
    say(explain_comparison(comparison, rtol))
    return EXIT_EQUAL if comparison.equal else EXIT_DIFFERENT


def explain_failure(which: str, run: TracedRun, name, steps, timeout) -> str | None:
    if run.timed_out:
        return (
            f"verdict: the {which} script timed out - it recorded {len(run.losses)} of {steps} "
            f"training steps in {timeout:g} s; raise --timeout or lower --steps"
        )
    if run.returncode == 0:
        return None
    network = needs_network(run.stderr)
    if network:
        return (
            f"verdict: the {which} script failed while downloading ({network}).\n"
            f"  --verify never substitutes data: download it once (run `python {name}` with "
            "network access, or put the files where the script looks for them, next to it), "
            "then run `migrate --verify` again; files in the script's folder are used as they are."
        )
    what = f"exit code {run.returncode}" if run.returncode > 0 else f"signal {-run.returncode}"
    return (
        f"verdict: the {which} script failed ({what}) after {len(run.losses)} training steps: "
        f"{error_line(run.stderr)}\n{stderr_tail(run.stderr)}"
    )


def explain_no_backward(run: TracedRun, name) -> str:
    if not run.imported_torch:
        return (
            f"verdict: nothing to verify - {name} ran to the end without importing torch, "
            "so it trained nothing"
        )
    return (
        f"verdict: nothing to verify - {name} ran to the end without calling backward(); "
        "--verify compares the loss of each training step, so the script must train "
        "(check the arguments after `--`, e.g. an epochs or mode flag)"
    )


def explain_comparison(comparison: Comparison, rtol: float) -> str:
    steps = comparison.steps
    if comparison.outcome == "identical":
        extra = f" ({comparison.detail})" if comparison.detail else ""
        return f"verdict: identical - all {steps} losses match bit for bit{extra}"
    if comparison.outcome == "close":
        extra = f"; {comparison.detail}" if comparison.detail else ""
        return (
            f"verdict: equal within rtol {rtol:g} - {steps} losses, max relative difference "
            f"{comparison.max_rel:.2e}{extra}"
        )
    if comparison.step is not None:
        return f"verdict: diverged at step {comparison.step} - {comparison.detail}"
    return f"verdict: diverged - all {steps} losses match but {comparison.detail}"


__all__ = ["run_verify"]
