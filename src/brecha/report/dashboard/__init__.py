"""The offline dashboard: one self-contained HTML file to explore a report's tables (issue 16).

``render_dashboard(report) -> str`` is the page of a built :class:`brecha.report.blocks.Report`:
:func:`dashboard_data` takes the tables the report registered (:mod:`.payload`), the map geometry
(:mod:`.shapes`) and the words in Spanish, English and Portuguese (:mod:`.labels`), and the template
``report/templates/dashboard.html.j2`` embeds them with the script (``report/assets/dashboard*.js``,
:data:`SCRIPTS`) and its stylesheets. No network, no server, no library in the page: maps and charts are
plain SVG drawn by the script. The issue's research found plotly's geo maps and MapLibre blank from a
local file without a network, and Vega-Lite working with its libraries inlined; plain SVG needs no library
(the Chilean page is 1.5 MB, its polygons about 125 kB of it) and nothing in it can fetch a base layer.

``brecha report`` writes it as ``dashboard.html`` beside ``index.html``; ``brecha dashboard`` writes it alone.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from .labels import COVARIATES_PT, LABELS, LANGS
from .payload import Tables, compare_data, determinants_data, outcome_data
from .shapes import polygon_paths, seats, tiles

FILENAME = "dashboard.html"
LANGUAGE_NAMES = (("es", "Español"), ("en", "English"), ("pt", "Português"))


def _units(panel):
    units = panel.units
    codes = [str(u) for u in panel.unit_codes]
    if units is None or "unit" not in units.columns:
        import pandas as pd

        return pd.DataFrame({"unit": codes, "name": codes, "region": "", "region_name": ""})
    table = units.assign(unit=units["unit"].astype(str))
    table = table.set_index("unit").reindex(codes).reset_index()
    for col in ("name", "region", "region_name", "province", "province_name"):
        if col not in table.columns:
            table[col] = ""
        table[col] = table[col].astype(object).where(table[col].notna(), "")
    table["name"] = table["name"].fillna(table["unit"])
    return table


def _geometry(panel, units):
    from ..figures import CHILE_OFFSHORE

    registry = getattr(panel, "registry", None)
    geo = registry.polygons() if registry is not None and hasattr(registry, "polygons") else None
    shapes = polygon_paths(geo, units["unit"], offshore=CHILE_OFFSHORE if panel.country == "CL" else ())
    # as the static report: polygons; else symbols when at least half the units have seats; else the tile grid
    points = seats(units)
    if shapes is None and points is not None and len(points["xy"]) >= max(1, len(units) / 2):
        return points
    return shapes or tiles(units, panel.country)


def _covariates(panel) -> list[str]:
    return [c for c in getattr(panel, "covariates", []) if not str(c).lower().startswith(("population", "poblacion"))]


def dashboard_data(report) -> dict:
    """Everything the page shows, as JSON-ready values (see :mod:`.payload` for where each comes from)."""
    from ... import __version__
    from ..figures import ACCENT, BLUE, MISSING, SEQUENTIAL, TREND_COLOURS
    from ..labels import TREND_KEYS, covariate_label

    panel, study = report.panel, report.study
    units = _units(panel)
    index = {u: i for i, u in enumerate(units["unit"].tolist())}  # not item by item: ~1 µs each (pandas 3)
    tables = Tables(report)
    first = study.outcomes[0]
    outcomes = [first] + [o for o in study.outcomes[1:] if tables.get("rates_national", f"_{o}") is not None]
    data = {o: outcome_data(tables, "" if o == first else f"_{o}", index) for o in outcomes}
    regions = units[["region", "region_name"]].drop_duplicates("region")
    regions = regions[regions["region"].astype(str) != ""].sort_values("region")
    pooled = tables.get("rates_national_pooled")
    period = str(pooled["period"].iloc[0]) if pooled is not None and len(pooled) else \
        f"{min(panel.years)}-{max(panel.years)}"
    covariates = _covariates(panel)
    country = getattr(panel, "country", None)
    cov_labels = {c: [covariate_label(c, "es", country), covariate_label(c, "en", country),
                      COVARIATES_PT.get(str(c), covariate_label(c, "en", country))] for c in covariates}
    extra = [k for k in ("sparse", "no_trend") if k not in TREND_KEYS]
    return {
        "lang": report.lang if report.lang in ("es", "en", "pt") else "es", "version": __version__,
        "country": country, "period": period, "years": [int(y) for y in panel.years], "outcomes": outcomes,
        "units": {"code": units["unit"].tolist(), "name": units["name"].astype(str).tolist(),
                  "region": units["region"].astype(str).tolist()},
        "regions": {"code": regions["region"].astype(str).tolist(),
                    "name": regions["region_name"].astype(str).tolist()},
        "map": _geometry(panel, units), "data": data, "compare": compare_data(tables, index),
        "determinants": determinants_data(report, tables, index, covariates), "covariate_labels": cov_labels,
        "trend_codes": list(TREND_KEYS) + extra,
        "colours": {"sequential": SEQUENTIAL, "missing": MISSING, "trend": TREND_COLOURS, "accent": ACCENT,
                    "blue": BLUE},
        "labels": {k: list(v) for k, v in LABELS.items()},
    }


@lru_cache(maxsize=None)
def _asset(name: str) -> str:
    return resources.files("brecha.report").joinpath("assets", name).read_text(encoding="utf-8")


# the page's script in three files (each under the 600-line limit), run as one function sharing its names
SCRIPTS = ("dashboard-state.js", "dashboard-charts.js", "dashboard.js")


def _script() -> str:
    return '(function () {\n"use strict";\n' + "\n".join(_asset(name) for name in SCRIPTS) + "\n})();"


def _json_for_script(value) -> str:
    """JSON safe inside ``<script>``: ``<``, ``>`` and ``&`` escaped so no ``</script>`` can end it early.

    Written by orjson (issue 19): the Brazilian dashboard's 11 MB of numbers took 0.29 s of CPU with the
    standard library's encoder and take 0.02 s, in the last file the report waits for. The same values: a
    number is written with the shortest digits that read back as the same float, as ``json`` does, though one
    that needs an exponent may be spelled differently (``0.00001`` for ``1e-05``; ``1e16`` for ``1e+16`` in
    orjson 3.9), which ``JSON.parse`` reads as the same number; keys that are not text become
    text, as ``json`` makes them; a NumPy scalar is written as the Python number it holds; a value that is
    not a finite number never reaches here (:func:`brecha.report.dashboard.payload.number` makes it None)."""
    import orjson

    text = orjson.dumps(value, default=_plain, option=orjson.OPT_NON_STR_KEYS).decode("utf-8")
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _plain(value):
    """A NumPy scalar as the Python value it holds (orjson's ``default``); anything else is an error."""
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


@lru_cache(maxsize=1)
def _environment():
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(loader=PackageLoader("brecha.report", "templates"), autoescape=select_autoescape(default=True))


def prepare() -> None:
    """The page's template compiled and its assets read now, ahead of :func:`render_dashboard` (the report
    does it while it waits for an analysis computed in a child; the dashboard's own child, forked later,
    starts with them; issue 19). The same template and assets: the same page."""
    _environment().get_template("dashboard.html.j2")
    for name in ("dashboard.css", "dashboard-chart.css", *SCRIPTS):
        _asset(name)


def render_dashboard(report) -> str:
    """The dashboard page of a built report (one string of HTML, every asset inside)."""
    from markupsafe import Markup

    env = _environment()

    def exports(view: str, png: bool = True) -> Markup:
        buttons = f'<button type="button" data-view="{view}" data-export="csv" data-l="csv"></button>'
        if png:
            buttons += f'<button type="button" data-view="{view}" data-export="png" data-l="png"></button>'
        return Markup(f'<span class="exports">{buttons}</span>')

    template = env.get_template("dashboard.html.j2")
    page = template.render(
        lang=report.lang, title=report.title, languages=LANGUAGE_NAMES, exports=exports,
        caveats=list(dict.fromkeys(report.notes)), css=Markup(_asset("dashboard.css")),
        chart_css=Markup(_asset("dashboard-chart.css")), data=Markup(_json_for_script(dashboard_data(report))),
        script=Markup(_script()))
    return _first_words(page, report.lang)


def _first_words(page: str, lang: str) -> str:
    """The labels in the report's language already in the markup (``data-l="key"></``), so the first paint
    reads before the script has run; the script rewrites them on a language switch."""
    import html
    import re

    column = LANGS.index(lang) if lang in LANGS else 0
    head, sep, tail = page.partition('<script type="application/json"')
    head = re.sub(r'data-l="(\w+)"></', lambda m: f'data-l="{m.group(1)}">'
                  f'{html.escape(LABELS[m.group(1)][column]) if m.group(1) in LABELS else ""}</', head)
    return head + sep + tail
