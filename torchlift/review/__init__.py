"""The review page: one self-contained HTML file showing each conversion beside its original.

    render_review(results, target="runtime", traces={}) -> str

Reads only the migrator's results (its change log and findings) and, when `--verify` ran, the
losses it recorded. No network: CSS, script and data are inline, so it works from `file://`.
"""

from torchlift.review.page import LossTrace, render_review

__all__ = ["LossTrace", "render_review"]
