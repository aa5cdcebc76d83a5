"""The report's words for published-safely tables and maps (issue 17; merged into ``labels.LABELS``)."""
from __future__ import annotations

from ..i18n import Catalog

LABELS = Catalog({
    "hidden_cell": ("oculto (conteo pequeño)", "hidden (small count)"),
})

HIDDEN = "#9a9a9a"  # maps: a hidden unit, darker than the light grey of a unit without data
