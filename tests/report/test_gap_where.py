"""The report's "Where is the gap?" section and the excess-deaths card of the first screen (issue 14)."""
import numpy as np
import pytest

AYSEN_DECOMPOSE = '''
title = "Aysén"
language = "es"
period = "2006-2012"
[data]
example = "chile"
[units]
region = "11"
[reference]
rule = "best"
min_births = 1000
[analyses.rates]
[analyses.disparity]
[analyses.decompose]
by = "province"
measures = ["theil", "gini"]
rank_by = "poverty"
determinants = ["poverty", "schooling"]
bootstrap = 200
seed = 3
'''


def test_default_report_has_the_section_its_tables_add_up_and_the_card(default_report):
    report, out = default_report
    section = next(s for s in report.sections if s.key == "gap_where")
    assert section.title == "Where is the gap?"
    year = report.table("gap_where_year")
    for (period, measure), block in year.groupby(["period", "measure"]):
        b = block.set_index("component")["estimate"]
        parts = b["between"] + b["within"] + (b["overlap"] if measure == "gini" else 0.0)
        assert parts == pytest.approx(b["total"], abs=1e-12)
    det = report.table("gap_where_determinants").set_index("term")
    assert det.drop("total")["contribution"].sum() == pytest.approx(det.loc["total", "contribution"], abs=1e-14)
    assert {"poverty", "schooling", "sapu", "health_spending_pc", "distance_hospital_km"} <= set(det.index)
    assert det["lower"].notna().all()  # the example study asks for 1,000 replicates
    # the card: the pooled excess deaths of the disparity table, a year
    total = report.table("disparity_total_pooled")
    excess = total[total["measure"].astype(str) == "excess_deaths"].iloc[0]
    card = report.headline["excess"]
    years = len(report.study.years or range(2000, 2016))
    assert card["estimate"] == pytest.approx(float(excess["estimate"]) / years, rel=1e-12)
    # independently: Σ D − Σ B × r_ref over the communes and years analysed
    panel = report.panel
    d = panel.data.dropna(subset=["deaths", "births"])
    independent = d["deaths"].astype(float).sum() - d["births"].astype(float).sum() * excess["reference_rate"] / 1000
    assert float(excess["estimate"]) == pytest.approx(independent, rel=1e-9)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="card-excess"' in html and "would not have happened at the reference" in html
    units = report.table("gap_where_excess_units")
    assert units["estimate"].sum() == pytest.approx(float(excess["estimate"]), rel=1e-9)


def test_spanish_small_study_with_provinces_and_determinants(tmp_path):
    from brecha.report.build import build_report
    from brecha.study import read_study

    path = tmp_path / "aysen.toml"
    path.write_text(AYSEN_DECOMPOSE, encoding="utf-8")
    out = tmp_path / "rep"
    report = build_report(read_study(path), out)
    section = next(s for s in report.sections if s.key == "gap_where")
    assert section.title == "¿Dónde está la brecha?"
    assert not [b for b in section.blocks if b.kind == "unavailable"]
    groups = report.table("gap_where_groups")
    assert groups["group"].nunique() == 4  # Aysén's four provinces
    theil = report.table("gap_where_year")
    assert set(theil["measure"]) == {"theil", "gini"}
    assert np.isfinite(theil["lower"]).any()
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "no habrían ocurrido con la tasa de la referencia" in html
    assert "Muertes evitables" in html
