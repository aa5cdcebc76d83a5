"""The report's words for drawing its figures in parallel (issue 19; merged into ``labels.LABELS``)."""
from __future__ import annotations

from ..i18n import Catalog

LABELS = Catalog({
    "p_figures_wait": ("Figuras dibujadas en paralelo", "Figures drawn in parallel"),
})
