"""The `migrate` command line (also `torchlift migrate` and `python -m torchlift migrate`).

Parsing, file handling, printing and exit codes only; the conversion itself is
`torchlift.migrator.migrate_source`, and `--verify` is `torchlift.verify.run_verify`.

    migrate [OPTIONS] PATH...             PATH: a .py file, a directory (recursive) or - (stdin)
    migrate --verify SCRIPT [-- ARGS...]  run SCRIPT before and after migration, compare losses

Exit codes (black's): 0 done, 1 `--check` found changes, 2 usage error,
123 an input could not be processed (the other inputs still were).
"""

from __future__ import annotations

import dataclasses
import os
import sys

import click
from click.core import ParameterSource

from torchlift import __version__
from torchlift.cli.engine import Outcome, migrate_bytes, migrate_files
from torchlift.cli.report import Tally, change_log_lines, colour_diff, json_report, unified_diff
from torchlift.cli.signals import Terminated, sigterm_raises
from torchlift.cli.sources import (
    STDIN,
    SourceError,
    collect_sources,
    encode_source,
    output_path,
    write_atomic,
)
from torchlift.migrator.result import InputError, MigrationResult

TARGETS = ("runtime", "lightning", "pytorch_lightning")
EXIT_OK, EXIT_CHANGES, EXIT_USAGE, EXIT_FAILED = 0, 1, 2, 123
VERIFY_ONLY = ("steps", "rtol", "timeout", "device", "launch")
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def explain_rule(ctx: click.Context, _param, code: str | None) -> None:
    """`--explain CODE`: print what the rule means, an example, what the user can change."""
    if code is None or ctx.resilient_parsing:
        return
    from torchlift.migrator.rules import RULE_DETAILS

    rule = RULE_DETAILS.get(code.strip().upper())
    if rule is None:
        known = ", ".join(RULE_DETAILS)
        raise click.BadParameter(f"unknown rule code {code!r}; known codes: {known}")
    click.echo(rule.explain(), nl=False)
    ctx.exit(EXIT_OK)


@click.command(context_settings=CONTEXT)
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option(
    "--explain",
    metavar="CODE",
    callback=explain_rule,
    expose_value=False,
    is_eager=True,
    help="Print what rule CODE (e.g. TL107) means, an example, and what you can change.",
)
@click.option(
    "-o",
    "--output",
    metavar="PATH",
    help="Write the converted file to PATH (for a directory input: mirror the tree under PATH).",
)
@click.option("-w", "--write", is_flag=True, help="Rewrite the files in place, atomically.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any file would change.")
@click.option(
    "--target",
    type=click.Choice(TARGETS),
    default="runtime",
    show_default=True,
    help="Which package the converted script imports Lightning's API from.",
)
@click.option("--report", "report_file", metavar="FILE", help="Also write the findings as JSON.")
@click.option(
    "--html",
    "html_file",
    metavar="FILE",
    help="Also write a self-contained review page: original and conversion side by side "
    "(with --verify: and both runs' losses).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only errors on stderr.")
@click.option(
    "--color/--no-color",
    default=None,
    help="Colour the diff (default: on a terminal, unless NO_COLOR is set).",
)
@click.option(
    "-v", "--verbose", is_flag=True, help="Also report files with nothing to convert, and why."
)
@click.option(
    "--verify",
    "verify_script",
    metavar="SCRIPT",
    type=click.Path(exists=True, dir_okay=False),
    help="Run SCRIPT and its migration for a few steps and compare the losses; "
    "script arguments go after `--`.",
)
@click.option(
    "--steps",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="--verify: training steps to compare (one per backward() call).",
)
@click.option(
    "--rtol",
    type=click.FloatRange(min=0),
    default=1e-5,
    show_default=True,
    help="--verify: relative tolerance per loss.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=600.0,
    show_default=True,
    help="--verify: seconds allowed per run.",
)
@click.option("--device", default="cpu", show_default=True, help="--verify: device to run on.")
@click.option(
    "--launch",
    default="",
    metavar="COMMAND",
    help="--verify: run both scripts under this launcher, e.g. "
    "'torchrun --standalone --nproc_per_node=2' (every rank's losses are compared).",
)
@click.version_option(__version__, "--version", prog_name="torchlift")
@click.pass_context
def migrate_command(
    ctx: click.Context,
    paths,
    output,
    write,
    check,
    target,
    report_file,
    html_file,
    quiet,
    color,
    verbose,
    verify_script,
    steps,
    rtol,
    timeout,
    device,
    launch,
) -> None:
    """Convert plain PyTorch training loops to a LightningModule + Trainer.

    By default print the proposed change as a unified diff and write nothing; `-` reads the
    script from stdin and prints the converted script.
    """
    if verify_script is not None:
        if output or write or check or report_file:
            raise click.UsageError("--verify cannot be combined with -o, -w, --check or --report")
        ctx.exit(
            run_verify_command(
                verify_script,
                list(paths),
                steps=steps,
                rtol=rtol,
                target=target,
                timeout=timeout,
                device=device,
                html=html_file,
                launch=launch,
            )
        )
    for name in VERIFY_ONLY:
        if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE:
            raise click.UsageError(f"--{name} only applies with --verify SCRIPT")
    if not paths:
        raise click.UsageError("no PATH given: pass .py files, directories, or - for stdin")
    if write and output:
        raise click.UsageError("-w/--write and -o/--output are exclusive: choose one")
    if check and (write or output):
        raise click.UsageError("--check writes nothing: it cannot be combined with -w or -o")
    if output and len(paths) > 1:
        raise click.UsageError(f"-o/--output takes a single PATH to convert; got {len(paths)}")
    if output == STDIN and os.path.isdir(paths[0]):
        raise click.UsageError("-o - prints one converted file; a directory needs -o DIR")
    if report_file and not os.path.exists(os.path.dirname(os.path.abspath(report_file))):
        raise click.UsageError(f"--report {report_file}: no such directory (create it first)")
    mode = "check" if check else "write" if write else "output" if output else "diff"
    ctx.exit(
        run_migrate(
            list(paths),
            mode=mode,
            output=output,
            target=target,
            report_file=report_file,
            html_file=html_file,
            quiet=quiet,
            verbose=verbose,
            color=color,
        )
    )


def run_migrate(
    paths: list[str],
    *,
    mode: str,
    output: str | None,
    target: str,
    report_file: str | None,
    quiet: bool,
    verbose: bool = False,
    html_file: str | None = None,
    color: bool | None = None,
) -> int:
    """Migrate every PATH, print and write as `mode` says; return the exit code."""
    # -o inside an input tree: leave it out of the walk, or every run would nest one deeper
    sources, path_errors = collect_sources(paths, skip_dir=output if mode == "output" else None)
    files = [s for s in sources if s.path != STDIN]
    found_in_directory = [s.root is not None for s in files]
    # a bar only where a person watches a tree being walked (black/ruff show none on a pipe)
    progress = not quiet and any(found_in_directory) and sys.stderr.isatty()
    results = migrate_files([s.path for s in files], target, found_in_directory, progress=progress)
    outcomes = {s.path: outcome for s, outcome in zip(files, results)}
    tally = Tally()
    for error in path_errors:
        report_failure(tally, MigrationResult(error.path, "", "", error=error))
    for source in sources:
        if source.path == STDIN:
            data = click.get_binary_stream("stdin").read()
            outcome = migrate_bytes(data, STDIN, target)
        else:
            outcome = outcomes[source.path]
        result = deliver(
            outcome, source, mode=mode, output=output, quiet=quiet, verbose=verbose, color=color
        )
        if result.error is not None:
            report_failure(tally, result)
        else:
            tally.add(result)
    if not quiet:
        if any(source.root is not None for source in sources):
            click.echo(tally.table(), err=True)
        click.echo(tally.summary(would=mode in ("diff", "check")), err=True)  # last, as black
    failed = bool(tally.failed)
    if report_file:
        failed |= not write_document(report_file, "report", json_report(tally, target=target))
    if html_file:
        from torchlift.review import render_review

        page = render_review(tally.results, target=target)
        failed |= not write_document(html_file, "review page", page)
    if failed:
        return EXIT_FAILED
    if mode == "check" and tally.changed:
        return EXIT_CHANGES
    return EXIT_OK


def write_document(path: str, what: str, text: str) -> bool:
    """Write the JSON report or the review page; say so and return False if it fails."""
    try:
        write_atomic(path, text.encode("utf-8"))
    except SourceError as exc:
        click.echo(
            f"migrate: {exc.error.path}: cannot write the {what} "
            f"({exc.error.cause.removeprefix('cannot write ')})",
            err=True,
        )
        return False
    return True


def deliver(
    outcome: Outcome,
    source,
    *,
    mode: str,
    output: str | None,
    quiet: bool,
    verbose: bool = False,
    color: bool | None = None,
) -> MigrationResult:
    """Print the findings and the diff / code, write files; return the result (with the
    write error, if writing failed)."""
    result = outcome.result
    if result.error is not None:
        return result
    if not quiet:
        # What was converted and what was left alone (warnings) always; "nothing to do here"
        # notes for a file named on the command line, but for files met while walking a
        # directory only with -v, or a directory of plain modules would drown the report.
        named = source.root is None
        for finding in result.findings:
            if verbose or named or result.changed or finding.severity != "info":
                click.echo(str(finding), err=True)
    data = (
        encode_source(result.output, outcome.encoding)
        if result.changed or mode == "output"
        else None
    )
    try:
        if mode == "output" and output == STDIN:  # black's `-`: the code goes to stdout
            click.get_binary_stream("stdout").write(data)
        elif mode == "output":
            write_atomic(
                output_path(source, output),
                data,
                mode_from=None if source.path == STDIN else source.path,
            )
        elif source.path == STDIN:
            if mode != "check":  # black's `-`: the (converted) code goes to stdout
                stdout = click.get_binary_stream("stdout")
                stdout.write(
                    data if data is not None else encode_source(result.source, outcome.encoding)
                )
                stdout.flush()
        elif mode == "write" and result.changed:
            write_atomic(source.path, data)
        elif mode == "diff" and result.changed:
            if color is None and os.environ.get("NO_COLOR"):  # https://no-color.org
                color = False
            diff = colour_diff(unified_diff(result.source, result.output, source.path))
            click.echo(diff, nl=False, color=color)  # click strips colours off a non-terminal
        if verbose and not quiet:  # the change log, under the diff
            for line in change_log_lines(result):
                click.echo(line, err=True)
    except SourceError as exc:
        return dataclasses.replace(result, output=result.source, error=exc.error)
    if result.changed and not quiet:
        verb = {"check": "would change", "diff": "would change", "write": "migrated"}.get(mode)
        if verb:
            click.echo(f"{verb} {source.path}", err=True)
    return result


def report_failure(tally: Tally, result: MigrationResult) -> None:
    click.echo(f"migrate: {result.error}", err=True)
    tally.add(result)


def run_verify_command(script: str, script_args: list[str], **options) -> int:
    try:
        from torchlift.verify import run_verify

        return int(run_verify(script, script_args, out=sys.stdout, err=sys.stderr, **options))
    except NotImplementedError as exc:
        click.echo(f"migrate: --verify is not available in this build ({exc})", err=True)
        return EXIT_USAGE


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="torchlift")
def torchlift_group() -> None:
    """torchlift: migrate plain PyTorch training scripts to Lightning structure."""


torchlift_group.add_command(migrate_command, "migrate")


def invoke(command: click.Command, argv: list[str] | None, prog_name: str) -> int:
    """Run a click command like a `main(argv) -> int` function (black, pyupgrade style)."""
    try:
        with sigterm_raises():
            code = command.main(args=argv, prog_name=prog_name, standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return 130
    except Terminated:
        click.echo("Terminated.", err=True)
        return Terminated.exit_code
    return code if isinstance(code, int) else EXIT_OK


def migrate_main(argv: list[str] | None = None) -> int:
    """Entry point of the `migrate` console script."""
    return invoke(migrate_command, argv, "migrate")


def main(argv: list[str] | None = None) -> int:
    """Entry point of `torchlift` and `python -m torchlift`."""
    return invoke(torchlift_group, argv, "torchlift")


__all__ = ["main", "migrate_main", "migrate_command", "torchlift_group", "InputError"]
