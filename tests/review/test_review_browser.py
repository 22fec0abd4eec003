"""The review page in a real headless Chromium, from file://, as a reviewer uses it.

Needs Debian's `chromium` and `chromium-driver` (installed by .ci/run) and selenium; without
them this module skips with the reason.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from review_cases import change_about, seed_review_result

from torchlift.review import LossTrace, render_review

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip(
        "no chromium/chromedriver on this machine (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
from selenium.webdriver.common.by import By  # noqa: E402


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def page(tmp_path, browser):
    result = seed_review_result()
    trace = LossTrace([2.31, 2.29, 2.2], [2.31, 2.29, 2.2], "identical")
    path = tmp_path / "review.html"
    path.write_text(render_review([result], traces={result.path: trace}), encoding="utf-8")
    browser.get(path.as_uri())
    return browser, result


def test_loads_from_file_url_without_console_errors(page):
    browser, _ = page
    assert browser.find_element(By.CSS_SELECTOR, "header h1").text == "torchlift review"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_clicking_the_returned_loss_highlights_the_step_sequence(page):
    browser, result = page
    index, step_change = change_about(result, "zero_grad")
    returned = browser.find_element(By.ID, f"converted-{step_change.output_lines[0]}")
    assert returned.text.split()[-2:] == ["return", "loss"]
    returned.click()
    pinned = {
        el.get_attribute("id")
        for el in browser.find_elements(By.CSS_SELECTOR, ".pane.original .ln.pinned")
    }
    first, last = step_change.source_lines
    assert pinned == {f"original-{n}" for n in range(first, last + 1)}
    backward_line = next(
        n for n, text in enumerate(result.source.splitlines(), 1) if ".backward()" in text
    )
    assert f"original-{backward_line}" in pinned
    row = browser.find_element(By.CSS_SELECTOR, f'table.changes tr[data-changes="{index}"]')
    assert "pinned" in row.get_attribute("class")


def test_clicking_an_original_line_highlights_its_conversion(page):
    browser, result = page
    _, batch_loop = change_about(result, "batch loop")
    browser.find_element(By.ID, f"original-{batch_loop.source_lines[0]}").click()
    pinned = browser.find_elements(By.CSS_SELECTOR, ".pane.converted .ln.pinned")
    first, last = batch_loop.output_lines
    assert [el.get_attribute("id") for el in pinned] == [
        f"converted-{n}" for n in range(first, last + 1)
    ]
    assert "def training_step" in pinned[0].text


def test_legend_is_visible_and_screenshot_is_written(page, tmp_path):
    browser, result = page
    _, step_change = change_about(result, "zero_grad")
    browser.find_element(By.ID, f"converted-{step_change.output_lines[0]}").click()
    legend = browser.find_element(By.ID, "legend")
    assert legend.is_displayed() and "TL001" in legend.text
    plot = browser.find_element(By.CSS_SELECTOR, ".verify svg")
    assert plot.is_displayed()
    # TORCHLIFT_SCREENSHOT_DIR=docs refreshes the README's picture
    shot = Path(os.environ.get("TORCHLIFT_SCREENSHOT_DIR", tmp_path)) / "review-page.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
