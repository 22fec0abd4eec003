"""The comparison rules behind the verdicts, on recorded numbers (no subprocess)."""

import math
from types import SimpleNamespace

import torch

from torchlift.verify.compare import compare_runs, relative_difference
from torchlift.verify.table import format_table


def run(losses, params=None):
    return SimpleNamespace(losses=losses, params=params)


def test_exactly_equal_losses_and_parameters_are_identical():
    params = [torch.ones(2, 3), torch.zeros(3)]
    result = compare_runs(
        run([1.0, 0.5], params), run([1.0, 0.5], [p.clone() for p in params]), 1e-5
    )
    assert result.outcome == "identical" and result.equal and result.steps == 2
    assert result.detail == "final parameters: 2 tensors, 9 values, identical"


def test_differences_below_rtol_are_close_and_above_it_diverge_at_the_first_step():
    original, converted = run([1.0, 2.0, 3.0]), run([1.0, 2.0 * (1 + 1e-7), 3.5])
    assert compare_runs(run([1.0, 2.0]), run([1.0, 2.0 * (1 + 1e-7)]), 1e-5).outcome == "close"
    result = compare_runs(original, converted, 1e-5)
    assert (result.outcome, result.step) == ("diverged", 3)
    assert "original 3 vs converted 3.5" in result.detail
    assert compare_runs(run([1.0, 2.0]), run([1.0, 2.0 * (1 + 1e-7)]), 1e-9).step == 2


def test_nan_equals_nan_but_not_a_number():
    assert compare_runs(run([math.nan]), run([math.nan]), 1e-5).outcome == "identical"
    assert compare_runs(run([math.nan]), run([1.0]), 1e-5).outcome == "diverged"
    assert relative_difference(0.0, 0.0) == 0.0


def test_a_run_with_fewer_steps_diverges_after_the_shared_ones():
    result = compare_runs(run([1.0, 2.0, 3.0]), run([1.0, 2.0]), 1e-5)
    assert (result.outcome, result.step) == ("diverged", 3)
    assert "original recorded 3 training steps and the converted script 2" in result.detail


def test_parameters_reached_in_another_order_still_match_by_value():
    a, b = torch.randn(4), torch.randn(4)
    result = compare_runs(run([1.0], [a, b]), run([1.0], [b.clone(), a.clone()]), 1e-5)
    assert result.outcome == "identical"


def test_different_final_parameters_diverge_even_when_losses_match():
    result = compare_runs(run([1.0], [torch.ones(3)]), run([1.0], [torch.ones(3) * 2]), 1e-5)
    assert result.outcome == "diverged" and result.step is None
    assert (
        "final parameters differ (tensor 1 of shape (3,): max relative diff 5.00e-01)"
        in result.detail
    )
    result = compare_runs(run([1.0], [torch.ones(3)]), run([1.0], []), 1e-5)
    assert "the original trained 1 tensors and the converted script 0" in result.detail


def test_table_marks_rows_beyond_rtol_and_missing_steps():
    table = format_table([1.0, 2.0, 3.0], [1.0, 2.5], 1e-5).splitlines()
    assert table[0].split() == ["step", "original", "loss", "converted", "loss", "rel.", "diff"]
    assert table[1].split() == ["1", "1", "1", "0"]
    assert table[2].split() == ["2", "2", "2.5", "2.0e-01", "<-"]
    assert table[3].split() == ["3", "3", "-", "<-", "missing"]


def test_every_rank_of_a_ddp_run_is_compared():
    def run(rank_one):
        return SimpleNamespace(losses=[1.0, 0.5], params=None, rank_losses={1: rank_one})

    assert compare_runs(run([0.9, 0.4]), run([0.9, 0.4]), 0.0).outcome == "identical"
    differs = compare_runs(run([0.9, 0.4]), run([0.9, 0.41]), 0.0)
    assert differs.outcome == "diverged" and "rank 1" in differs.detail
    fewer = compare_runs(run([0.9, 0.4]), SimpleNamespace(losses=[1.0, 0.5], params=None), 0.0)
    assert fewer.outcome == "diverged" and "processes" in fewer.detail
