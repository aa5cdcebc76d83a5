"""One self-contained HTML file: inline CSS, figures as data: URIs, no script, no remote resource.

Rendered with Jinja2 from the templates in ``report/templates/`` (``report.html.j2`` the page,
``headline.html.j2`` the first screen, ``block.html.j2`` one block of a section, ``table.html.j2``,
``figure.html.j2``) and the stylesheet ``report/assets/report.css``. Autoescape is on: every value that
comes from data or from the study file is escaped; only markup brecha writes itself (the methods' formulas,
a rendered table or figure) goes in as :class:`markupsafe.Markup`. Values are escaped as the standard
library's :func:`html.escape` does (``&quot;``, ``&#x27;``; markupsafe would write ``&#34;``, ``&#39;``), so
the page is byte for byte the one earlier versions wrote.
"""
from __future__ import annotations

import base64
import html as _html
import math
from functools import lru_cache
from importlib import resources

import pandas as pd
from markupsafe import Markup

from .. import __version__
from .formatting import fmt_number, localise, number_formatter  # noqa: F401 - fmt_number importable from here, as before
from .labels import L


def esc(value) -> str:
    return _html.escape("" if value is None else str(value), quote=True)


def _escaped(text: str) -> str:
    """``esc(text)``, skipped when ``text`` has none of the characters it replaces (a number: digits, signs,
    separators; only a p-value's "<0.001" has one)."""
    return esc(text) if ("<" in text or "&" in text or ">" in text or '"' in text or "'" in text) else text


def _finalize(value):
    """Every ``{{ value }}``: markup brecha wrote stays; anything else is escaped like :func:`html.escape`."""
    if isinstance(value, Markup):
        return value
    return Markup(esc(value))


@lru_cache(maxsize=1)
def _environment():
    from jinja2 import Environment, PackageLoader

    return Environment(loader=PackageLoader("brecha.report", "templates"), autoescape=True, trim_blocks=True,
                       lstrip_blocks=True, finalize=_finalize)


TEMPLATES = ("report.html.j2", "headline.html.j2", "block.html.j2", "table.html.j2", "figure.html.j2")


def prepare() -> None:
    """The page's templates compiled and its stylesheet read now, ahead of :func:`render_html` (the report
    does it while a child loads the data or computes an analysis, so that writing its files does not; issue
    19). Compiling is what :func:`_render` would do on first use: the page is the same."""
    env = _environment()
    for name in TEMPLATES:
        env.get_template(name)
    stylesheet()


def _render(template: str, **context) -> Markup:
    return Markup(_environment().get_template(template).render(**context))


@lru_cache(maxsize=1)
def stylesheet() -> str:
    return (resources.files("brecha.report") / "assets" / "report.css").read_text(encoding="utf-8")


def column_label(col: str, lang: str) -> str:
    key = f"c_{col}"
    from .labels import LABELS

    return L(key, lang) if key in LABELS else col


def table_html(df: pd.DataFrame, lang: str, *, columns=None, max_rows: int = 400, file: str = "",
               value_labels: dict | None = None, covariates=(), country: str | None = None,
               column_labels: dict | None = None) -> str:
    """A table for reading: every header labelled (``column_labels`` first, then the ``c_<column>`` labels),
    numbers in the language's format, coded cells (flags, methods, model names, covariates) in words."""
    if columns:
        cols = [c for c in columns if c in df.columns]
        if not cols:
            cols = list(df.columns)
    else:
        cols = list(df.columns)
    shown = df[cols].head(max_rows)
    numeric = {c: (pd.api.types.is_numeric_dtype(shown[c]) and not pd.api.types.is_bool_dtype(shown[c]))
               for c in cols}
    names = column_labels or {}
    heads = [(names.get(str(c)) or column_label(str(c), lang), numeric[c]) for c in cols]
    labels = value_labels or {}
    # the rows' markup made here, not by the template's loops: a report has ~20,000 cells, and jinja's loop and
    # finalize per cell were 0.2 s of the page's 0.5 s (issue 19); the same text (tests/report/test_html_table.py).
    # Column by column: each column's rule is chosen once (number_formatter) and each distinct text cell of a
    # column is labelled and escaped once (a method, a flag, a name repeat down a column)
    # (a text column's values by tolist: pandas 3's Arrow-backed text gives them one by one, ~1 µs each)
    columns = [_column_cells(list(shown.iloc[:, k]) if numeric[c] else shown.iloc[:, k].tolist(), str(c),
                             numeric[c], lang, labels, covariates, country) for k, c in enumerate(cols)]
    rows = ["<tr>" + "".join(cells) + "</tr>" for cells in zip(*columns)] if columns else []
    more = ""
    if len(df) > max_rows:
        more = L("more_rows" if file else "more_rows_unwritten", lang, shown=localise(f"{max_rows:,}", lang),
                 total=localise(f"{len(df):,}", lang), file=file)
    return _render("table.html.j2", heads=heads, body=Markup("".join(rows)), more=more)


def _column_cells(values: list, column: str, numeric: bool, lang: str, labels: dict, covariates,
                  country) -> list[str]:
    """The ``<td>`` of every value of one column of :func:`table_html` (``values`` as iterating the column
    gives them, as ``itertuples`` does): numbers in the language's format (:func:`fmt_number`), text in words
    (``labels``, then :func:`brecha.report.labels.cell_label`), escaped as :func:`_finalize` escapes."""
    from .labels import cell_label

    if numeric:
        number = number_formatter(column, lang)
        return [f'<td class="n">{_escaped(number(v))}</td>' for v in values]
    made: dict = {}
    out = []
    for v in values:
        text = "" if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA else str(v)
        cell = made.get(text)
        if cell is None:
            label = labels.get(text) or cell_label(column, text, lang, covariates, country)
            cell = made[text] = f"<td>{_finalize(label)}</td>"
        out.append(cell)
    return out


def figure_html(fig, *, css_class: str = "") -> str:
    data = Markup(base64.b64encode(fig.data).decode("ascii"))  # base64: nothing to escape
    return _render("figure.html.j2", fig=fig, data=data, css_class=css_class)


def _value_labels(lang: str) -> dict:
    from .labels import trend_word

    out = {k: trend_word(k, lang) for k in ("increasing", "decreasing", "stationary")}
    for k in ("rate_ratio", "attributable_risk", "attributable_risk_percent", "par", "par_percent"):
        out[k] = L(f"m_{k}", lang)
    return out


def render_html(report) -> str:
    lang = report.lang
    labels = _value_labels(lang)
    return _render("report.html.j2", lang=lang, title=report.title, css=Markup(stylesheet()),
                   scope=report.headline.get("scope", ""),
                   generated=L("generated", lang, version=__version__, date=_today()),
                   sections=report.sections, headline=headline_html(report),
                   block=lambda b: block_html(b, report, labels), L=lambda key, **kw: L(key, lang, **kw))


def block_html(b, report, labels) -> str:
    outcome = getattr(b, "outcome", "")
    if not outcome:
        return _block_html(b, report, labels)
    from .labels import set_outcome

    previous = set_outcome(outcome)  # a further outcome's tables: column labels name its rate (NMR, PNMR)
    try:
        return _block_html(b, report, labels)
    finally:
        set_outcome(previous)


def _table_file(report, table: str) -> str:
    """Where the whole table ``table`` is written: its CSV file, else the workbook, else nowhere ('')."""
    from ..report_files import wanted

    if wanted(report, "tables"):
        return f"tables/{table}.csv"
    return "brecha.xlsx" if wanted(report, "workbook") else ""


def _block_html(b, report, labels) -> str:
    lang = report.lang
    extra = ""
    if b.kind == "table":
        item = report.tables.get(b.table)
        if item is None:
            return Markup("")
        panel = getattr(report, "panel", None)
        extra = table_html(item[0], lang, columns=b.columns, max_rows=b.max_rows, file=_table_file(report, b.table),
                           value_labels=labels, covariates=list(getattr(panel, "covariates", ()) or ()),
                           country=getattr(panel, "country", None), column_labels=getattr(b, "column_labels", None))
    elif b.kind == "figure":
        extra = figure_html(b.figure)
    elif b.kind == "unavailable":
        extra = L("not_available", lang, reason=b.text)
    elif b.kind == "html":  # trusted markup built by brecha itself (methods), never from data
        extra = Markup(b.text)
    return _render("block.html.j2", b=b, extra=extra)


def headline_html(report) -> str:
    lang = report.lang
    h = report.headline
    trend = h.get("trend") or {}
    rows = (h.get("worst") or []) + (h.get("best") or [])
    return _render("headline.html.j2", h=h, L=lambda key, **kw: L(key, lang, **kw),
                   reason=_headline_reason(report) if not h.get("national") else "",
                   trend_class={"closing": "closing", "flat": "flat"}.get(trend.get("direction"), ""),
                   show_region=len({r["region"] for r in rows}) > 1,  # one region: the column would repeat it
                   notes=list(dict.fromkeys(report.notes))[:3],
                   right=figure_html(h["map"]) if h.get("map") is not None else
                   figure_html(h["gap_figure"]) if h.get("gap_figure") is not None else "")


def _headline_reason(report) -> str:
    for sec in report.sections:
        for b in sec.blocks:
            if b.kind == "unavailable":
                return b.text
    return "-"


def _today() -> str:
    import datetime

    return datetime.date.today().isoformat()
