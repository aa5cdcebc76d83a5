"""One self-contained HTML file: inline CSS, figures as data: URIs, no script, no remote resource.

Every string that comes from data or from the study file goes through :func:`html.escape`.
"""
from __future__ import annotations

import base64
import html as _html
import math

import numpy as np
import pandas as pd

from .. import __version__
from .labels import L

CSS = """
:root{--ink:#1f2933;--muted:#5f6b7a;--line:#dde2e8;--soft:#f5f7f9;--accent:#b5332e;--blue:#2f6690;--warn:#8a5a00;--warnbg:#fff7e6}
*{box-sizing:border-box}
html{font-size:15px}
body{margin:0;color:var(--ink);background:#fff;font-family:-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","Liberation Sans",sans-serif;line-height:1.5}
main{max-width:1120px;margin:0 auto;padding:0 28px 64px}
header.top{border-bottom:3px solid var(--accent);padding:22px 0 12px;margin-bottom:18px}
header.top h1{font-size:1.65rem;line-height:1.25;margin:0 0 4px;font-weight:700;letter-spacing:-.01em}
header.top .sub{color:var(--muted);font-size:.95rem}
nav.toc{font-size:.85rem;color:var(--muted);margin:6px 0 0}
nav.toc{display:flex;flex-wrap:wrap;gap:2px 16px}
nav.toc a{color:var(--blue);text-decoration:none;white-space:nowrap}
h2{font-size:1.3rem;margin:44px 0 10px;padding-top:10px;border-top:1px solid var(--line)}
h3{font-size:1.02rem;margin:22px 0 8px}
h3.sub{font-size:1.12rem;border-bottom:1px solid #ddd;padding-bottom:2px}
.others ul{margin:4px 0 0 0;padding-left:18px}
p{margin:8px 0}
.cards{display:grid;grid-template-columns:repeat(3,1fr);gap:14px;margin:10px 0 16px}
.card{border:1px solid var(--line);border-radius:8px;padding:14px 16px;background:var(--soft)}
.card h3{margin:0 0 4px;font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.card .big{font-size:1.9rem;font-weight:700;line-height:1.1;color:var(--accent);font-variant-numeric:tabular-nums}
.card .big.closing{color:var(--blue)}
.card .big.flat{color:var(--ink)}
.card .big small{font-size:.95rem;font-weight:600;color:var(--muted);margin-left:6px}
.card p{font-size:.88rem;margin:6px 0 0}
.first{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.25fr);gap:22px;align-items:start}
.rank h3{margin:6px 0 4px}
.rank table{font-size:.86rem}
.first figure img{max-height:62vh;width:auto;max-width:100%}
.scope{font-size:.9rem;color:var(--muted)}
.caveat{border-left:4px solid #e0a526;background:var(--warnbg);color:#4a3b10;padding:8px 12px;font-size:.86rem;margin:12px 0;border-radius:0 6px 6px 0}
.caveat ul{margin:4px 0;padding-left:18px}
.unavailable{border:1px dashed #c5ccd4;color:var(--muted);padding:10px 14px;border-radius:6px;font-size:.9rem;background:#fafbfc}
figure{margin:14px 0 18px}
figure img{display:block;max-width:100%;height:auto;border:0}
figcaption{font-size:.84rem;color:var(--muted);margin-top:6px;max-width:80ch}
.tablebox{max-height:460px;overflow:auto;border:1px solid var(--line);border-radius:6px;margin:6px 0 4px}
table{border-collapse:collapse;width:100%;font-size:.84rem;font-variant-numeric:tabular-nums}
th,td{padding:5px 9px;border-bottom:1px solid #edf0f3;text-align:left;vertical-align:top}
th{background:#f0f3f6;font-weight:600;position:sticky;top:0;z-index:1;white-space:nowrap}
td.n,th.n{text-align:right;white-space:nowrap}
tbody tr:nth-child(even){background:#fbfcfd}
.more{font-size:.8rem;color:var(--muted);margin:2px 0 12px}
ul.plain{padding-left:20px;font-size:.9rem}
pre.prov{white-space:pre-wrap;font-size:.78rem;background:var(--soft);border:1px solid var(--line);padding:12px;border-radius:6px;max-height:420px;overflow:auto}
.formula{font-family:"DejaVu Serif",Georgia,serif;background:var(--soft);padding:0 5px;border-radius:3px;white-space:nowrap}
.refs li{font-size:.86rem;margin:3px 0}
footer{margin-top:48px;font-size:.8rem;color:var(--muted);border-top:1px solid var(--line);padding-top:10px}
@media (max-width:860px){.cards,.first{grid-template-columns:1fr}}
@media print{.tablebox{max-height:none;overflow:visible}nav.toc{display:none}h2{break-before:auto}}
"""

NUMBER_KINDS = ("i", "u", "f")


def esc(value) -> str:
    return _html.escape("" if value is None else str(value), quote=True)


def fmt_number(value, column: str, lang: str) -> str:
    """Numbers for reading: counts with thousands separators, p-values, rates with 1-2 decimals."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "–"
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not np.isfinite(v):
        return "–"
    col = column.lower()
    if col in ("p_value", "p", "pvalue") or col.endswith("_p_value"):
        text = "<0.001" if v < 0.001 else f"{v:.3f}"
    elif col in ("year", "first_year", "last_year") or col.endswith("_year"):
        return str(int(v))
    elif float(v).is_integer() and (col in ("events", "births", "deaths", "n", "n_years", "n_units", "rows",
                                            "df", "count", "nobs", "n_obs") or col.endswith(("births", "events",
                                                                                              "deaths", "_n"))):
        text = f"{int(v):,}"
    elif abs(v) >= 1000:
        text = f"{v:,.0f}"
    elif abs(v) >= 100:
        text = f"{v:,.1f}"
    elif abs(v) >= 1 or v == 0:
        text = f"{v:,.2f}"
    else:
        text = f"{v:.3g}"
    return localise(text, lang)


def localise(text: str, lang: str) -> str:
    """Spanish writes 1.234,5; English 1,234.5."""
    if lang != "es":
        return text
    return text.replace(",", "\u2009").replace(".", ",").replace("\u2009", ".")


def column_label(col: str, lang: str) -> str:
    key = f"c_{col}"
    from .labels import LABELS

    return L(key, lang) if key in LABELS else col


def table_html(df: pd.DataFrame, lang: str, *, columns=None, max_rows: int = 400, file: str = "",
               value_labels: dict | None = None, covariates=(), country: str | None = None,
               column_labels: dict | None = None) -> str:
    """A table for reading: every header labelled (``column_labels`` first, then the ``c_<column>`` labels),
    numbers in the language's format, coded cells (flags, methods, model names, covariates) in words."""
    from .labels import cell_label

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
    head = "".join(f'<th class="{"n" if numeric[c] else ""}" scope="col">'
                   f'{esc(names.get(str(c)) or column_label(str(c), lang))}</th>' for c in cols)
    body = []
    labels = value_labels or {}
    for row in shown.itertuples(index=False, name=None):
        cells = []
        for c, v in zip(cols, row):
            if numeric[c]:
                cells.append(f'<td class="n">{esc(fmt_number(v, str(c), lang))}</td>')
            else:
                text = "" if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA else str(v)
                text = labels.get(text) or cell_label(str(c), text, lang, covariates, country)
                cells.append(f"<td>{esc(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    out = (f'<div class="tablebox"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
           f"</table></div>")
    if len(df) > max_rows:
        note = L("more_rows", lang, shown=localise(f"{max_rows:,}", lang), total=localise(f"{len(df):,}", lang),
                 file=file)
        out += f'<p class="more">{esc(note)}</p>'
    return out


def figure_html(fig, *, css_class: str = "") -> str:
    data = base64.b64encode(fig.data).decode("ascii")
    cls = f' class="{esc(css_class)}"' if css_class else ""
    caption = f"<figcaption>{esc(fig.caption)}</figcaption>" if fig.caption else ""
    return (f'<figure{cls} id="fig-{esc(fig.name)}"><img src="data:{fig.mime};base64,{data}" '
            f'alt="{esc(fig.alt or fig.caption)}">{caption}</figure>')


def _value_labels(lang: str) -> dict:
    from .labels import trend_word

    out = {k: trend_word(k, lang) for k in ("increasing", "decreasing", "stationary")}
    for k in ("rate_ratio", "attributable_risk", "attributable_risk_percent", "par", "par_percent"):
        out[k] = L(f"m_{k}", lang)
    return out


def render_html(report) -> str:
    lang = report.lang
    h = report.headline
    parts = [f'<!DOCTYPE html><html lang="{esc(lang)}"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
             "style-src 'unsafe-inline'\">",
             f"<title>{esc(report.title)}</title><style>{CSS}</style></head><body><main>"]
    generated = L("generated", lang, version=__version__, date=_today())
    toc = " ".join(f'<a href="#{esc(s.key)}">{esc(s.title)}</a>' for s in report.sections)
    parts.append(f'<header class="top"><h1>{esc(report.title)}</h1><div class="sub">{esc(h.get("scope", ""))} '
                 f'· {esc(generated)}</div><nav class="toc">{toc}</nav></header>')
    parts.append(headline_html(report))
    labels = _value_labels(lang)
    for sec in report.sections:
        parts.append(f'<section id="{esc(sec.key)}"><h2>{esc(sec.title)}</h2>')
        for b in sec.blocks:
            parts.append(block_html(b, report, labels))
        parts.append("</section>")
    parts.append(f"<footer>{esc(generated)}. brecha — "
                 f"{esc('desigualdad de la mortalidad infantil' if lang == 'es' else 'infant mortality inequality')}."
                 "</footer></main></body></html>")
    return "\n".join(parts)


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


def _block_html(b, report, labels) -> str:
    lang = report.lang
    title = f"<h3>{esc(b.title)}</h3>" if b.title else ""
    if b.kind == "table":
        item = report.tables.get(b.table)
        if item is None:
            return ""
        df = item[0]
        panel = getattr(report, "panel", None)
        return title + table_html(df, lang, columns=b.columns, max_rows=b.max_rows,
                                  file=f"tables/{b.table}.csv", value_labels=labels,
                                  covariates=list(getattr(panel, "covariates", ()) or ()),
                                  country=getattr(panel, "country", None),
                                  column_labels=getattr(b, "column_labels", None))
    if b.kind == "figure":
        return title + figure_html(b.figure)
    if b.kind == "text":
        return f"{title}<p>{esc(b.text)}</p>"
    if b.kind == "unavailable":
        return f'{title}<p class="unavailable">{esc(L("not_available", lang, reason=b.text))}</p>'
    if b.kind == "list":
        items = "".join(f"<li>{esc(i)}</li>" for i in b.items)
        return f'{title}<ul class="plain">{items}</ul>'
    if b.kind == "pre":
        return f'{title}<pre class="prov">{esc(b.text)}</pre>'
    if b.kind == "heading":
        return f'<h3 class="sub">{esc(b.title)}</h3>'
    if b.kind == "html":  # trusted markup built by brecha itself (methods), never from data
        return title + b.text
    return ""


def headline_html(report) -> str:
    lang = report.lang
    h = report.headline
    out = [f'<section id="headline"><h2 style="border-top:0;margin-top:8px">{esc(L("headline", lang))}</h2>']
    if not h.get("national"):
        out.append(f'<p class="unavailable">{esc(L("not_available", lang, reason=_headline_reason(report)))}</p>')
        out.append("</section>")
        return "".join(out)
    cards = []
    nat = h["national"]
    cards.append(_card(nat["title"], nat["value"], nat["text"], "national"))
    if h.get("gap"):
        cards.append(_card(h["gap"]["title"], h["gap"]["value"], h["gap"]["text"], "gap", "",
                           h["gap"].get("detail", "")))
    if h.get("trend"):
        t = h["trend"]
        cards.append(_card(t["title"], t["value"], t["text"], "trend",
                           {"closing": "closing", "flat": "flat"}.get(t["direction"], ""), t.get("detail", "")))
    out.append(f'<div class="cards">{"".join(cards)}</div>')
    left = []
    if h.get("worst"):
        regions = {r["region"] for r in h["worst"] + h["best"]}
        show_region = len(regions) > 1  # one region: the column would repeat its name
        for key, rows in (("h_worst", h["worst"]), ("h_best", h["best"])):
            body = "".join(
                "<tr>" + f"<td>{esc(r['name'])}</td>"
                + (f"<td>{esc(r['region'])}</td>" if show_region else "")
                + f'<td class="n"><b>{esc(r["smoothed"])}</b></td>'
                f'<td class="n">{esc(r.get("interval", ""))}</td>'
                f'<td class="n">({esc(r["observed"])})</td></tr>' for r in rows)
            head = (f"<tr><th>{esc(L('c_name', lang))}</th>"
                    + (f"<th>{esc(L('c_region', lang))}</th>" if show_region else "")
                    + f'<th class="n">{esc(L("c_rate", lang))}</th>'
                    f'<th class="n">{esc(L("c_interval", lang))}</th>'
                    f'<th class="n">{esc(L("c_observed", lang))}</th></tr>')
            left.append(f'<div class="rank" id="{"worst" if key == "h_worst" else "best"}"><h3>{esc(L(key, lang))}'
                        f"</h3><table><thead>{head}</thead><tbody>{body}</tbody></table></div>")
        left.append(f'<p class="scope">{esc(h.get("rank_note", ""))}</p>')
    if h.get("others"):  # the study's further outcomes: one line each, the detail in their own sections
        items = "".join(f'<li><a href="#{esc(o["section"])}">{esc(o["text"])}</a></li>' for o in h["others"])
        left.append(f'<div class="others" id="others"><b>{esc(L("h_others", lang))}</b><ul>{items}</ul></div>')
    if report.notes:
        items = "".join(f"<li>{esc(n)}</li>" for n in list(dict.fromkeys(report.notes))[:3])
        left.append(f'<div class="caveat"><b>{esc(L("caveats", lang))}</b><ul>{items}</ul></div>')
    right = ""
    if h.get("map") is not None:
        right = figure_html(h["map"])
    elif h.get("gap_figure") is not None:
        right = figure_html(h["gap_figure"])
    out.append(f'<div class="first"><div>{"".join(left)}</div><div>{right}</div></div>')
    out.append("</section>")
    return "".join(out)


def _headline_reason(report) -> str:
    for sec in report.sections:
        for b in sec.blocks:
            if b.kind == "unavailable":
                return b.text
    return "-"


def _card(title: str, value: str, text: str, key: str, extra: str = "", detail: str = "") -> str:
    small = f"<small>{esc(detail)}</small>" if detail else ""
    return (f'<div class="card" id="card-{esc(key)}"><h3>{esc(title)}</h3><div class="big {esc(extra)}">'
            f"{esc(value)}{small}</div><p>{esc(text)}</p></div>")


def _today() -> str:
    import datetime

    return datetime.date.today().isoformat()
