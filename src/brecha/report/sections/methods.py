"""Methods: the formulas and references of every calculation that ran (texts in
:mod:`brecha.report.methods`)."""
from __future__ import annotations

from ..blocks import Section
from ..methods import methods_blocks


def build(res, page) -> Section:
    return Section("methods", page.L("s_methods"), list(methods_blocks(res.study, page.lang)))
