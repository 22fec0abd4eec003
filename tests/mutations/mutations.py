"""The planted bugs of `make mutate` (tests/mutations/run.py): each must make its tests fail.

A mutation either replaces one exact piece of source (it must occur exactly once, so a stale
mutation is reported, not silently skipped), or appends code to a module (used for the
migrator, whose insides are being rewritten: the mutation edits what `migrate_source`
returns, so it survives the rewrite). `tests` are pytest arguments run from the copy's root.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str  # file of the repository to change
    tests: tuple[str, ...]  # pytest arguments selecting the tests that must catch it
    old: str = ""  # replaced by `new`; empty: `new` is appended to the file
    new: str = ""


FIXTURE_EQUIVALENCE = "tests/test_fixtures.py::test_converted_script_trains_like_the_original"


def _fixtures(*cases: str) -> tuple[str, ...]:
    return (FIXTURE_EQUIVALENCE, "-k", " or ".join(cases))


def _converted_output(edit: str) -> str:
    """Code appended to the migrator's engine: migrate_source's converted output goes through
    `edit(output) -> output` (a function body over `output`, `re` imported)."""
    body = "\n".join("    " + line for line in edit.strip().splitlines())
    return f"""

import re as _mutation_re

_unmutated_migrate_source = migrate_source


def _mutate_output(output):
    re = _mutation_re
{body}


def migrate_source(*args, **kwargs):
    result = _unmutated_migrate_source(*args, **kwargs)
    if result.changed:
        result.output = _mutate_output(result.output)
    return result
"""


ENGINE = "torchlift/migrator/engine.py"
STEP = "output = self.precision_plugin.optimizer_step(optimizer, closure, after_closure, **kwargs)"

MUTATIONS = [
    Mutation(
        "optimizer step skipped (the 3rd of the run)",
        "torchlift/runtime/trainer/trainer.py",
        _fixtures("tutorial_quickstart", "regression_dict"),
        old=f"        {STEP}\n",
        new=(
            "        self._mutation_steps = getattr(self, '_mutation_steps', 0) + 1\n"
            "        if self._mutation_steps == 3:\n"
            "            output = closure()\n"
            "        else:\n"
            f"            {STEP}\n"
        ),
    ),
    Mutation(
        "configure_optimizers without its scheduler (migrator output)",
        ENGINE,
        _fixtures("official_mnist", "train_one_epoch", "research_config"),
        new=_converted_output('return re.sub(r\'\\s*"lr_scheduler": \\{[^{}]*\\},?\', "", output)'),
    ),
    Mutation(
        "loss scaled by 1.0001 (migrator output: training_step's return)",
        ENGINE,
        _fixtures("tutorial_quickstart", "autoencoder"),
        new=_converted_output(
            'return re.sub(r"(def training_step\\(.*?\\n        return )(\\w+)",'
            ' r"\\g<1>\\g<2> * 1.0001", output, count=1, flags=re.S)'
        ),
    ),
    Mutation(
        "loss scaled by 1.000001 (migrator output: training_step's return)",
        ENGINE,
        _fixtures("tutorial_quickstart", "autoencoder"),
        new=_converted_output(
            'return re.sub(r"(def training_step\\(.*?\\n        return )(\\w+)",'
            ' r"\\g<1>\\g<2> * 1.000001", output, count=1, flags=re.S)'
        ),
    ),
    Mutation(
        "set_epoch removed",
        "torchlift/runtime/strategies/strategy.py",
        ("tests/runtime/test_sampler_epoch.py",),
        old="            sampler.set_epoch(epoch)\n",
        new="            pass\n",
    ),
    Mutation(
        "optimizer state not saved in checkpoints",
        "torchlift/runtime/trainer/checkpoint.py",
        (
            "tests/runtime/test_checkpoint_resume.py",
            "-k",
            "interrupted_run_resumes or ckpt_path_last",
        ),
        old="            optimizer.state_dict() for optimizer in trainer.optimizers\n",
        new="            {**optimizer.state_dict(), 'state': {}}\n"
        "            for optimizer in trainer.optimizers\n",
    ),
    Mutation(
        "--check always exits 0",
        "torchlift/cli/__init__.py",
        ("tests/cli/test_cli_modes.py", "-k", "check"),
        old='    if mode == "check" and tally.changed:\n',
        new='    if mode == "check" and tally.changed and False:\n',
    ),
    Mutation(
        "verify compares only the first loss",
        "torchlift/verify/compare.py",
        ("tests/verify/test_compare.py",),
        old="    for index, (x, y) in enumerate(zip(a, b)):\n",
        new="    for index, (x, y) in enumerate(zip(a[:1], b[:1])):\n",
    ),
    Mutation(
        "gradient clipping disabled",
        "torchlift/runtime/trainer/trainer.py",
        _fixtures("char_rnn", "amp_autocast", "research_config"),
        old="            if automatic:\n                module.configure_gradient_clipping(\n",
        new="            if False:\n                module.configure_gradient_clipping(\n",
    ),
    # --- the ones the checks of issue 14 added --------------------------------------------
    Mutation(
        "ReduceLROnPlateau never steps",
        "torchlift/runtime/trainer/fit_loop.py",
        _fixtures("plateau"),
        old="            if update_plateau ^ config.reduce_on_plateau:\n",
        new="            if update_plateau or config.reduce_on_plateau:\n",
    ),
    Mutation(
        "an extra optimizer step after training (losses unchanged, weights not)",
        "torchlift/runtime/trainer/fit_loop.py",
        _fixtures("tutorial_quickstart", "autoencoder"),
        old='        trainer._call_hook("on_train_end")\n',
        new=(
            "        for optimizer in trainer.optimizers:\n"
            "            optimizer.step()\n"
            '        trainer._call_hook("on_train_end")\n'
        ),
    ),
    Mutation(
        "bf16 autocast off (mixed precision runs in fp32)",
        "torchlift/runtime/precision.py",
        ("tests/runtime/distributed/test_ddp_processes.py", "-k", "amp"),
        old="        return torch.autocast(self.device_type, dtype=self.dtype,"
        " cache_enabled=False)\n",
        new=(
            "        return torch.autocast(self.device_type, dtype=self.dtype, cache_enabled=False,"
            " enabled=False)\n"
        ),
    ),
    Mutation(
        "optimizer state not restored on resume",
        "torchlift/runtime/trainer/checkpoint.py",
        (
            "tests/runtime/test_checkpoint_resume.py",
            "-k",
            "mid_epoch_checkpoint_resumes_on_ours or ckpt_path_last",
        ),
        old='    states = checkpoint["optimizer_states"]\n',
        new='    states = [{**s, "state": {}} for s in checkpoint["optimizer_states"]]\n',
    ),
    Mutation(
        "diff without the missing-final-newline marker",
        "torchlift/cli/report.py",
        ("tests/cli/test_cli_modes.py", "-k", "patch or without_newline"),
        old='            lines.append(line + "\\n\\\\ No newline at end of file\\n")\n',
        new='            lines.append(line + "\\n")\n',
    ),
    Mutation(
        "the migrator leaves scripts with clipping alone (fuzz properties)",
        ENGINE,
        ("tests/fuzz/test_generated_scripts.py", "-k", "most_generated or same_losses"),
        new="""

from torchlift.migrator.result import Finding, MigrationResult

_unmutated_migrate_source = migrate_source


def migrate_source(source, path="<string>", target="runtime"):
    result = _unmutated_migrate_source(source, path, target)
    if result.changed and "clip_grad" in source:
        refusal = Finding(path, 1, 0, "TL114", "refused by a mutation", "warning")
        return MigrationResult(path, source, source, [refusal])
    return result
""",
    ),
    Mutation(
        "the migrator crashes on a syntax error (verify must not call that an input error)",
        ENGINE,
        ("tests/verify/test_verify.py", "-k", "unparsable"),
        new="""

_unmutated_migrate_source = migrate_source


def migrate_source(source, *args, **kwargs):
    if "def broken(:" in source:
        raise RuntimeError("the migrator crashed")
    return _unmutated_migrate_source(source, *args, **kwargs)
""",
    ),
]
