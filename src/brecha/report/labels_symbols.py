"""Report words of issue 18: Argentina (units, country) and the maps drawn without polygons
(brecha.report.symbol_maps). Merged into :data:`brecha.report.labels.LABELS`."""
from __future__ import annotations

from ..i18n import Catalog

LABELS = Catalog({
    "units_word_AR": ("provincias", "provinces"),
    "unit_word_AR": ("provincia", "province"),
    "country_AR": ("Argentina", "Argentina"),
    "size_births": ("Nacidos vivos", "Live births"),
    "cap_map_symbols": (" Sin polígonos para {country}: un círculo en la cabecera (o el centroide) de cada {unit}, "
                        "con área proporcional a sus nacidos vivos de {period}.",
                        " No polygons for {country}: one circle at each {unit}'s seat (or centroid), its area "
                        "proportional to its live births in {period}."),
    "cap_map_tiles": (" Sin polígonos ni cabeceras para {country}: cada cuadrado es un {unit}, agrupados por "
                      "estado en una grilla esquemática; dentro de cada estado el orden es el del código, no la "
                      "geografía.",
                      " No polygons or seats for {country}: each square is one {unit}, grouped by state on a "
                      "schematic grid; inside a state the order is that of the code, not geography."),
})
