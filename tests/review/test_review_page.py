"""The review page as a document: self-contained, escaped, every change linked on both sides."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from review_cases import seed_review_result

from torchlift.migrator.result import Change, Finding, MigrationResult
from torchlift.review import LossTrace, render_review


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))


def _elements(page: str):
    parser = _Elements()
    parser.feed(page)
    return parser.elements


def test_page_loads_nothing_from_outside():
    page = render_review([seed_review_result()])
    for tag, attrs in _elements(page):
        for key in ("src", "href"):
            assert key not in attrs, (tag, attrs)  # no CDN, no fonts, no network: file:// works
    assert "<style>" in page and "<script>" in page


def test_every_change_links_lines_on_both_sides():
    result = seed_review_result()
    page = render_review([result])
    for index, change in enumerate(result.changes):
        for kind, span in (("original", change.source_lines), ("converted", change.output_lines)):
            if span is None:  # an added import / a removed statement: one side only
                continue
            for line in range(span[0], span[1] + 1):
                match = re.search(
                    rf'<div class="ln touched" data-changes="([\d ]+)" id="{kind}-{line}"', page
                )
                assert match and str(index) in match.group(1).split(), (kind, line)


def test_untouched_runs_are_folded_and_touched_lines_are_not():
    source = "".join(f"x{i} = {i}\n" for i in range(60))
    output = source.replace("x30 = 30", "x30 = 31")
    result = MigrationResult(
        "long.py", source, output, changes=[Change("TL001", (31, 31), (31, 31), "m")]
    )
    page = render_review([result])
    assert page.count('class="fold"') == 4  # above and below the change, on each side
    folded = [block.split("\n")[0] for block in page.split('<div class="folded">')[1:]]
    assert len(folded) == 4 and all('id="converted-31"' not in block for block in folded)
    assert '<div class="ln touched" data-changes="0" id="converted-31">' in page


def test_code_and_messages_are_escaped():
    source = 'print("</script><b>")\n'
    result = MigrationResult(
        "a<b>.py",
        source,
        source + "x = 1\n",
        findings=[Finding("a<b>.py", 1, 0, "TL101", "<i>why</i>", "warning")],
        changes=[Change("TL001", None, (2, 2), "adds <x>")],
    )
    page = render_review([result])
    assert "</script><b>" not in page and "&lt;/script&gt;&lt;b&gt;" in page
    assert "<i>why</i>" not in page and "adds &lt;x&gt;" in page


def test_refused_loops_show_their_reasons_and_legend_names_codes():
    result = MigrationResult(
        "gan.py",
        "x = 1\n",
        "x = 1\n",
        findings=[Finding("gan.py", 12, 0, "TL114", "two optimizers step in one loop", "warning")],
    )
    page = render_review([result])
    assert "two optimizers step in one loop" in page and "line 12" in page
    assert re.search(r"<dt>TL114</dt><dd>[^<]+</dd>", page)


def test_verify_losses_are_tabled_and_plotted():
    result = seed_review_result()
    trace = LossTrace([2.5, 2.25, 2.0], [2.5, 2.25, 2.0], "identical")
    page = render_review([result], traces={result.path: trace})
    assert page.count("<polyline") == 2
    assert re.search(r"<tr><td>3</td><td>2</td><td>2</td><td>=</td></tr>", page)
    assert "--verify: identical" in page
