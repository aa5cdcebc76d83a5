"""What the reader sees: covariates by their labels, every table header in words, coded cells translated,
and the inequality section measured against the same reference as the disparity section."""
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from brecha.report.html import column_label, table_html
from brecha.report.labels import cell_label, covariate_label, relabel_covariates


def _pooled_counts(panel, codes=None):
    d = panel.data
    if codes is not None:
        d = d[d["unit"].astype(str).isin(codes)]
    return float(d["deaths"].sum()), float(d["births"].sum())


def test_inequality_par_percent_is_the_disparity_global_par_percent(default_report):
    """PAF of the inequality section = PAR% of the country against the reference in the disparity section
    (Schneider et al. 2002: PAR% = (R_T − R_r)/R_T × 100), pooled and per year, and both equal the
    direct count. The two CIs differ slightly by construction: disparity uses the delta method with the
    reference inside the total, inequality Walter's (1978) variance as WHO HEAT."""
    report, _ = default_report
    ineq = report.table("inequality_pooled")
    disp = report.table("disparity_total_pooled")
    paf = ineq[ineq["measure"] == "paf"].iloc[0]
    par_pct = disp[disp["measure"] == "par_percent"].iloc[0]
    assert paf["estimate"] < 100  # WHO's default "best unit" (rate 0) gave 100
    assert paf["estimate"] == pytest.approx(par_pct["estimate"], rel=1e-9)
    # independent: the reference the inequality table names, and the totals, counted from the panel
    codes = str(paf["reference"]).split(",")
    assert codes and codes[0] in report.reference_label
    deaths, births = _pooled_counts(report.panel)
    ref_deaths, ref_births = _pooled_counts(report.panel, codes)
    total, ref = deaths / births, ref_deaths / ref_births
    assert paf["estimate"] == pytest.approx((total - ref) / total * 100, rel=1e-9)
    assert float(disp["reference_rate"].dropna().iloc[0]) == pytest.approx(ref * 1000, rel=1e-9)
    assert abs(paf["lower"] - par_pct["lower"]) < 0.5 and abs(paf["upper"] - par_pct["upper"]) < 0.5
    # per year, the same equality
    per_year = report.table("inequality_year")
    a = per_year[per_year["measure"] == "paf"].set_index("period")["estimate"]
    dy = report.table("disparity_total_year")
    b = dy[dy["measure"] == "par_percent"].set_index("period")["estimate"]
    both = pd.concat([a, b], axis=1, keys=["ineq", "disp"]).dropna()
    assert len(both) == 16
    np.testing.assert_allclose(both["ineq"], both["disp"], rtol=1e-9)
    # the reader is told which reference
    texts = [b.text for s in report.sections if s.key == "inequality" for b in s.blocks if b.kind == "text"]
    assert any(report.reference_label in t and "PAF" in t for t in texts)


class _Cells(HTMLParser):
    """Text of every <th>, <td>, <h2>, <h3> and <figcaption> (the reading parts of the page)."""

    def __init__(self):
        super().__init__()
        self.tag, self.found = None, []

    def handle_starttag(self, tag, attrs):
        if tag in ("th", "td", "h2", "h3", "figcaption"):
            self.tag = tag
            self.found.append((tag, ""))

    def handle_endtag(self, tag):
        if tag == self.tag:
            self.tag = None

    def handle_data(self, data):
        if self.tag:
            tag, text = self.found[-1]
            self.found[-1] = (tag, text + data)


def _reading_parts(out):
    parser = _Cells()
    parser.feed((out / "index.html").read_text(encoding="utf-8"))
    return parser.found


def test_covariates_read_by_their_labels_and_csv_keeps_the_names(default_report):
    report, out = default_report
    parts = _reading_parts(out)
    raw = re.compile(r"\b(poverty|health_spending_pc)\b(?! \()")  # "label (poverty)" is allowed
    offending = [(tag, text) for tag, text in parts if raw.search(text.replace("income poverty", ""))]
    assert not offending, offending[:5]
    headings = [text for tag, text in parts if tag == "h3"]
    assert "Inequality by income poverty (%)" in headings
    assert "Inequality of municipal health spending per head (M$) per year" in headings
    cells = {text for tag, text in parts if tag == "td"}
    assert {"income poverty (%)", "municipal health spending per head (M$)", "Pooled OLS"} <= cells
    # scripts still find the column names in the CSV files
    coefficients = pd.read_csv(out / "tables" / "model_coefficients.csv")
    assert {"poverty", "health_spending_pc"} <= set(coefficients["term"])
    assert set(coefficients["model"]) >= {"pooled", "fe", "re"}
    # the scatter's axis names the covariate by its label (SVG text is kept as text)
    svg = (out / "figures" / "comovement.svg").read_text(encoding="utf-8")
    assert "municipal health spending per head" in svg and "health_spending_pc" not in svg


def test_every_table_header_is_a_word_not_a_column_name(default_report):
    report, out = default_report
    headers = [text for tag, text in _reading_parts(out) if tag == "th"]
    raw = [h for h in headers if re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+", h)]
    assert not raw, raw
    funnel = [text for tag, text in _reading_parts(out) if tag == "td" and "99.8 %" in text]
    assert funnel and all(t == "above the upper 99.8 % limit" for t in funnel)


@pytest.mark.parametrize("lang, expected", [
    ("es", ["Medida (TMI)", "Método", "Estimación", "Método del IC", "Años usados"]),
    ("en", ["Measure (IMR)", "Method", "Estimate", "CI method", "Years used"]),
])
def test_comovement_and_model_test_headers_in_each_language(lang, expected):
    df = pd.DataFrame({"measure_a": ["gini"], "method": ["pearson"], "estimate": [0.1],
                       "ci_method": ["Fisher z"], "periods": ["2006,2007"]})
    html = table_html(df, lang)
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", html)
    assert heads == expected
    cells = re.findall(r"<td>([^<]*)</td>", html)
    assert cells[0] == ("Gini (ponderado)" if lang == "es" else "Gini (weighted)")
    assert cells[1] == "Pearson"
    assert column_label("df_denominator", lang) == ("gl del denominador" if lang == "es" else "Denominator df")


def test_cell_labels_translate_codes_and_leave_the_rest():
    assert cell_label("flag", "high", "es") == "sobre el límite superior de 99,8 %"
    assert cell_label("flag", "low", "en") == "below the lower 99.8 % limit"
    assert cell_label("flag", "zero_births;lower_clipped", "en") == "0 births (rate undefined); lower limit clipped at 0"
    assert cell_label("method", "exact", "es") == "exacto de Poisson"
    assert cell_label("method", "exact-poisson (Spiegelhalter 2005)", "es") == "exactos de Poisson (Spiegelhalter 2005)"
    assert cell_label("status", "excluded", "es") == "excluidas"
    assert cell_label("term", "intercept", "es") == "constante"
    assert cell_label("term", "poverty", "es", covariates=["poverty"]) == "pobreza por ingresos (%)"
    assert cell_label("term", "poverty", "es") == "poverty"  # not a covariate of this table: left alone
    assert cell_label("model", "fe", "en") == "Fixed effects (unit)"
    assert cell_label("name", "high", "en") == "high"  # only coded columns are translated
    assert cell_label("periods", "2006,2007,2008,2010,2012,2013", "en") == "2006-2008, 2010, 2012-2013"


def test_covariate_labels_in_both_languages():
    assert covariate_label("poverty", "es") == "pobreza por ingresos (%)"
    assert covariate_label("poverty", "en") == "income poverty (%)"
    assert covariate_label("health_spending_pc", "es") == "gasto municipal en salud por habitante (M$)"
    assert covariate_label("health_spending_pc", "en", "BR") == "municipal health spending per head (R$)"
    assert covariate_label("distance_hospital_km", "en") == "distance to a high-complexity hospital (km)"
    assert covariate_label("my_own_column", "es") == "my_own_column"
    text = "H0: ...; compares poverty, health_spending_pc"
    assert relabel_covariates(text, ["poverty", "health_spending_pc"], "en") == (
        "H0: ...; compares income poverty (%), municipal health spending per head (M$)")
