"""Each fixture makes its feature act: a clipping fixture clips, a plateau scheduler reduces the
learning rate before a later step, accumulation steps once per several backward() calls...
A fixture whose feature never acts would still pass the equivalence test with the feature
broken (or dropped) in the conversion, so this is checked on the original script itself.

The script runs unchanged with tests/fixture_probe/sitecustomize.py loaded, which records
every clip_grad_norm_ / clip_grad_value_ call and, at every optimizer step, the learning
rates and the number of backward() calls since the previous step: the original run the
equivalence test compares with (tests/fixture_runs.py), probed.
"""

from __future__ import annotations

import pytest
from fixture_runs import FIXTURES


def clips(events) -> str | None:
    calls = [e for e in events if e["event"] in ("clip_norm", "clip_value")]
    acted = [
        e for e in calls if (e["norm"] > e["max"] if "norm" in e else e["max_abs"] > e["clip"])
    ]
    if not acted:
        return f"never clipped: {len(calls)} clip calls, all under the limit: {calls}"
    return None


def reduces_lr(events) -> str | None:
    lrs = [e["lrs"][0] for e in steps(events)]
    if not any(lr < lrs[0] for lr in lrs):
        return f"no optimizer step ran with a reduced learning rate: {lrs}"
    return None


def changes_lr_between_epochs(events) -> str | None:
    lrs = [e["lrs"][0] for e in steps(events)]
    if len(set(lrs)) < 2:
        return f"every optimizer step used the same learning rate {lrs[0]}"
    return None


def changes_lr_every_step(events) -> str | None:
    lrs = [e["lrs"][0] for e in steps(events)]
    if any(a == b for a, b in zip(lrs, lrs[1:])):
        return f"a per-step schedule left the learning rate unchanged between steps: {lrs}"
    return None


def changes_lr_every(n: int, per_epoch: int | None = None, after: int = 0):
    """A scheduler stepped every `n` batches: the rate changes after exactly the steps whose
    batch, counted from 1 (within its epoch of `per_epoch` batches), is a multiple of `n`
    (and past the first `after` steps)."""

    def changes_every(events) -> str | None:
        lrs = [e["lrs"][0] for e in steps(events)]
        numbers = [k % per_epoch if per_epoch else k for k in range(len(lrs))]
        changed = [k for k in range(len(lrs) - 1) if lrs[k] != lrs[k + 1]]
        expected = [k for k in range(after, len(lrs) - 1) if (numbers[k] + 1) % n == 0]
        if not expected or changed != expected:
            return f"the rate changed after steps {changed}, not after {expected}: {lrs}"
        return None

    return changes_every


def warms_up_first_epoch(batches: int):
    """An epoch-0 warmup acts: the learning rate changes at every one of the first epoch's
    `batches` steps."""

    def warms_up(events) -> str | None:
        lrs = [e["lrs"][0] for e in steps(events)][:batches]
        if len(lrs) < batches or any(a == b for a, b in zip(lrs, lrs[1:])):
            return f"the first epoch's learning rate did not change at every step: {lrs}"
        return None

    return warms_up


def accumulates(events) -> str | None:
    counts = [e["backwards"] for e in steps(events)]
    if len(counts) < 2 or min(counts) < 2:
        return f"an optimizer step followed a single backward(): backward calls per step {counts}"
    return None


def reevaluates_closure(events) -> str | None:
    """LBFGS evaluates the step's closure (a backward each) several times inside one step:
    the pre-step probe sees them at the next step."""
    counts = [e["backwards"] for e in steps(events)][1:]
    if not counts or min(counts) < 2:
        return f"no step evaluated its closure more than once: backward calls per step {counts}"
    return None


def uneven_groups(events) -> str | None:
    counts = [e["backwards"] for e in steps(events)]
    if len(set(counts)) < 2:
        return f"every step followed as many backward() calls, no partial group: {counts}"
    return None


def steps(events):
    return [e for e in events if e["event"] == "step"]


def fewer_steps_than(batches: int):
    """A skip, break or early stop acts: fewer optimizer steps than the `batches` the loop
    would run through without it (epochs x batches per epoch)."""

    def skips_steps(events) -> str | None:
        taken = len(steps(events))
        if taken >= batches:
            return f"{taken} optimizer steps for {batches} batches: nothing was skipped"
        return None

    return skips_steps


FEATURES = {
    # loops over runs: the sweep's learning rates, the StepLR each fold builds
    "seed_lr_sweep_in_main": [changes_lr_between_epochs],
    "epoch_rate_printed_before_scheduler_step": [changes_lr_between_epochs],
    "plateau_rate_printed_after_step": [changes_lr_between_epochs],
    "kfold_sampler_best_fold_score": [changes_lr_between_epochs],
    "amp_autocast_gradscaler": [clips],
    "amp_device_type_string": [clips],
    "bptt_range_evaluate": [clips],
    "clip_norm_over_weight_decay_groups": [clips],
    "transformer_mask_from_bptt": [clips, changes_lr_between_epochs],
    "transformer_args_read_by_helper": [clips, changes_lr_between_epochs],
    "char_rnn_lstm": [clips],
    "char_rnn_get_batches": [clips],
    "research_config_tqdm_clip": [clips, changes_lr_between_epochs],
    "plateau_scheduler_val_loss": [reduces_lr],
    "kaggle_cfg_get_scheduler_by_name": [changes_lr_every_step],
    "gradient_accumulation": [accumulates],
    "lbfgs_closure_curve_fit": [reevaluates_closure],
    "accumulation_clip_scheduler_in_group": [accumulates, clips, changes_lr_between_epochs],
    "accumulation_bf16_fused_adamw_clip_every_micro_batch": [accumulates, clips],
    "accumulation_uneven_last_group": [accumulates, uneven_groups],
    "accumulation_steps_at_epoch_end": [uneven_groups],
    "deit_train_one_epoch_scaler_norm_alias": [clips],
    "callable_loss_scaler_clip_step": [clips],
    "clip_norm_logged_with_grad_scaler": [clips],
    "amp_accumulation_partial_group_step_schedule": [
        accumulates,
        uneven_groups,
        clips,
        changes_lr_every_step,
    ],
    "accumulation_update_counter_logs_grad_norm": [
        accumulates,
        uneven_groups,
        clips,
        changes_lr_between_epochs,
    ],
    "accumulation_eval_every_k_updates": [accumulates],
    "clip_grad_norm_printed_after_step": [clips],
    "gan_dcgan_two_optimizers": [clips],
    "gan_scheduler_per_optimizer": [changes_lr_between_epochs],
    "binary_bce_onecycle_per_step": [changes_lr_every_step],
    # schedulers built by a function of the script (warmup then linear / cosine decay)
    "hf_linear_warmup_schedule_function": [changes_lr_every_step],
    "cosine_warmup_schedule_function": [changes_lr_every_step],
    "step_loop_scheduler_every_n": [changes_lr_every(5)],  # `(it + 1) % lr_every == 0`
    "batch_index_scheduler_every_n": [changes_lr_every(3, per_epoch=8)],  # `step % 3`, from 1
    # `global_step > 4 and global_step % 3 == 0`, global_step counted from 1 over the epochs
    "global_step_scheduler_after_warmup": [changes_lr_every(3, after=4)],
    # `global_step % 3 == 0` with its log line, global_step counted from 1 over the epochs
    "scheduler_step_and_log_line_every_k_global_steps": [changes_lr_every(3)],
    "counter_bar_dict_batches_output_loss": [changes_lr_every_step],
    "resumed_optimizer_per_batch_scheduler": [changes_lr_every_step],
    "course_fit_one_cycle_clip_decay": [clips, changes_lr_every_step],  # `if grad_clip:`
    "official_mnist_argparse": [changes_lr_between_epochs],
    "train_one_epoch_helpers": [changes_lr_between_epochs],
    "kaggle_bar_over_enumerate_in_helper": [changes_lr_between_epochs],
    "helper_expression_arguments": [clips],
    "run_epoch_mode_string_dummy_optimizer": [changes_lr_between_epochs],
    "generator_batches_copy_task": [changes_lr_between_epochs],
    "train_function_given_optimizer": [changes_lr_between_epochs],
    "phase_loop_best_weights": [changes_lr_between_epochs],
    "split_passes_shared_accumulators": [changes_lr_between_epochs],
    "keyed_loaders_train_model_best_weights": [changes_lr_between_epochs],
    "resume_checkpoint_exponential_lr": [changes_lr_between_epochs],
    "imagenet_meters_start_epoch": [changes_lr_between_epochs],
    "char_model_get_batch_steps": [clips, changes_lr_between_epochs],
    "gpt_method_optimizer_while_true": [clips],
    "mingpt_chargpt_project": [clips],  # `grad_norm_clip` of the trainer's config
    "micro_steps_plain_backward": [accumulates, clips, changes_lr_between_epochs],
    "micro_steps_scaler_nullcontext": [accumulates, clips, changes_lr_between_epochs],
    "micro_steps_prefetch_next_batch": [accumulates],
    "imagenet_adjust_learning_rate": [changes_lr_between_epochs],
    "milestone_lr_drops": [changes_lr_between_epochs],
    "epoch_lr_decay_variable": [changes_lr_between_epochs],
    "warmup_lr_per_step": [clips, changes_lr_between_epochs],
    "tutorial_update_lr_divide": [changes_lr_between_epochs],
    # an epoch-0 LinearLR stepped per batch, then a per-epoch scheduler
    "detection_warmup_first_epoch_helper": [warms_up_first_epoch(4), changes_lr_between_epochs],
    "warmup_first_epoch_inline": [warms_up_first_epoch(5), changes_lr_between_epochs],
    "skip_batches_continue": [fewer_steps_than(2 * 8)],  # NaN-label batches skipped
    "dry_run_limit_batches": [fewer_steps_than(2 * 8)],  # one batch per epoch
    "patience_early_stop": [fewer_steps_than(3 * 6)],  # stops after the second epoch
    # stops at epoch 4 of 10; the rate halved after the `break` on the epochs before
    "fullbatch_stop_on_test_accuracy": [fewer_steps_than(200)],  # 137 of 200 steps
    "tsf_early_stop_adjust_lr_after_break": [fewer_steps_than(10 * 5), changes_lr_between_epochs],
    # episodes stopped by their "Solved!" test before the episode limit (30 and 24)
    "reinforce_episodes_solved_break": [fewer_steps_than(30)],
    "actor_critic_episodes_count": [fewer_steps_than(24)],
    # no step until the replay memory holds a batch (29 env steps, the first 7 learn nothing)
    "dqn_replay_target_soft_update": [fewer_steps_than(29)],
    # two repetitions of 6 epochs of 5 batches, stopping at epochs 3 and 4
    "tsf_exp_select_optimizer_per_itr": [fewer_steps_than(2 * 6 * 5), changes_lr_between_epochs],
    "max_steps_budget": [fewer_steps_than(5 * 5)],  # 7 steps, then stop mid-epoch
    "max_batches_per_epoch": [fewer_steps_than(2 * 12)],  # 4 of 12 batches per epoch
    # two optimizers over 2 x 6 batches, the generator's every n_critic=2: 18 steps of 24
    "gan_trainer_class_step_methods": [fewer_steps_than(2 * 6 * 2)],
    "trainer_class_history": [changes_lr_between_epochs],  # the class's StepLR
    "metric_logger_log_every": [changes_lr_between_epochs],
    "tempdir_best_model_params": [clips, changes_lr_between_epochs],
    # parameters updated by hand: no optimizer step to record (its `lr /= 4.0` after epoch 2
    # shows in the script's own print, `lr 5.00` in epoch 3)
    "hand_update_word_lm_lr_anneal": [clips],
}

# cases whose script has no torch.optim optimizer (patterns/hand_update.py)
NO_OPTIMIZER = {"hand_update_word_lm_lr_anneal"}


@pytest.mark.slow
@pytest.mark.fixture_runs("original")
@pytest.mark.parametrize("case", sorted(FEATURES))
def test_fixture_exercises_its_feature(case, fixture_runs):
    events = fixture_runs.probe_events(case)
    assert steps(events) or case in NO_OPTIMIZER, f"{case}: no optimizer step was recorded"
    failures = [f"{check.__name__}: {why}" for check in FEATURES[case] if (why := check(events))]
    assert not failures, f"{case}: " + "; ".join(failures)


def test_every_feature_table_entry_is_a_fixture():
    assert set(FEATURES) <= {p.parent.name for p in FIXTURES.glob("*/input.py")}
