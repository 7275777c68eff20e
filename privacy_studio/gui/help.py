"""Plain-language explanations of the measures (from ``core.explanations``) as tooltips and help text."""

from __future__ import annotations

import html

from privacy_studio.core.explanations import EXPLANATIONS, Explanation, explain


def _section(exp: Explanation) -> str:
    return (
        f"<b>{html.escape(exp.title)}</b><p>{html.escape(exp.what)}</p>"
        f"<p><i>What it does not mean:</i> {html.escape(exp.not_what)}</p>"
    )


def tooltip(name: str) -> str:
    """Rich-text tooltip: what the measure means and what it does not mean ("" for no name)."""
    return _section(explain(name)) if name else ""


def help_html() -> str:
    """Every explanation with its formula, one section per measure, for the help panel."""
    return "<hr>".join(
        _section(exp) + f"<p><tt>{html.escape(exp.formula)}</tt></p>" for exp in EXPLANATIONS.values()
    )
