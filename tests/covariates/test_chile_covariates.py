"""Commune x year covariates: filling rules, unit conversions and values against the raw shipped sources
(read independently from ../shared/data when it is there)."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha import covariates
from brecha.errors import InputError

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
needs_shared = pytest.mark.skipif(not SHARED.exists(), reason="../shared/data not available")


@pytest.fixture(scope="module")
def chile():
    return covariates.chile_covariates(years=range(2004, 2024))


def _row(table, unit, year):
    return table[(table["unit"] == unit) & (table["year"] == year)].iloc[0]


# ----------------------------------------------------------------------------- filling rules
def _toy():
    return pd.DataFrame({"unit": ["A", "A", "A", "B"], "year": [2006, 2009, 2013, 2010],
                         "value": [10.0, 16.0, 40.0, 5.0]})


def test_interpolate_inside_carry_forward_after_missing_before():
    out = covariates.fill_series(_toy(), ["A", "B"], range(2005, 2012), "interpolate")
    a = out[out["unit"] == "A"].set_index("year")
    assert np.isnan(a.loc[2005, "value"])                      # no back-casting
    assert a.loc[2006, "value"] == 10 and not a.loc[2006, "filled"]
    assert a.loc[2007, "value"] == pytest.approx(12.0) and a.loc[2007, "filled"]
    assert a.loc[2008, "value"] == pytest.approx(14.0)
    assert a.loc[2010, "value"] == pytest.approx(16 + (40 - 16) / 4)  # 2013 anchor outside the grid still used
    b = out[out["unit"] == "B"].set_index("year")
    assert b.loc[2011, "value"] == 5.0 and b.loc[2011, "filled"]     # carried forward after the last
    assert np.isnan(b.loc[2009, "value"])


def test_carry_forward_and_none():
    cf = covariates.fill_series(_toy(), ["A"], range(2006, 2012), "carry-forward").set_index("year")
    assert cf.loc[2008, "value"] == 10 and cf.loc[2008, "filled"]
    assert cf.loc[2011, "value"] == 16
    none = covariates.fill_series(_toy(), ["A"], range(2006, 2012), "none").set_index("year")
    assert none["value"].notna().sum() == 2 and not none["filled"].any()


def test_segments_are_never_bridged():
    out = covariates.fill_series(_toy(), ["A"], range(2006, 2014), "interpolate",
                                 segments=((None, 2010), (2011, None))).set_index("year")
    assert out.loc[2010, "value"] == 16 and out.loc[2010, "filled"]   # carried within the first segment
    assert np.isnan(out.loc[2011, "value"]) and np.isnan(out.loc[2012, "value"])
    assert out.loc[2013, "value"] == 40


def test_bad_fill_rule_message():
    with pytest.raises(InputError, match="interpolate, carry-forward o"):
        covariates.chile_covariates(["poverty"], fill="linear")


def test_unknown_covariate_message():
    with pytest.raises(InputError, match="unknown covariate 'povrety'|covariable desconocida 'povrety'"):
        covariates.chile_covariates(["povrety"])


def test_haversine_against_independent_formula():
    # one degree of latitude on the sphere, and the spherical law of cosines for Santiago-Valparaíso
    assert covariates.haversine_km(0, 0, 1, 0) == pytest.approx(6371.0088 * np.pi / 180, rel=1e-12)
    lat1, lon1, lat2, lon2 = np.radians([-33.4489, -70.6693, -33.0472, -71.6127])
    cosines = 6371.0088 * np.arccos(np.sin(lat1) * np.sin(lat2) + np.cos(lat1) * np.cos(lat2) * np.cos(lon2 - lon1))
    assert covariates.haversine_km(-33.4489, -70.6693, -33.0472, -71.6127) == pytest.approx(cosines, rel=1e-9)


# ----------------------------------------------------------------------------- Chile values
@needs_shared
def test_poverty_percent_and_methodology_break(chile):
    raw = pd.read_csv(SHARED / "pobreza_comunal_sae_2009_2020.csv", dtype={"codigo_comuna_2018": str})
    iquique_2009 = raw[(raw.codigo_comuna_2018 == "01101") & (raw.anio == 2009) & (raw.dimension == "ingresos")]
    assert iquique_2009["proporcion_pobreza"].iloc[0] == 0.14          # published as a proportion
    assert _row(chile, "01101", 2009)["poverty"] == pytest.approx(14.0)  # ours in percent
    raw22 = pd.read_csv(SHARED / "pobreza_comunal_sae_2022.csv", dtype={"codigo_comuna": str})
    tasa = raw22[(raw22.codigo_comuna == "01101") & (raw22.dimension == "ingresos")]["tasa"].iloc[0]
    assert _row(chile, "01101", 2022)["poverty"] == pytest.approx(tasa)   # already percent
    trad_2011 = raw[(raw.codigo_comuna_2018 == "01101") & (raw.anio == 2011) & (raw.dimension == "ingresos")
                    & raw.metodologia_medicion.str.startswith("tradicional")]["proporcion_pobreza"].iloc[0]
    new_2011 = raw[(raw.codigo_comuna_2018 == "01101") & (raw.anio == 2011) & (raw.dimension == "ingresos")
                   & raw.metodologia_medicion.str.startswith("nueva")]["proporcion_pobreza"].iloc[0]
    # up to 2012 the traditional line: 2012 carries 2011 forward (flagged), never the new line
    assert _row(chile, "01101", 2011)["poverty"] == pytest.approx(100 * trad_2011)
    r2012 = _row(chile, "01101", 2012)
    assert r2012["poverty"] == pytest.approx(100 * trad_2011) and r2012["poverty_filled"]
    assert _row(chile, "01101", 2011)["poverty_new"] == pytest.approx(100 * new_2011)
    # 2010 interpolated between 2009 and 2011, flagged
    r2010 = _row(chile, "01101", 2010)
    assert r2010["poverty"] == pytest.approx((14.0 + 100 * trad_2011) / 2) and r2010["poverty_filled"]
    # SINIM's pobreza (CASEN 2006) counts for 2006 only; before it nothing
    sinim = pd.read_csv(SHARED / "sinim_comunas_2006_2012_via_bentancor_clarke.csv")
    assert _row(chile, "01101", 2006)["poverty"] == pytest.approx(sinim[(sinim.codigo == 1101) & (sinim.year == 2006)]["pobreza"].iloc[0])
    assert np.isnan(_row(chile, "01101", 2005)["poverty"])


@needs_shared
def test_health_spending_segments(chile):
    sinim = pd.read_csv(SHARED / "sinim_comunas_2006_2012_via_bentancor_clarke.csv")
    published = sinim[(sinim.codigo == 1101)].set_index("year")["saludtotalpc"].astype(float)
    for year in range(2006, 2013):
        assert _row(chile, "01101", year)["health_spending_pc"] == pytest.approx(published[year])
    assert np.isnan(_row(chile, "01101", 2015)["health_spending_pc"])      # gap 2013-2018 not bridged
    # 'Costo Fijo' in Camiña 2006 (first year of the segment): missing, not back-cast
    assert np.isnan(_row(chile, "01402", 2006)["health_spending_pc"])


@needs_shared
def test_schooling_recomputed_from_raw_census(chile):
    raw = pd.read_csv(SHARED / "censo2017_comunal_consolidado.csv", dtype={"Codigo_comuna": str})
    r = raw[raw.Codigo_comuna == "01101"].iloc[0]
    high = sum(r[f"NivelEducacional_{k}"] for k in covariates.SECONDARY_OR_HIGHER)
    levels = [c for c in raw.columns if c.startswith("NivelEducacional_") and not c.endswith(("Noaplica", "Missing"))]
    expected = 100 * high / sum(r[c] for c in levels)
    values = chile.loc[chile["unit"] == "01101", "schooling"]
    assert values.nunique() == 1 and values.iloc[0] == pytest.approx(expected)
    assert not chile["schooling_filled"].any()


@needs_shared
def test_sapu_caveat_counts_and_flags(chile):
    raw = pd.read_csv(SHARED / "establecimientos_salud_deis_con_fecha_inicio.csv", dtype=str)
    sapu = raw[raw.TIPO.str.contains(r"\((?:SAPU|SAR)\)", regex=True, na=False)]
    assert len(sapu) == 312
    assert (sapu.F_INICIO_ISO == "2009-01-01").sum() == 175 and sapu.F_INICIO_ISO.isna().sum() == 79
    # a commune whose only SAPU/SAR has a real date: 0 before, 1 from the opening year, never flagged
    dated = sapu[~(sapu.F_INICIO_ISO.isna() | (sapu.F_INICIO_ISO == "2009-01-01"))]
    uncertain_units = set(sapu.loc[sapu.F_INICIO_ISO.isna() | (sapu.F_INICIO_ISO == "2009-01-01"), "C_COM"].str.zfill(5))
    only_dated = dated[~dated.C_COM.str.zfill(5).isin(uncertain_units)].copy()
    only_dated["year"] = only_dated.F_INICIO_ISO.str[:4].astype(int)
    first = only_dated.groupby(only_dated.C_COM.str.zfill(5))["year"].min()
    unit, year = next((u, y) for u, y in first.items() if 2005 < y < 2023)
    series = chile[chile["unit"] == unit].set_index("year")
    assert series.loc[year - 1, "sapu"] == 0 and series.loc[year, "sapu"] == 1
    assert not series["sapu_filled"].any()
    # communes resting on placeholder/undated services: 1 in every year, flagged
    u = sorted(uncertain_units - set(first.index))[0]
    series = chile[chile["unit"] == u]
    assert (series["sapu"] == 1).all() and series["sapu_filled"].all()


@needs_shared
def test_distance_to_high_complexity_hospital(chile):
    hosp = pd.read_csv(SHARED / "hospitals_deis.csv" if (SHARED / "hospitals_deis.csv").exists()
                       else SHARED / "hospitales_deis.csv")
    alta = hosp[hosp.NIVEL_COM == "Alta Complejidad"]
    seats = pd.read_csv(SHARED / "comunas_cut_2018.csv", dtype={"codigo_comuna": str}).set_index("codigo_comuna")
    for unit in ("01101", "09108", "13101"):
        lat, lon = seats.loc[unit, "latitud_cabecera"], seats.loc[unit, "longitud_cabecera"]
        expected = covariates.haversine_km(lat, lon, alta.LATITUD.to_numpy(float), alta.LONGITUD.to_numpy(float)).min()
        values = chile.loc[chile["unit"] == unit, "distance_hospital_km"]
        assert values.nunique() == 1
        assert values.iloc[0] == pytest.approx(expected, rel=1e-3, abs=0.5)


def test_sources_table_names_every_covariate():
    src = covariates.covariate_sources(lang="en")
    assert list(src.columns[:3]) == ["covariate", "source", "years_observed"]
    assert {"filling_rule", "caveat"} <= set(src.columns)
    assert set(src["covariate"]) == set(covariates.CHILE_SOURCES)
    assert src["filling_rule"].str.len().gt(0).all() and src["caveat"].str.len().gt(0).all()
    assert "175 of 312" in src.set_index("covariate").loc["sapu", "caveat"]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_attach_adds_columns_and_notes():
    from brecha import datasets

    panel = datasets.chile().subset(years=range(2006, 2013))
    out = covariates.attach(panel, ["poverty", "health_spending_pc"], lang="en")
    assert {"poverty", "health_spending_pc"} <= set(out.covariates)
    assert len(out.data) == len(panel.data)
    # the notes attach adds ("Covariate poverty: ..."); the embedded panel's own note ("Covariates attached
    # ...") is in the language the cached panel was first built in, which other tests may have set to English
    notes = [n for n in out.notes if n.startswith("Covariate ")]
    assert len(notes) == 2
    assert all("filling: interpolate" in n and "observed" in n for n in notes)
    # the filled count in the note equals the flags of the same rows
    table = covariates.chile_covariates(["poverty"], years=range(2006, 2013))
    flagged = panel.data[["unit", "year"]].merge(table, on=["unit", "year"])["poverty_filled"].sum()
    assert f"{flagged} of {len(panel.data)}" in notes[0]


@pytest.mark.parametrize("names, fill", [(["poverty", "health_spending_pc"], "interpolate"),
                                         (["sapu", "poverty"], "carry-forward"),
                                         (["distance_hospital_km"], "none"),
                                         (["poverty", "poverty_new"], "interpolate")])
def test_attach_takes_the_standard_table_it_already_built_with_the_same_values(names, fill):
    """attach() reuses the standard covariates' table built for an embedded panel (issue 19) when it names
    only standard covariates: the values and flags are those chile_covariates() builds anew."""
    from brecha import datasets

    panel = datasets.chile()
    years = sorted(int(y) for y in panel.data["year"].unique())
    values, _ = covariates._build(panel.data, "CL", names, fill, "en")
    anew = panel.data[["unit", "year"]].astype({"unit": str, "year": "int64"}).merge(
        covariates.chile_covariates(names, years, fill), on=["unit", "year"], how="left")
    pd.testing.assert_frame_equal(values, anew[["unit", "year", *names]])


def test_brazil_census_covariates_interpolated_between_censuses():
    from brecha import datasets

    census = datasets.brazil_table("census").set_index(["unit", "year"])
    table = covariates.brazil_covariates(["poverty", "gini"], years=range(2000, 2013))
    row = table[(table["unit"] == "110001")].set_index("year")
    p2000, p2010 = census.loc[("110001", 2000), "poor_percent"], census.loc[("110001", 2010), "poor_percent"]
    assert row.loc[2000, "poverty"] == p2000 and not row.loc[2000, "poverty_filled"]
    assert row.loc[2004, "poverty"] == pytest.approx(p2000 + 0.4 * (p2010 - p2000))
    assert row.loc[2004, "poverty_filled"]
    assert row.loc[2012, "poverty"] == p2010 and row.loc[2012, "poverty_filled"]   # carried forward
    src = covariates.covariate_sources("BR", lang="en").set_index("covariate")
    assert src.loc["health_spending_pc", "filling_rule"].startswith("not filled")


@pytest.mark.filterwarnings("ignore")
def test_fit_models_builds_missing_covariates_with_the_fill_rule():
    from brecha import datasets, models

    panel = datasets.chile()
    interp = models.fit_models(panel, "imr", ["poverty"], models=["pooled"], years=range(2006, 2012),
                               tests=False, lang="en")
    none = models.fit_models(panel, "imr", ["poverty"], models=["pooled"], years=range(2006, 2012),
                             fill="none", tests=False, lang="es")
    # observed poverty only in 2006, 2009 and 2011: fill="none" keeps about half the rows
    assert none.fits["pooled"].nobs < 0.6 * interp.fits["pooled"].nobs
    assert any(n.startswith("Covariate poverty:") and "filling: interpolate" in n for n in interp.notes)
    assert any(n.startswith("Covariable poverty:") and "relleno: none (solo años observados)" in n
               for n in none.notes)


@pytest.fixture(scope="module")
def standard():
    from brecha import datasets

    data = datasets.chile_data()
    out, note = covariates.add_standard(data, lang="en")
    return data, out, note


def test_add_standard_keeps_rows_and_matches_the_built_table(standard):
    data, out, note = standard
    names = ["poverty", "health_spending_pc", "schooling", "sapu", "distance_hospital_km"]
    assert list(out.columns) == list(data.columns) + names
    assert out[["unit", "year"]].equals(data[["unit", "year"]])
    table = covariates.chile_covariates(names, years=sorted(data["year"].unique()))
    expected = data[["unit", "year"]].merge(table, on=["unit", "year"], how="left")
    for name in names:
        np.testing.assert_array_equal(out[name].to_numpy(float), expected[name].to_numpy(float))
    assert all(f"{n} (" in note for n in names) and "covariate_sources()" in note
    assert covariates.is_standard_note(note)
    assert covariates.is_standard_note(covariates.standard_note("CL", lang="es"))
    assert not covariates.is_standard_note("Covariate poverty: ...")


@pytest.mark.filterwarnings("ignore")
def test_models_rebuild_the_covariates_an_embedded_panel_carries(standard):
    """When brecha.datasets.chile() carries the standard covariates, --fill and the notes still apply."""
    from brecha import models
    from brecha.panel import Panel

    _, out, note = standard
    panel = Panel(out, country="CL", source="brecha.datasets.chile", notes=(note,))
    none = models.fit_models(panel, "imr", ["poverty"], models=["pooled"], years=range(2006, 2012),
                             fill="none", tests=False, lang="en")
    interp = models.fit_models(panel, "imr", ["poverty"], models=["pooled"], years=range(2006, 2012),
                               tests=False, lang="en")
    assert none.fits["pooled"].nobs < 0.6 * interp.fits["pooled"].nobs
    assert any(n.startswith("Covariate poverty:") and "filling: none" in n for n in none.notes)
    assert not any(covariates.is_standard_note(n) for n in none.notes)
    # covariates the user attached keep the rule they were attached with
    mine = covariates.attach(panel.subset(years=range(2006, 2012)), ["poverty"], fill="none", lang="es")
    kept = models.fit_models(mine, "imr", ["poverty"], models=["pooled"], tests=False, lang="en")
    assert kept.fits["pooled"].nobs == none.fits["pooled"].nobs
    assert any(n.startswith("Covariable poverty:") and "relleno: none" in n for n in kept.notes)
    # a panel file of the user's own keeps its columns as they are
    own = Panel(out.assign(poverty=1.0 + out["year"] % 3), country="CL", source="mine.csv")
    res = models.fit_models(own, "imr", ["poverty"], models=["pooled"], tests=False, lang="en")
    assert not any(n.startswith("Covariate poverty:") for n in res.notes)


def test_every_source_text_is_bilingual():
    for table in (covariates.CHILE_SOURCES, covariates.BRAZIL_SOURCES):
        for name, fields in table.items():
            for field in ("source", "years_observed", "segments", "caveat", "short"):
                assert len(fields[field]) == 2, (name, field)
            assert fields["caveat"][0] != fields["caveat"][1], name
    es = covariates.covariate_sources("CL", lang="es").set_index("covariate")
    assert "175 de 312" in es.loc["sapu", "caveat"]
    assert es.loc["poverty", "filling_rule"].startswith("opción fill= (por defecto interpolate: interpolación")
    assert es.loc["schooling", "filling_rule"] == "constante (sin variación en el tiempo)"
    text = " ".join(es.to_numpy().ravel())
    for english in ("percent of persons", "missing", "carried forward", "time-invariant", "snapshot"):
        assert english not in text, english


def test_attach_notes_in_spanish():
    from brecha import datasets

    panel = datasets.brazil().subset(years=range(2008, 2012))
    out = covariates.attach(panel, ["poverty", "health_spending_pc"], lang="es")
    notes = [n for n in out.notes if n.startswith("Covariable")]
    assert len(notes) == 2
    assert "relleno: interpolate (interpolación lineal" in notes[0] and "Advertencia: solo años censales" in notes[0]
    assert "relleno: sin relleno (solo valores observados)" in notes[1]


def test_no_country_message():
    from brecha.panel import Panel

    data = pd.DataFrame({"unit": ["A", "B"], "year": [2010, 2010], "births": [100, 200], "deaths": [1, 2]})
    with pytest.raises(InputError, match="no country|no indica país") as err:
        covariates.attach(Panel(data), ["poverty"])
    assert err.value.hint


def test_add_standard_merge_weights_parent_and_child_by_births(standard):
    """split="merge": Iquique (01101) absorbs Alto Hospicio (01107): births-weighted means, sapu = max."""
    from brecha import datasets

    _, keep, _ = standard
    merged, _ = covariates.add_standard(datasets.chile_data("merge"), split="merge", lang="en")
    pair = keep[keep["unit"].isin(["01101", "01107"]) & (keep["year"] == 2010)]
    w = pair["births"].astype(float).to_numpy()
    row = merged[(merged["unit"] == "01101") & (merged["year"] == 2010)].iloc[0]
    for name in ("poverty", "health_spending_pc", "schooling", "distance_hospital_km"):
        assert row[name] == pytest.approx(np.average(pair[name].to_numpy(float), weights=w), rel=1e-12)
    assert row["sapu"] == pair["sapu"].max()
    # a commune that absorbs nothing keeps its own values
    own = keep[(keep["unit"] == "13101") & (keep["year"] == 2010)].iloc[0]
    other = merged[(merged["unit"] == "13101") & (merged["year"] == 2010)].iloc[0]
    assert other["poverty"] == own["poverty"] and other["sapu"] == own["sapu"]
