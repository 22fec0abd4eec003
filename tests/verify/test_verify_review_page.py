"""`migrate --verify --html PAGE`: the review page carries both runs' losses and the verdict."""

from __future__ import annotations

import re

from test_verify import train, verify_pair


def test_page_holds_the_loss_table_the_plot_and_the_verdict(tmp_path, monkeypatch):
    page = tmp_path / "review.html"
    code, out = verify_pair(
        tmp_path, monkeypatch, train(), train() + "# converted\n", html=str(page), steps=4
    )
    assert code == 0, out
    text = page.read_text()
    assert "--verify: identical" in text
    assert text.count("<polyline") == 2
    rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td>([^<]+)</td><td>=</td></tr>", text)
    assert [int(step) for step, _, _ in rows] == [1, 2, 3, 4]
    assert all(a == b for _, a, b in rows)
    assert f"review page: {page}" in out


def test_a_diverging_run_is_shown_as_such(tmp_path, monkeypatch):
    page = tmp_path / "review.html"
    code, _ = verify_pair(tmp_path, monkeypatch, train(), train(lr="0.2"), html=str(page), steps=4)
    assert code == 1
    text = page.read_text()
    assert "--verify: diverged at step 2" in text
    first = re.search(r"<tr><td>1</td><td>([^<]+)</td><td>([^<]+)</td><td>=</td></tr>", text)
    second = re.search(r"<tr><td>2</td><td>([^<]+)</td><td>([^<]+)</td><td>([^<=]+)</td></tr>", text)
    assert first and second and second.group(1) != second.group(2)
