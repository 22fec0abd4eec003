"""What an evaluation pass computed is logged under the script's own name (issue 10, item 5):
a `ModelCheckpoint(monitor=<that name>)` added to a converted fixture finds its metric and
keeps a best checkpoint, on the runtime and on real Lightning.

The checkpoint callback is added to the Trainer call of the converted script as a user would
(`callbacks=[L.callbacks.ModelCheckpoint(monitor=...)]`); the script then prints the best
score it kept, which must be the value the script printed for its best epoch.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from fixture_runs import traced

from torchlift.migrator import migrate_source

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"

# fixture -> (the logged validation metric, mode, the printed value's pattern)
MONITORED = {
    "dropout_eval_without_eval_mode": ("val_loss", "min", r"val_loss ([0-9.]+)"),
    "validation_writes_predictions_file": ("val_acc", "max", r"val_acc=([0-9.]+)"),
    # a printed expression logged under its label; counters (correct, seen) are not logged
    "eval_smoke_test_break": ("val_loss", "min", r"val_loss=([0-9.]+)"),
    "phase_loop_grad_around_forward": ("valid_mean_loss", "min", r"valid: mse ([0-9.]+)"),
}


@pytest.mark.parametrize("target", ["runtime", "lightning"])
@pytest.mark.parametrize("case", sorted(MONITORED))
def test_model_checkpoint_finds_the_logged_validation_metric(case, target, tmp_path, python_runs):
    metric, mode, printed = MONITORED[case]
    source = (FIXTURES / case / "input.py").read_text()
    result = migrate_source(source, path=f"{case}.py", target=target)
    assert result.changed, [str(f) for f in result.findings]
    callback = (
        f'callbacks=[L.callbacks.ModelCheckpoint(monitor="{metric}", mode="{mode}", '
        'dirpath="best")], '
    )
    script = result.output.replace("L.Trainer(", "L.Trainer(" + callback, 1)
    assert callback in script
    script += "\nprint('BEST', trainer.checkpoint_callback.best_model_score.item())\n"
    (tmp_path / "train.py").write_text(script)
    run = python_runs.run_python(tmp_path / "train.py", _env(), lightning=target == "lightning")
    assert run.returncode == 0, run.stderr[-3000:]
    values = [float(v) for v in re.findall(printed, run.stdout)]
    best = float(re.search(r"BEST ([-0-9.e]+)", run.stdout).group(1))
    expected = min(values) if mode == "min" else max(values)
    assert values and best == pytest.approx(expected, abs=1e-3)
    assert list((tmp_path / "best").glob("*.ckpt")), "no best checkpoint written"


# fixture -> what its evaluation prints (every one, in order; the progress bar may share a line)
PRINTED = {
    "counter_bar_dict_batches_output_loss": r"eval accuracy [^\r\n]*",
    "epoch_end_eval_on_whole_tensors": r"epoch \d+: test rmse [^\r\n]*|top items [^\r\n]*",
    "backward_on_mean_of_per_sample_losses": r"epoch \d+: \d+ samples above the margin",
    # the rate the epoch trained with, printed before the script's scheduler step
    "epoch_rate_printed_before_scheduler_step": r"Epoch \d+: loss [^\r\n]*",
    # the rate ReduceLROnPlateau left, printed after the script's step (which stays in place)
    "plateau_rate_printed_after_step": r"Epoch \d+ \| [^\r\n]*",
    # a model training itself: its fit() returns the history the script prints
    "model_fit_method_keras_style": r"Epoch \d+/2 [^\r\n]*|validation accuracy[^\r\n]*|history:[^\r\n]*",
    # the validation loss averaged by the pass's own last index, read after the pass
    "valid_index_read_after_pass": r"LOSS train [^\r\n]*|  batch \d+ loss[^\r\n]*",
    # the epoch's training line before the validation pass's per-batch lines, as the script
    "train_line_before_validation_prints": r"(?:TRAIN|VALID) [^\r\n]*",
    # evaluated in full precision under a bf16 training autocast, as the script did
    "bf16_training_full_precision_validation": r"epoch \d+: val loss [^\r\n]*",
    # a line written through the bound bar (tqdm.write once converted), then the history line
    "kaggle_bar_over_enumerate_in_helper": r"epoch \d+ trained|Epoch \d+: train [^\r\n]*",
    # the global step and average loss the epoch bar's loop counted
    "trange_epoch_iterator_hf_style": r"global_step = [^\r\n]*",
    # the book's progress lines from the step, the test accuracy, the summary after fit
    "d2l_try_gpu_train_function": r"epoch [0-9.]+, [^\r\n]*|loss [0-9.]+, train acc [^\r\n]*",
    # the frozen teacher and the student evaluated after fit, both on the script's device
    "distill_frozen_teacher_evaluated_after": r"epoch \d+: kd loss [^\r\n]*|(?:teacher|student) acc [^\r\n]*",
    # the device choice's own print (its if/else kept whole), the epochs, the eval after fit
    "notebook_device_choice_reported": r"Training on GPU\.|No GPU available[^\r\n]*|"
    r"Epoch \d+/2 loss [^\r\n]*|evaluating on [^\r\n]*|sample [^\r\n]*",
    "predict_after_fit_in_eval_mode": r"epoch \d+ val loss [^\r\n]*|predictions [^\r\n]*",
    # samples decoded after the eval-mode test pass: dropout off, as the script ran them
    "vae_samples_after_eval_mode_test": r"====> Test set loss[^\r\n]*|sample mean [^\r\n]*",
    "char_rnn_star_example_hand_update": r"iter \d+ avg loss [^\r\n]*",
    # once per step, before the closure and after the step, however often LBFGS evaluates it
    "lbfgs_closure_curve_fit": r"step \d+|  held-out mse [^\r\n]*",
    "eval_every_n_steps_checkpoint": r"epoch \d+ step \d+ [^\r\n]*",
    "dropout_eval_without_eval_mode": r"epoch \d+ val_loss [^\r\n]*",
    "validation_writes_predictions_file": r"epoch \d+: val_acc=[^\r\n]*",
    # one batch per evaluation pass (limit_val_batches / limit_test_batches): same numbers
    "eval_smoke_test_break": r"epoch \d+: val_loss=[^\r\n]*|test_acc=[^\r\n]*",
    # both phases' epoch lines, each from its own accumulators, in the script's order
    "phase_loop_best_weights": r"(?:train|val) +loss [^\r\n]*",
    "phase_loop_grad_around_forward": r"epoch \d+ (?:train|valid): mse [^\r\n]*",
    # the same, loops over dataloaders["train"] / ["val"]; the batch count read from the dict
    "keyed_loaders_train_model_best_weights": (
        r"(?:train|val) Loss: [^\r\n]*|  \d+ batches of \d+|Best val Acc: [^\r\n]*|predicted: [^\r\n]*"
    ),
    # a sampling helper reaching the model through another helper, after the optimizer step
    "diffusion_sample_after_step": r"sample mean [^\r\n]*",
    # the epoch lines, the stopper's counter and the stop, at the same epochs
    # an evaluation over range(...) numbers: the same loss per token each epoch
    "bptt_range_evaluate": r"end of epoch +\d+ \| valid loss [^\r\n]*|best valid loss [^\r\n]*",
    # the same, the mask built from an int handed to a helper; from an args namespace it reads
    "transformer_mask_from_bptt": r"end of epoch +\d+ \| valid loss [^\r\n]*|best valid loss [^\r\n]*",
    "transformer_args_read_by_helper": (
        r"epoch \d+: context [^\r\n]*|end of epoch +\d+ \| valid loss [^\r\n]*|best valid loss [^\r\n]*"
    ),
    # the same, the LSTM's hidden state carried across the evaluation's batches
    "bptt_lstm_evaluate_hidden": r"end of epoch +\d+ \| valid loss [^\r\n]*|best valid loss [^\r\n]*",
    "lm_eval_mode_windows_in_epoch": r"epoch \d+: val loss [^\r\n]*",
    "early_stopping_class_checkpoint": (
        r"\[\d+/\d+\] train_loss[^\r\n]*|EarlyStopping counter[^\r\n]*|Early stopping"
    ),
    # an EMA copy evaluated in the mode the script gave it; its weights saved after training
    "ema_averaged_model_own_eval_mode": r"epoch \d+: loss [^\r\n]*",
    "ema_averaged_model_evaluate_helper": r"epoch \d+ train mse [^\r\n]*",
    "ema_frozen_copy_eval_with_model": r"epoch \d+: val [^\r\n]*",
    # the model, then its EMA copy: two passes over one loader, two validation dataloaders
    "ema_copy_second_evaluation": r"epoch \d+: acc [^\r\n]*",
    "ema_two_val_passes_state_dict_update": r"epoch \d+: loss [^\r\n]*",
    # lines printed after the optimizer step: the clipped norm, the new learning rate, the
    # weights evaluated after the (accumulated) step
    "clip_grad_norm_printed_after_step": r"Train Epoch: [^\r\n]*|Epoch \d+: mean [^\r\n]*",
    "accumulation_update_counter_logs_grad_norm": r"\| epoch [^\r\n]*|done: [^\r\n]*",
    "accumulation_eval_every_k_updates": r"iter \d+: [^\r\n]*",
    # DDP: each rank's shard evaluated, the counters all-reduced, printed by rank 0 only
    "ddp_torchrun_eval_all_reduce": r"epoch \d+: train loss [^\r\n]*",
    "ddp_spawn_sharded_validation": r"epoch \d+: val_mse=[^\r\n]*",
    # rank 0 alone evaluates `model.module` over a loader the Trainer never sees
    "ddp_spawn_rank0_evaluates_module": r"epoch \d+ train_loss [^\r\n]*",
    # loops over training runs, one fit per iteration: every run's score and the summary
    "kfold_subset_per_fold": r"fold \d+: val mse [^\r\n]*|cv mse [^\r\n]*",
    "kfold_sampler_best_fold_score": r"fold \d+[ :][^\r\n]*|cv accuracy [^\r\n]*",
    "seed_lr_sweep_in_main": r"seed \d+ lr [^\r\n]*|best run: [^\r\n]*",
    # an experiment class created per repetition: each run's epochs, its early stop and rates,
    # its test metrics (saved as .npy too) after the best checkpoint is reloaded
    "tsf_exp_select_optimizer_per_itr": (
        r">>>>>>>[^\r\n]*|Epoch: \d+, Steps[^\r\n]*|EarlyStopping counter[^\r\n]*|Early stopping"
        r"|Updating learning rate[^\r\n]*|mse:[^\r\n]*"
    ),
    "kfold_train_fold_function": r"fold \d+: acc [^\r\n]*",
    # losses printed in the step of two modules zeroed one by one (patterns/module_zero_grad.py)
    "module_zero_grad_encoder_decoder": r"epoch \d+ step \d+ loss [^\r\n]*",
    # a step helper reading the module's global model and optimizer, reused for evaluation
    # after the step and after training
    "global_optimizer_fwd_pass_helper": r"epoch \d+ batch \d+: [^\r\n]*|Epoch: [^\r\n]*|test acc [^\r\n]*",
    # the Annotated Transformer's run_epoch: the TrainState its def built counts on across
    # epochs; the step lines (not their timing), the evaluation and the decoded sequence
    "run_epoch_default_train_state_shared": (
        r"Epoch Step: +\d+ \| Accumulation Step: +\d+ \| Loss: +[0-9.]+|Learning Rate: [^\r\n]*"
        r"|train state: [^\r\n]*|epoch \d+ \| eval loss per token [^\r\n]*|decoded: [^\r\n]*"
    ),
    # tqdm.auto bars' extra loader iterators (patterns/bar_draws.py): the shuffled validation
    # batches, the workers' noise, the test pass and the generator's state after it
    "kaggle_tqdm_auto_train_and_valid_bars": r"epoch \d+: train [^\r\n]*|best acc [^\r\n]*",
    "tqdm_auto_bars_in_helpers_with_workers": (
        r"epoch \d+: train [^\r\n]*|test accuracy [^\r\n]*|next draw [^\r\n]*"
    ),
    # a test pass whose setup draws, left as written after `fit` (patterns/eval_passes.py)
    "test_pass_noise_drawn_before_it_kept_as_written": (
        r"test accuracy under jitter [^\r\n]*|next draw [^\r\n]*"
    ),
    # a per-epoch bar around the batch loop only (Pytorch-UNet): the epoch's loss and dice
    "unet_epoch_bar_around_batch_loop": r"epoch \d+: train loss [^\r\n]*",
    # the bar's write handed on in a lambda: the examples and accuracy it writes (tqdm.write)
    "bar_write_handed_on_in_a_lambda": (
        r"(?:SOURCE|TARGET|PREDICTED): [^\r\n]*|token accuracy [^\r\n]*|trained \d+ steps"
    ),
    # the model put back after fit under its other name: evaluated and sampled through it
    "model_alias_generates_after_fit": r"step \d+: loss [^\r\n]*|val loss [^\r\n]*|sample: [^\r\n]*",
    # the validation counter's closing line, printed on the K-th example only
    "val_counter_break_closing_line": (
        r"(?:TARGET|PREDICTED): [^\r\n]*|(?<!-)-{30}(?!-)|epoch \d+ done[^\r\n]*"
    ),
}


def _env() -> dict[str, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _run(script: str, folder: Path, python_runs, lightning: bool = False) -> str:
    """`python train.py` in `folder`, forked as the fixture runs are (tests/fixture_runs.py)."""
    folder.mkdir()
    (folder / "train.py").write_text(script)
    run = python_runs.run_python(folder / "train.py", _env(), lightning=lightning)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


@pytest.mark.fixture_runs("original", "target")
@pytest.mark.parametrize("target", ["runtime", "lightning"])
@pytest.mark.parametrize("case", sorted(PRINTED))
def test_evaluation_prints_and_writes_what_the_script_did(case, target, fixture_runs):
    """Same evaluation lines, same files: evaluation after the optimizer step, in the
    script's mode, and never on the untrained model (no sanity-check pass)."""
    original = traced(fixture_runs.get(case, "original"), "original")
    converted = traced(fixture_runs.get(case, target), f"--target {target}")
    pattern = re.compile(PRINTED[case])
    assert pattern.findall(original.stdout), "the original printed no evaluation line"
    assert pattern.findall(converted.stdout) == pattern.findall(original.stdout)
    ran_in = fixture_runs.folder(case, "original")
    written = sorted(
        p.relative_to(ran_in) for p in ran_in.rglob("*") if p.is_file() and p.name != "train.py"
    )
    for path in written:
        ours = fixture_runs.folder(case, target) / path
        assert ours.exists(), f"{path} not written by the conversion"
        if path.suffix == ".txt":
            assert ours.read_text() == (ran_in / path).read_text()
        if path.suffix == ".pt":  # the same keys (an EMA copy held by the module too), same bits
            assert _tensors(ours) == _tensors(ran_in / path), f"{path} differs"
        if path.suffix == ".npy":  # results arrays (predictions, metrics): the same bits
            assert _array(ours) == _array(ran_in / path), f"{path} differs"


def _array(path: Path) -> tuple[str, tuple, bytes]:
    import numpy as np

    array = np.load(path)
    return str(array.dtype), array.shape, array.tobytes()


def _tensors(path: Path) -> list[tuple[str, bytes]]:
    """(key path, bytes) of every tensor a torch.save file holds, nested dicts flattened."""
    import torch

    def walk(value, key):
        if isinstance(value, dict):
            for name, item in value.items():
                yield from walk(item, f"{key}/{name}")
        elif isinstance(value, torch.Tensor):
            yield key, value.detach().cpu().contiguous().numpy().tobytes()

    return list(walk(torch.load(path, weights_only=True), ""))


# fixture -> {logged key: the script's expression of the value its bar showed last}
BAR_VALUES = {
    "tqdm_postfix_accuracy_lr": {
        "acc": "correct / seen",
        "lr": 'optimizer.param_groups[0]["lr"]',
    },
}


@pytest.mark.parametrize("target", ["runtime", "lightning"])
@pytest.mark.parametrize("case", sorted(BAR_VALUES))
def test_progress_bar_values_are_logged_with_the_values_shown(case, target, tmp_path, python_runs):
    """`set_postfix(acc=..., lr=...)` values are logged (prog_bar=True) under the script's keys,
    with the values the script's bar showed: the last step's, read after the training."""
    shown = BAR_VALUES[case]
    source = (FIXTURES / case / "input.py").read_text()
    result = migrate_source(source, path=f"{case}.py", target=target)
    assert result.changed, [str(f) for f in result.findings]
    for key in shown:
        assert f'self.log("{key}", ' in result.output and "prog_bar=True" in result.output
    original = source + "".join(f"\nprint('{k}', repr(float({e})))" for k, e in shown.items())
    converted = result.output + "".join(
        f"\nprint('{k}', repr(float(trainer.callback_metrics['{k}'])))" for k in shown
    )
    before = _run(original, tmp_path / "original", python_runs)
    after = _run(converted, tmp_path / "converted", python_runs, target == "lightning")
    for key in shown:
        value = float(re.findall(rf"^{key} (\S+)$", before, re.M)[-1])
        logged = float(re.findall(rf"^{key} (\S+)$", after, re.M)[-1])
        assert logged == pytest.approx(value, rel=1e-6), key  # logged as float32
