"""Build brecha's embedded data (src/brecha/data) from the shared source folder.

    python tools/build_data.py ../shared/data            (run from the repository root)

Deterministic: the same sources give byte-identical files. Writes the registries (Chile, Brazil), the
Chilean and Brazilian panels, the Chilean covariate source tables, the Brazilian census table, the
ledger (every source row counted as kept or excluded with a reason) and PROVENANCE.md, which says for
each shipped file where it comes from and what was done to it. Every check below stops the build with
an AssertionError when the sources do not look as documented.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from brecha.registry import codes as registry_codes  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
import build_data_argentina  # noqa: E402

SPLITS = [  # child, parent, created_year (all four by laws of 2004; SOURCES.md section 6)
    ("01107", "01101", 2004),  # Alto Hospicio from Iquique
    ("08112", "08110", 2004),  # Hualpén from Talcahuano
    ("08314", "08311", 2004),  # Alto Biobío from Santa Bárbara
    ("09121", "09111", 2004),  # Cholchol from Nueva Imperial
]
CHILE_YEARS = range(2000, 2016)
BRAZIL_YEARS = range(2000, 2020)
REGION_NAMES_BR = {1: "Norte", 2: "Nordeste", 3: "Sudeste", 4: "Sul", 5: "Centro-Oeste"}

LEDGER: list[dict] = []
FILES: dict[str, dict] = {}  # shipped file -> provenance facts


def ledger(dataset, source, status, reason, frame: pd.DataFrame, births=False, deaths=False):
    """Ledger lines, one per year of ``frame`` (which has a ``year`` column and, when counted, ``births``
    and/or ``deaths``): rows and count sums."""
    years = sorted(frame["year"].unique())
    for year in years:
        part = frame[frame["year"] == year]
        LEDGER.append({"dataset": dataset, "source": source, "year": int(year), "status": status,
                       "reason": reason, "rows": len(part),
                       "births": int(part["births"].sum()) if births else None,
                       "deaths": int(part["deaths"].sum()) if deaths else None})


def write_parquet(df: pd.DataFrame, out: Path, name: str, **facts) -> None:
    df = df.reset_index(drop=True)
    df.to_parquet(out / name, index=False, compression="zstd")
    FILES[name] = {"rows": len(df), "columns": list(df.columns), **facts}


def read_csv(src: Path, name: str, **kw) -> pd.DataFrame:
    return pd.read_csv(src / name, dtype=str, keep_default_na=False, na_values=[""], **kw)


def num(s: pd.Series) -> pd.Series:
    return pd.to_numeric(s, errors="coerce")


def count(s: pd.Series) -> pd.Series:
    """Counts as pandas Int64 (empty stays <NA>)."""
    values = num(s)
    assert ((values.dropna() % 1) == 0).all(), "non-integer count"
    return values.round().astype("Int64")


# ---------------------------------------------------------------------------------------------------
# Chile registry
# ---------------------------------------------------------------------------------------------------
def chile_registry(src: Path, out: Path):
    cut = read_csv(src, "comunas_cut_2018.csv")
    assert len(cut) == 346 and cut["codigo_comuna"].is_unique
    units = pd.DataFrame({
        "unit": cut["codigo_comuna"].str.zfill(5),
        "name": cut["nombre_comuna"],
        "province": cut["codigo_provincia"].str.zfill(3),
        "province_name": cut["nombre_provincia"],
        "region": cut["codigo_region"].str.zfill(2),
        "region_name": cut["nombre_region"],
        "country": "CL",
        "lat": num(cut["latitud_cabecera"]).astype("float64"),
        "lon": num(cut["longitud_cabecera"]).astype("float64"),
    }).sort_values("unit")
    assert units["unit"].str.fullmatch(r"\d{5}").all()
    assert units["lat"].notna().all() and units["lon"].notna().all()
    # Antártica (12202) has seat coordinates 0, 0 in the source: not a place in Chile -> NaN
    zero = (units["lat"] == 0) & (units["lon"] == 0)
    assert units.loc[zero, "unit"].tolist() == ["12202"]
    units.loc[zero, ["lat", "lon"]] = np.nan
    write_parquet(units, out, "cl_units.parquet", sources=["comunas_cut_2018.csv"])

    hist_raw = read_csv(src, "comunas_codigos_historicos.csv")
    assert len(hist_raw) == 346
    history = pd.DataFrame({
        "name": hist_raw["nombre_comuna"],
        "code_pre_1999": num(hist_raw["codigo_pre_1999"]).astype("int64"),
        "code_2000_2008": num(hist_raw["codigo_2000_2008"]).astype("int64"),
        "code_2008_2010": num(hist_raw["codigo_2008_2010"]).astype("int64"),
        "code_2010_2018": num(hist_raw["codigo_2010_2018"]).astype("int64"),
        "code_2018": num(hist_raw["codigo_2018_actual"]).astype("int64"),
        "unit": hist_raw["codigo_2018_actual"].str.zfill(5),
        "region_2000_2008": hist_raw["codigo_region_2000_2008"].str.zfill(2),
        "region_2008_2018": hist_raw["codigo_region_2008_2018"].str.zfill(2),
    }).sort_values("unit")
    assert set(history["unit"]) == set(units["unit"])
    for column in ["code_2000_2008", "code_2008_2010", "code_2010_2018", "code_2018"]:
        assert history[column].is_unique, column
    shared = history[history["code_pre_1999"].duplicated(keep=False)]
    pairs = {tuple(sorted(g["unit"])) for _, g in shared.groupby("code_pre_1999")}
    assert pairs == {tuple(sorted((c, p))) for c, p, _ in SPLITS}, pairs
    write_parquet(history, out, "cl_code_history.parquet", sources=["comunas_codigos_historicos.csv"])
    splits = pd.DataFrame(SPLITS, columns=["child", "parent", "created_year"])
    splits["created_year"] = splits["created_year"].astype("int64")
    write_parquet(splits, out, "cl_splits.parquet", sources=["comunas_codigos_historicos.csv", "SOURCES.md"])

    # polygons: re-key to the 5-digit unit, round coordinates to 5 decimals (about 1 m)
    geo = json.loads((src / "comunas_poligonos_censo2017_simplificado.geojson").read_text(encoding="utf-8"))
    features = []
    official = dict(zip(units["unit"], units["name"]))
    for feature in geo["features"]:
        props = feature["properties"]
        unit = str(props["COMUNA"]).zfill(5)
        geometry = feature["geometry"]
        geometry = {"type": geometry["type"], "coordinates": _round_coords(geometry["coordinates"], 5)}
        features.append({"type": "Feature",
                         "properties": {"unit": unit, "name": official.get(unit, props["NOM_COMUNA"])},
                         "geometry": geometry})
    features.sort(key=lambda f: f["properties"]["unit"])
    keys = [f["properties"]["unit"] for f in features]
    assert len(keys) == 345 and len(set(keys)) == 345 and set(keys) <= set(units["unit"])
    missing = sorted(set(units["unit"]) - set(keys))
    assert missing == ["12202"], missing
    collection = {"type": "FeatureCollection", "crs": geo.get("crs"), "features": features}
    text = json.dumps(collection, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    (out / "cl_polygons.geojson.gz").write_bytes(gzip.compress(text, compresslevel=9, mtime=0))
    FILES["cl_polygons.geojson.gz"] = {"rows": len(features), "columns": ["properties.unit", "properties.name"],
                                       "sources": ["comunas_poligonos_censo2017_simplificado.geojson"],
                                       "missing": missing}
    return units, history, splits


def _round_coords(value, digits):
    if isinstance(value, (int, float)):
        return round(float(value), digits)
    return [_round_coords(v, digits) for v in value]


# ---------------------------------------------------------------------------------------------------
# Chile panel: infant deaths (INE 2000-2015), births (DEIS via Bentancor-Clarke 2000-2009, INE 2010-2015)
# ---------------------------------------------------------------------------------------------------
def chile_panel(src: Path, out: Path, units: pd.DataFrame, splits: pd.DataFrame):
    child_created = dict(zip(splits["child"], splits["created_year"]))
    parent_of = dict(zip(splits["child"], splits["parent"]))

    # deaths ------------------------------------------------------------------------------------------
    name = "ine_defunciones_infantiles_comuna_2000_2015.csv"
    d = read_csv(src, name)
    d["unit"] = d["codigo_comuna"].str.zfill(5)
    d["year"] = num(d["anio"]).astype("int64")
    d["deaths"] = count(d["defunciones_menores_1_anio"])
    assert len(d) == 346 * 16 and not d.duplicated(["unit", "year"]).any()
    assert set(d["unit"]) == set(units["unit"])
    ledger("chile", name, "read", "rows in the source", d, deaths=True)
    before = d["unit"].map(child_created).fillna(0).astype(int) > d["year"]
    assert d.loc[before, "deaths"].isna().all() and before.sum() == 16
    assert d.loc[~before, "deaths"].notna().all()
    ledger("chile", name, "excluded", "commune not yet created (2004 split): empty row, its deaths are in the parent",
           d[before].assign(deaths=0), deaths=True)
    deaths = d.loc[~before, ["unit", "year", "deaths"]]
    no_row = (~before) & (d["fila_en_fuente"] == "0")
    ledger("chile", name, "kept", "commune-years", deaths, deaths=True)
    expected_national = {2000: 2336, 2001: 2159, 2002: 1964, 2003: 1935, 2004: 2034, 2005: 1911, 2006: 1839,
                         2007: 2009, 2008: 1948, 2009: 1997, 2010: 1862, 2011: 1908, 2012: 1812, 2013: 1692,
                         2014: 1825, 2015: 1683}
    assert deaths.groupby("year")["deaths"].sum().to_dict() == expected_national
    deaths_facts = {"no_row_zero": int(no_row.sum())}

    # births 2000-2009 (DEIS, mothers 15-49) --------------------------------------------------------
    name_bc = "nacimientos_comuna_2000_2011_deis_via_bentancor_clarke.csv"
    b = read_csv(src, name_bc)
    b["unit"] = b["codigo_comuna"].str.zfill(5)
    b["year"] = num(b["anio"]).astype("int64")
    b["births"] = count(b["nacidos_vivos_madres_15_49"])
    assert not b.duplicated(["unit", "year"]).any() and b["births"].notna().all()
    assert set(b["unit"]) <= set(units["unit"])
    ledger("chile", name_bc, "read", "rows in the source", b, births=True)
    late = b["year"] >= 2010
    ledger("chile", name_bc, "excluded", "2010-2011: incomplete (lost matches); INE births used instead",
           b[late], births=True)
    # a child's row before its creation: check it duplicates the parent's value, then drop it
    early = (~late) & (b["unit"].map(child_created).fillna(0).astype(int) > b["year"])
    duplicates = []
    lookup = b.set_index(["unit", "year"])["births"]
    for _, row in b[early].iterrows():
        parent_value = lookup.get((parent_of[row["unit"]], row["year"]))
        assert parent_value == row["births"], (row["unit"], row["year"], row["births"], parent_value)
        duplicates.append((row["unit"], int(row["year"]), int(row["births"]), parent_of[row["unit"]]))
    assert sorted(d_[0] for d_ in duplicates) == sorted(parent_of) and all(d_[1] == 2000 for d_ in duplicates)
    ledger("chile", name_bc, "excluded",
           "child commune's 2000 row before its 2004 creation: duplicates the parent's value",
           b[early], births=True)
    births_early = b.loc[(~late) & (~early), ["unit", "year", "births"]]
    ledger("chile", name_bc, "kept", "commune-years 2000-2009", births_early, births=True)

    # births 2010-2015 (INE) -------------------------------------------------------------------------
    name_ine = "ine_nacidos_vivos_defunciones_comuna_2010_2015.csv"
    i = read_csv(src, name_ine)
    i["unit"] = i["codigo_comuna"].str.zfill(5)
    i["year"] = num(i["anio"]).astype("int64")
    i["births"] = count(i["nacidos_vivos"])
    assert len(i) == 346 * 6 and not i.duplicated(["unit", "year"]).any() and i["births"].notna().all()
    ledger("chile", name_ine, "read", "rows in the source", i, births=True)
    ledger("chile", name_ine, "kept", "commune-years 2010-2015 (births; all-age deaths not used)", i,
           births=True)
    assert i.groupby("year")["births"].sum().to_dict() == {2010: 250643, 2011: 247358, 2012: 243635,
                                                           2013: 242005, 2014: 250997, 2015: 244670}

    births = pd.concat([births_early, i[["unit", "year", "births"]]], ignore_index=True)
    panel = deaths.merge(births, on=["unit", "year"], how="left", validate="one_to_one")
    assert len(births) == panel["births"].notna().sum(), "a births row without a deaths row"
    # commune-years with no births row in the DEIS source (2000-2009): the source is a sum over birth
    # records, so a commune-year without any birth has no row. Written as 0 (see PROVENANCE.md).
    gap = panel["births"].isna()
    assert (panel.loc[gap, "year"] <= 2009).all() and (panel.loc[gap, "deaths"] == 0).all()
    filled = panel.loc[gap, ["unit", "year"]].copy()
    panel.loc[gap, "births"] = 0
    ledger("chile", name_bc, "filled", "no row in the source = no birth to mothers 15-49 that year: births 0",
           panel[gap].assign(births=0), births=True)
    panel["births"] = panel["births"].astype("Int64")
    panel["deaths"] = panel["deaths"].astype("Int64")

    # population (INE base 2017, 2002-2035; summed over sex) ----------------------------------------
    name_pop = "poblacion_ine_comunas_2002_2035_base2017.csv"
    p = read_csv(src, name_pop)
    p["unit"] = p["codigo_comuna"].str.zfill(5)
    p["year"] = num(p["anio"]).astype("int64")
    assert len(p) == 346 * 34 * 2 and not p.duplicated(["unit", "year", "sexo"]).any()
    value_columns = {"poblacion_total": "population", "poblacion_edad_0": "population_age0",
                     "poblacion_edad_0_4": "population_age0_4", "poblacion_15_49": "population_15_49"}
    for column in value_columns:
        p[column] = num(p[column]).astype("float64")
    population = (p.groupby(["unit", "year"], as_index=False)[list(value_columns)].sum()
                  .rename(columns=value_columns))
    assert population.loc[population["year"] == 2020, "population"].sum() == 19458310
    ledger("chile", name_pop, "read", "rows in the source (commune x year x sex)", p)
    # keep layout: before a child's creation its population belongs to the parent's territory
    pop_panel = population[["unit", "year", "population", "population_age0"]].copy()
    pre = pop_panel["unit"].map(child_created).fillna(0).astype(int) > pop_panel["year"]
    moved = pop_panel[pre].copy()
    moved["unit"] = moved["unit"].map(parent_of)
    pop_panel = (pd.concat([pop_panel[~pre], moved]).groupby(["unit", "year"], as_index=False).sum())
    panel = panel.merge(pop_panel, on=["unit", "year"], how="left", validate="one_to_one")
    in_panel = p["year"].between(2002, 2015)
    ledger("chile", name_pop, "kept", "2002-2015, summed over sex into the panel covariates "
           "(2002-2003 of the 4 split children added to the parent)", p[in_panel])
    ledger("chile", name_pop, "excluded", "2016-2035: outside the panel years (in table 'population')",
           p[~in_panel])

    panel = panel.sort_values(["unit", "year"]).reset_index(drop=True)
    panel = panel[["unit", "year", "births", "deaths", "population", "population_age0"]]
    national = panel.groupby("year")[["births", "deaths"]].sum()
    imr = (national["deaths"] / national["births"] * 1000).round(1)
    assert imr.loc[2010:2015].tolist() == [7.4, 7.7, 7.4, 7.0, 7.3, 6.9], imr.loc[2010:2015].tolist()
    write_parquet(panel, out, "cl_panel.parquet",
                  sources=[name, name_bc, name_ine, name_pop], national=national, imr=imr,
                  duplicates=duplicates, filled=filled, deaths_facts=deaths_facts)
    return panel, population


# ---------------------------------------------------------------------------------------------------
# Chile covariate source tables
# ---------------------------------------------------------------------------------------------------
def chile_tables(src: Path, out: Path, units: pd.DataFrame, history: pd.DataFrame, splits: pd.DataFrame,
                 population: pd.DataFrame):
    known = set(units["unit"])
    notes: dict[str, list[str]] = {}

    def check_units(df, table):
        assert df["unit"].isin(known).all(), (table, sorted(set(df["unit"]) - known)[:5])

    # population tables
    pop = population.sort_values(["unit", "year"])
    check_units(pop, "population")
    write_parquet(pop, out, "cl_table_population.parquet", sources=["poblacion_ine_comunas_2002_2035_base2017.csv"])
    name = "poblacion_ine_comunas_1990_2020_base2002.csv"
    p2 = read_csv(src, name)
    p2["unit"] = p2["codigo_comuna"].str.zfill(5)
    p2["year"] = num(p2["anio"]).astype("int64")
    cols = {"poblacion_total": "population", "poblacion_edad_0": "population_age0",
            "poblacion_edad_0_4": "population_age0_4"}
    for c in cols:
        p2[c] = num(p2[c]).astype("float64")
    p2 = p2.groupby(["unit", "year"], as_index=False)[list(cols)].sum().rename(columns=cols)
    check_units(p2, "population_base2002")
    write_parquet(p2, out, "cl_table_population_base2002.parquet", sources=[name])

    # poverty (CASEN small-area estimates), both files, as percent
    name_a, name_b = "pobreza_comunal_sae_2009_2020.csv", "pobreza_comunal_sae_2022.csv"
    a = read_csv(src, name_a)
    a_values = num(a["proporcion_pobreza"])
    notes["poverty"] = [f"{int(a_values.isna().sum())} rows of {name_a} have no numeric estimate (kept, NaN)"]
    pa = pd.DataFrame({
        "unit": a["codigo_comuna_2018"].str.zfill(5), "year": num(a["anio"]).astype("int64"),
        "dimension": a["dimension"], "measurement": a["metodologia_medicion"],
        "poverty_percent": a_values * 100, "lower_percent": num(a["limite_inferior"]) * 100,
        "upper_percent": num(a["limite_superior"]) * 100,
        "estimation": a["metodologia_estimacion"], "code_published": a["codigo_comuna_publicado"],
        "source_file": a["archivo_fuente"]})
    b = read_csv(src, name_b)
    pb = pd.DataFrame({
        "unit": b["codigo_comuna"].str.zfill(5), "year": num(b["anio"]).astype("int64"),
        "dimension": b["dimension"], "measurement": "nueva (2013+)",
        "poverty_percent": num(b["tasa"]), "lower_percent": num(b["limite_inferior"]),
        "upper_percent": num(b["limite_superior"]), "estimation": b["metodologia"],
        "code_published": b["codigo_comuna"], "source_file": b["url_fuente"]})
    assert pa["poverty_percent"].max() <= 100 and pb["poverty_percent"].max() <= 100
    assert pb["poverty_percent"].max() > 1  # percent, not proportion
    poverty = pd.concat([pa, pb], ignore_index=True).sort_values(["unit", "year", "dimension", "measurement"])
    assert not poverty.duplicated(["unit", "year", "dimension", "measurement"]).any()
    check_units(poverty, "poverty")
    write_parquet(poverty, out, "cl_table_poverty.parquet", sources=[name_a, name_b], notes=notes["poverty"])

    # SINIM 2006-2012 (codes of the 2010-2018 system, no leading zero)
    name = "sinim_comunas_2006_2012_via_bentancor_clarke.csv"
    s = read_csv(src, name)
    h = registry_codes.harmonise_chile(s["codigo"], history, splits, system="2010_2018")
    assert (h["status"] != "unknown").all()
    text_columns = {"codigo", "municipio", "dom_comuna", "year"}
    table = pd.DataFrame({"unit": h["unit"].astype(str), "year": num(s["year"]).astype("int64"),
                          "code_2010_2018": s["codigo"], "municipality": s["municipio"]})
    coerced = []
    for column in s.columns:
        if column in text_columns:
            continue
        values = num(s[column]).astype("float64")
        bad = s[column].notna() & values.isna()
        if bad.any():
            coerced.append(f"`{column}`: {int(bad.sum())} text cells "
                           f"({', '.join(sorted(s.loc[bad, column].unique()))}) -> NaN")
        table[column] = values
    notes["sinim_2006_2012"] = coerced + [f"{int((h['status'] == 'harmonised').sum())} codes changed to the 2018 "
                                          "code (Ñuble 84xx -> 16xxx)"]
    assert not table.duplicated(["unit", "year"]).any()
    check_units(table, "sinim_2006_2012")
    write_parquet(table.sort_values(["unit", "year"]), out, "cl_table_sinim_2006_2012.parquet", sources=[name],
                  notes=notes["sinim_2006_2012"])

    # SINIM 2019-2023 selection, long
    name = "sinim_2019_2023_seleccion.csv"
    s = read_csv(src, name)
    table = pd.DataFrame({"unit": s["codigo_comuna"].str.zfill(5), "year": num(s["anio"]).astype("int64"),
                          "variable_id": num(s["variable_id"]).astype("int64"), "variable": s["variable"],
                          "area": s["area"], "measure_unit": s["unidad"], "value": num(s["valor"]).astype("float64"),
                          "municipality": s["municipio"]})
    assert table["value"].notna().all()
    check_units(table, "sinim_2019_2023")
    write_parquet(table.sort_values(["variable_id", "unit", "year"]), out, "cl_table_sinim_2019_2023.parquet",
                  sources=[name])

    # health facilities and hospitals
    for name, table_name in [("establecimientos_salud_deis_con_fecha_inicio.csv", "health_facilities"),
                             ("hospitales_deis.csv", "hospitals")]:
        e = read_csv(src, name)
        serial = num(e["F_INICIO"])
        opening = pd.to_datetime("1899-12-30") + pd.to_timedelta(serial, unit="D")
        iso = pd.to_datetime(e["F_INICIO_ISO"], errors="coerce")
        assert (opening[iso.notna()] == iso[iso.notna()]).all()
        table = pd.DataFrame({
            "unit": e["C_COM"].str.zfill(5), "code": e["C_VIG"], "old_code": e["C_ANT"],
            "name": e["NOMBRE"].str.strip(), "type": e["TIPO"].str.split().str.join(" "), "urgency": e["URGENCIA"].str.strip(),
            "sapu": e["SAPU"].str.strip(), "level": e["NIVEL"].str.strip(),
            "complexity": e["NIVEL_COM"].str.strip(), "modality": e["MODALIDAD"].str.strip(),
            "dependency": e["DEPEN"].str.strip(), "ownership": e["PRESTADOR"].str.strip(),
            "status": e["ESTADO"].str.strip(), "opening_serial": serial,
            "opening_date": opening.dt.date.astype("str").where(opening.notna(), None),
            "lat": num(e["LATITUD"]), "lon": num(e["LONGITUD"])})
        table["opening_year"] = opening.dt.year.astype("Int64")
        check_units(table, table_name)
        kinds = table["type"].str.extract(r"\((SAPU|SAR|SUR)\)")[0]
        table["urgency_type"] = kinds
        no_date = int(table["opening_date"].isna().sum())
        placeholder = int((table["opening_date"] == "2009-01-01").sum())
        notes[table_name] = [f"{no_date} rows without a numeric F_INICIO (opening date <NA>)",
                             f"{placeholder} rows open on 2009-01-01, a likely placeholder date",
                             "urgency_type counts: " + (", ".join(f"{k} {v}" for k, v in
                                                                 kinds.value_counts().sort_index().items()) or "none")]
        write_parquet(table, out, f"cl_table_{table_name}.parquet", sources=[name], notes=notes[table_name])

    # census 2017
    name = "censo2017_comunal_consolidado.csv"
    c = read_csv(src, name)
    values = {column: num(c[column]).astype("float64") for column in c.columns
              if column not in ("Codigo_region", "Codigo_provincia", "Codigo_comuna")}
    table = pd.concat([pd.DataFrame({"unit": c["Codigo_comuna"].str.zfill(5)}), pd.DataFrame(values)], axis=1)
    check_units(table, "census_2017")
    write_parquet(table.sort_values("unit"), out, "cl_table_census_2017.parquet", sources=[name],
                  notes=[f"missing commune(s): {', '.join(sorted(known - set(table['unit'])))}"])

    # PNDR rural/urban classification
    name = "clasificacion_comunas_pndr_rural_urbano.csv"
    r = read_csv(src, name)
    table = pd.DataFrame({"unit": r["cod_com"].str.zfill(5), "name_source": r["Comuna"],
                          "rural_class": r["Clasificación"], "rural_type": num(r["Tipo_com"]).astype("int64"),
                          "inhabitants_2017": num(r["N° Habitantes"]), "area_km2": num(r["Km.2"]),
                          "density": num(r["Densidad"])})
    check_units(table, "rurality")
    write_parquet(table.sort_values("unit"), out, "cl_table_rurality.parquet", sources=[name],
                  notes=[f"missing commune(s): {', '.join(sorted(known - set(table['unit'])))}"])


# ---------------------------------------------------------------------------------------------------
# Brazil
# ---------------------------------------------------------------------------------------------------
def brazil(src: Path, out: Path):
    name_m = "brasil_municipios_codigos_e_atlas_censos_1991_2010.csv"
    m = read_csv(src, name_m)
    mun = m[m["tipo_registro"] == "municipio"].copy()
    assert len(mun) == 5570 and mun["cod_ibge_6"].is_unique
    assert (mun["cod_ibge_7"].str[:6] == mun["cod_ibge_6"]).all()
    region_code = mun["cod_ibge_6"].str[0].astype(int)
    assert (region_code.map(REGION_NAMES_BR) == mun["regiao"]).all()
    units = pd.DataFrame({
        "unit": mun["cod_ibge_6"], "name": mun["municipio"], "province": mun["cod_ibge_6"].str[:2],
        "province_name": mun["uf"], "region": region_code.astype(str), "region_name": mun["regiao"],
        "country": "BR", "lat": np.nan, "lon": np.nan}).sort_values("unit")
    write_parquet(units, out, "br_units.parquet", sources=[name_m])

    census = []
    for suffix, year in (("91", 1991), ("00", 2000), ("10", 2010)):
        census.append(pd.DataFrame({
            "unit": mun["cod_ibge_6"], "year": year,
            "gini": num(mun[f"gini_{suffix}"]), "income_per_capita": num(mun[f"rpc_{suffix}"]),
            "poor_percent": num(mun[f"pobres_{suffix}"]), "population_census": num(mun[f"pop_{suffix}"]),
            "existed": num(mun[f"existia_{year}"])}))
    census = pd.concat(census, ignore_index=True).sort_values(["unit", "year"])
    write_parquet(census, out, "br_table_census.parquet", sources=[name_m],
                  notes=[f"{int(mun['gini_10'].isna().sum())} municipalities without Atlas values "
                         "(created after 2010)"])

    name = "brasil_obitos_infantis_nascidos_vivos_municipio_2000_2019.csv"
    p = read_csv(src, name)
    p["year"] = num(p["ano"]).astype("int64")
    p["births"] = count(p["nascidos_vivos"])
    p["deaths"] = count(p["obitos_infantis"])
    ledger("brazil", name, "read", "rows in the source", p, births=True, deaths=True)
    known = p["cod_ibge_6"].isin(set(units["unit"]))
    ignored = p["cod_ibge_6"].str.fullmatch(r"\d\d0000")
    unlisted = ~known & ~ignored
    assert set(p.loc[unlisted, "cod_ibge_6"]) == {"431453"}
    for mask, reason in ((ignored, "unknown municipality in the state (code UF0000)"),
                         (unlisted, "code 431453 not in the municipality list")):
        ledger("brazil", name, "excluded", reason, p[mask], births=True, deaths=True)
    kept = p[known].copy()
    assert len(kept) == 5570 * 20 and not kept.duplicated(["cod_ibge_6", "year"]).any()
    ledger("brazil", name, "kept", "municipality-years", kept, births=True, deaths=True)
    missing_births = int(kept["births"].isna().sum())
    ledger("brazil", name, "note", "kept rows with births missing (no SINASC row): left <NA>",
           kept[kept["births"].isna()], births=True, deaths=True)
    causes = {"obitos_inf_cap_perinatal": "deaths_perinatal", "obitos_inf_cap_malformacoes": "deaths_malformations",
              "obitos_inf_cap_mal_definidas": "deaths_ill_defined", "obitos_inf_cap_infecciosas": "deaths_infectious",
              "obitos_inf_cap_respiratorias": "deaths_respiratory", "obitos_inf_cap_causas_externas": "deaths_external",
              "obitos_inf_outras_causas": "deaths_other",
              "obitos_inf_sensiveis_atencao_primaria": "deaths_primary_care_sensitive"}
    cause_table = pd.DataFrame({"unit": kept["cod_ibge_6"], "year": kept["year"], "deaths": kept["deaths"]})
    for column, label in causes.items():
        cause_table[label] = count(kept[column])
    chapters = cause_table[[c for c in causes.values() if c != "deaths_primary_care_sensitive"]].sum(axis=1, min_count=1)
    assert (chapters.dropna() == cause_table.loc[chapters.notna(), "deaths"]).all()
    write_parquet(cause_table.sort_values(["unit", "year"]), out, "br_table_causes.parquet", sources=[name])
    panel = pd.DataFrame({"unit": kept["cod_ibge_6"], "year": kept["year"], "births": kept["births"],
                          "deaths": kept["deaths"],
                          "health_spending_per_capita": num(kept["gasto_publico_saude_per_capita_rs"]).astype("float64"),
                          "population": num(kept["populacao"]).astype("float64")})
    panel = panel.sort_values(["unit", "year"])
    national = panel.groupby("year")[["births", "deaths"]].sum()
    excluded = p[~known].groupby("year")["deaths"].sum()
    assert national.loc[2000, "deaths"] + excluded[2000] == 66780
    assert national.loc[2019, "deaths"] + excluded[2019] == 35293
    assert national.loc[2019, "births"] == 2849064 and national.loc[2010, "births"] == 2861785
    write_parquet(panel, out, "br_panel.parquet", sources=[name], national=national,
                  missing_births=missing_births, missing_deaths=int(panel["deaths"].isna().sum()),
                  births_only=[(u, int(y), int(d)) for u, y, d in
                               panel.loc[panel["births"].isna() & panel["deaths"].notna(), ["unit", "year", "deaths"]]
                               .itertuples(index=False)])


# ---------------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="folder with the shared source files (../shared/data)")
    parser.add_argument("--out", default=str(ROOT / "src" / "brecha" / "data"))
    args = parser.parse_args(argv)
    src, out = Path(args.source), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    LEDGER.clear()
    FILES.clear()
    units, history, splits = chile_registry(src, out)
    _panel, population = chile_panel(src, out, units, splits)
    chile_tables(src, out, units, history, splits, population)
    brazil(src, out)
    build_data_argentina.argentina(src, out, write_parquet, ledger)
    build_data_argentina.araucania(src, out, write_parquet, FILES)
    ORIGINS.update(build_data_argentina.ORIGINS)
    TRANSFORMS.update(build_data_argentina.TRANSFORMS)
    ledger_df = pd.DataFrame(LEDGER)
    for column in ("births", "deaths"):
        ledger_df[column] = ledger_df[column].astype("Int64")
    write_parquet(ledger_df, out, "ledger.parquet", sources=["all of the above"])
    write_provenance(out / "PROVENANCE.md", FILES, ledger_df, src)
    for path in sorted(out.iterdir()):
        print(f"{path.name:45s} {path.stat().st_size / 1024:8.1f} KiB")
    return 0


ORIGINS = {
    "comunas_cut_2018.csv": "`cortega26/chile-hub` @ `80da68f8951ac969e788972bcf7e45767abce38e`, "
        "`data/normalized/comunas.json`. Producer: BCN SIIT layer, normalised by chile-hub. License: CC BY "
        "(attribution required); chile-hub code MIT.",
    "comunas_codigos_historicos.csv": "`damiancclarke/morning-after-pill` @ `ab3474ffd452ca0b1d35fefb2f4da4b6f8e126f2`, "
        "`Data/Comunas/regionescomunas_short.csv` (Bentancor & Clarke 2017 replication material), built by the "
        "paper's authors from SUBDERE/INE code lists; `codigo_2018_actual` added in the shared folder by name "
        "matching. License: none stated.",
    "comunas_poligonos_censo2017_simplificado.geojson": "`robsalasco/censo_2017_geojson_chile` @ "
        "`17e2ace6c36110699f1b95a74e7ce5ecd290e1b6`, `Extras/CHILE1.geojson` (byte copy). Producer: INE, 2017 "
        "census cartography, simplified (Visvalingam). CRS EPSG:4674. License: none stated.",
    "SOURCES.md": "the shared folder's description of the sources (the four 2004 splits are named there).",
    "ine_defunciones_infantiles_comuna_2000_2015.csv": "`deniselaroze/Mortalidad-prematura-en-Chile-y-gasto-en-Plan-AUGE-GES` "
        "@ `424131955aea21bba0fa7a9233507a3b37f1daba`, `INE/SAIP4026.xlsx`: INE's answer to transparency "
        "request N° AH007T0004026 (deaths by age and commune of usual residence, sheets 2000-2015); source "
        "codes mapped to the 2018 CUT in the shared folder. Producer: INE, Subdepartamento de Demografía y "
        "Vitales. Public information (Ley 20.285).",
    "nacimientos_comuna_2000_2011_deis_via_bentancor_clarke.csv": "`damiancclarke/morning-after-pill` @ "
        "`ab3474ffd452ca0b1d35fefb2f4da4b6f8e126f2`, `Data/Nacimientos/S1Data_covars_20002011.zip` (rows with "
        "`pregnant == 1`, `n` summed by `dom_comuna` and `year`; 2018 CUT assigned by name). DEIS birth "
        "microdata aggregated by Bentancor & Clarke (Economic Journal 2017). **Mothers aged 15-49 only.** "
        "License: none stated.",
    "ine_nacidos_vivos_defunciones_comuna_2010_2015.csv": "`cortega26/chile-hub` @ `053bdafa0c866684ef8e6014f908cca08884d130`, "
        "`data/normalized/estadisticas_vitales.json` (INE Anuario de Estadísticas Vitales 2010-2015, table "
        "1.2.2-04, commune of residence; workbook URLs in `fuente_url`). License: CC BY 4.0.",
    "poblacion_ine_comunas_2002_2035_base2017.csv": "`bastianolea/censo_proyecciones_poblacion` @ "
        "`f057636dfbf6d65e910c87ca4d97cfd6cd5a4091`, `datos/datos_procesados/censo_proyecciones_año_edad_genero.parquet`, "
        "summed to these columns in the shared folder. Producer: INE, Estimaciones y proyecciones 2002-2035 "
        "(base 2017). INE data CC BY 4.0.",
    "poblacion_ine_comunas_1990_2020_base2002.csv": "`damiancclarke/morning-after-pill` @ `ab3474ffd452ca0b1d35fefb2f4da4b6f8e126f2`, "
        "`Data/Population/SalComUsuarios-*.csv` (INE projections base 2002). License: none stated.",
    "pobreza_comunal_sae_2009_2020.csv": "`FONDECYTACC/nDP` @ `0d98305832ce3cc4793ff093f5818b857a32d626` (MDSF SAE "
        "workbooks 2009-2020; 2017 from `alonsosilvaallende/COVID-19` @ `3ecb3108332f20818d1c2f5222d9b08dcbf196f7`). "
        "Producer: MDSF Observatorio Social (CASEN). **Proportions 0-1.**",
    "pobreza_comunal_sae_2022.csv": "`cortega26/chile-hub` @ `80da68f8951ac969e788972bcf7e45767abce38e`, "
        "`data/normalized/pobreza_comunal.json` (CASEN 2022 SAE). **Percent 0-100.**",
    "sinim_comunas_2006_2012_via_bentancor_clarke.csv": "`damiancclarke/morning-after-pill` @ "
        "`ab3474ffd452ca0b1d35fefb2f4da4b6f8e126f2`, `Data/Comunas/Comunas_datos_20062012.csv`. SINIM/SUBDERE "
        "and CASEN, compiled by Bentancor & Clarke. Codes of the 2010-2018 system without leading zero.",
    "sinim_2019_2023_seleccion.csv": "`bastianolea/sinim_datos_comunales` @ `0b296bf521156d83dbe9c7b779ecd7a29e3ba944`, "
        "`datos/sinim_2019-2023.parquet`, filtered to 16 variables, empty values dropped. Producer: SINIM, SUBDERE.",
    "establecimientos_salud_deis_con_fecha_inicio.csv": "`oxfist/MakeHealthChile2023` @ `3e518d34b3d3bd797588f501eea80d5eba98f438`, "
        "`challenge_datasets/Challenge 1/hospitals/chile_sitios_salud.csv`. DEIS establishment register "
        "(about 2022-2023). F_INICIO is an Excel serial date.",
    "hospitales_deis.csv": "`oxfist/MakeHealthChile2023` @ `3e518d34b3d3bd797588f501eea80d5eba98f438`, "
        "`challenge_datasets/Challenge 1/hospitals/chile_hospitales.csv`. DEIS.",
    "censo2017_comunal_consolidado.csv": "`oxfist/MakeHealthChile2023` @ `3e518d34b3d3bd797588f501eea80d5eba98f438`, "
        "`challenge_datasets/Challenge 1/census/consolidado_censo_241022.csv`. INE Censo 2017 person counts "
        "aggregated by the challenge authors.",
    "clasificacion_comunas_pndr_rural_urbano.csv": "`FONDECYTACC/nDP` @ `0d98305832ce3cc4793ff093f5818b857a32d626`, "
        "`Clasificacion-comunas-PNDR.xlsx`. ODEPA/SUBDERE (PNDR), 2017 census based.",
    "brasil_municipios_codigos_e_atlas_censos_1991_2010.csv": "lookup: `michelszklo/infant_mortality_br` @ "
        "`d2e502ccb38c7448112ed37e8e826c66126538af`, `raw_data/municipios.csv`; Atlas part: `lgelape/modus_2019` @ "
        "`71cc910282eab48c6e9b7cd7a63763bc71b4c112`, `Bancos/AtlasBrasil_modus2019.csv` (Atlas do Desenvolvimento "
        "Humano, PNUD/IPEA/FJP, IBGE censuses), joined by name + UF in the shared folder.",
    "brasil_obitos_infantis_nascidos_vivos_municipio_2000_2019.csv": "`michelszklo/infant_mortality_br` @ "
        "`d2e502ccb38c7448112ed37e8e826c66126538af`, `clean_data/df_sim.csv`, `df_births.csv`, `df_pop.csv`, "
        "`df_spend.csv`, merged in the shared folder. Producer: Ministério da Saúde/DATASUS (SIM, SINASC, SIOPS), "
        "IBGE.",
}

TRANSFORMS = {
    "cl_units.parquet": [
        "columns renamed: codigo_comuna -> unit (5-digit text), nombre_comuna -> name, codigo_provincia -> province "
        "(3-digit), nombre_provincia -> province_name, codigo_region -> region (2-digit), nombre_region -> "
        "region_name, latitud/longitud_cabecera -> lat/lon (commune seat); country = 'CL'",
        "dropped: abreviatura, poblacion_estimada",
        "Antártica (12202) has seat coordinates 0, 0 in the source: set to NaN (no seat on the map)"],
    "cl_code_history.parquet": [
        "one row per 2018 commune; codes as integers (no leading zeros) in code_pre_1999, code_2000_2008, "
        "code_2008_2010, code_2010_2018, code_2018; unit = 5-digit 2018 code; regions as 2-digit text",
        "checked: the codes of each system after 1999 are unique; the only shared pre-1999 codes are the four "
        "parent/child pairs of the 2004 splits (210, 445, 456, 507), which the registry reads as the parent"],
    "cl_splits.parquet": [
        "the communes created in 2004 by splitting a parent (SOURCES.md section 6): Alto Hospicio (01107) from "
        "Iquique (01101), Hualpén (08112) from Talcahuano (08110), Alto Biobío (08314) from Santa Bárbara "
        "(08311), Cholchol (09121) from Nueva Imperial (09111); checked against the shared pre-1999 codes"],
    "cl_polygons.geojson.gz": [
        "properties reduced to `unit` (COMUNA zero-padded to 5 digits) and `name` (the registry's name, "
        "replacing the upper-case NOM_COMUNA); SHAPE_* and region/province fields dropped", "coordinates rounded to 5 decimals (about 1 m)",
        "features sorted by unit; gzip (level 9, mtime 0)",
        "**Antártica (12202) has no polygon in the source**: 345 features for 346 communes"],
    "cl_panel.parquet": [
        "deaths = `defunciones_menores_1_anio` (INE, all years); the 16 empty rows of the four 2004 children "
        "for 2000-2003 are dropped (their deaths are inside the parent's rows)",
        "the 96 commune-years with no row in the INE sheet are 0 deaths, as in the source file (`fila_en_fuente = 0`)",
        "births 2000-2009 = `nacidos_vivos_madres_15_49` (DEIS via Bentancor & Clarke; mothers 15-49 only, "
        "2-5 % below the official totals); rows for 2010-2011 dropped (incomplete: 286 and 301 communes)",
        "births 2010-2015 = `nacidos_vivos` (INE anuario, all ages, all 346 communes)",
        "DUPLICATES: the 2000 row of each 2004 child in the births file repeats its parent's 2000 value; "
        "each case checked and dropped (list below). The children have no 2001-2003 rows there, and the "
        "parent's 2000-2003 births include the child's territory, as do the INE deaths",
        "layout 'keep apart from creation': the children have rows from 2004; `brecha.datasets.chile("
        "split=\"merge\")` sums them into the parent for every year (342 units)",
        "in 2004 the children's births are only partly coded to them (e.g. Alto Hospicio 92 in 2004 against "
        "1,334 in 2005): their 2004 rates, and the parents', are not reliable under 'keep'",
        "MISSING BIRTHS ROWS: commune-years 2000-2009 with a deaths row but no births row are written as "
        "**0 births** (list below). Why 0 and not missing: the source is a sum over birth records, so a "
        "commune-year without any birth (to a mother 15-49) produces no row; all of them are tiny communes "
        "(Ollagüe, Laguna Blanca, Río Verde, Antártica, Timaukel, Torres del Paine, General Lagos) with 0-12 "
        "births in the other years and **0 infant deaths** in the missing year, and INE also records years "
        "with 0 births for them in 2010-2015. The rate is undefined there either way (the Panel lists these "
        "commune-years in panel.warnings)",
        "population, population_age0 = `poblacion_total`, `poblacion_edad_0` (INE base 2017) summed over sex, "
        "2002-2015; 2000-2001 are missing (NaN). Under 'keep', the 2002-2003 population of each child is "
        "added to its parent so that counts and population cover the same territory"],
    "cl_table_population.parquet": ["summed over sex by commune and year: population, population_age0, "
                                    "population_age0_4, population_15_49; 2002-2035"],
    "cl_table_population_base2002.parquet": ["summed over sex by commune and year: population, population_age0, "
                                             "population_age0_4; 1990-2020 (a different base: do not splice "
                                             "with the 2017-based series without care)"],
    "cl_table_poverty.parquet": [
        "both files stacked: unit, year, dimension (ingresos / multidimensional), measurement (tradicional "
        "(pre-2013) / nueva (2013+)), poverty_percent, lower_percent, upper_percent, estimation, "
        "code_published, source_file",
        "**units: the 2009-2020 file gives proportions (0-1): multiplied by 100; the 2022 file is already in "
        "percent**", "2022 rows get measurement 'nueva (2013+)'",
        "2011 appears twice (traditional and new methodology): keep the `measurement` you need"],
    "cl_table_sinim_2006_2012.parquet": [
        "`codigo` (2010-2018 code, no leading zero) harmonised to the 2018 unit with the code history "
        "(system 2010_2018); kept as `code_2010_2018`",
        "numeric columns converted to float; text cells become NaN (counted below); `municipio` kept as "
        "`municipality`; `dom_comuna` (a copy of the name) dropped"],
    "cl_table_sinim_2019_2023.parquet": [
        "renamed: codigo_comuna -> unit, anio -> year, unidad -> measure_unit, valor -> value, municipio -> "
        "municipality; long format kept (variable_id, variable, area)"],
    "cl_table_health_facilities.parquet": [
        "selected and renamed columns: C_COM -> unit, C_VIG -> code, C_ANT -> old_code, NOMBRE -> name, TIPO "
        "-> type, URGENCIA -> urgency, SAPU -> sapu, NIVEL -> level, NIVEL_COM -> complexity, MODALIDAD -> "
        "modality, DEPEN -> dependency, PRESTADOR -> ownership, ESTADO -> status, LATITUD/LONGITUD -> lat/lon "
        "(text fields stripped of spaces; runs of spaces in `type` collapsed)",
        "opening_serial = F_INICIO (Excel serial); opening_date = 1899-12-30 + serial days (ISO text), "
        "opening_year; checked equal to F_INICIO_ISO wherever that is given",
        "urgency_type = SAPU / SAR / SUR taken from the type label"],
    "cl_table_census_2017.parquet": ["Codigo_comuna -> unit; region and province codes dropped; all other "
                                     "columns as float (person counts, names as in the source)"],
    "cl_table_rurality.parquet": ["cod_com -> unit, Comuna -> name_source, Clasificación -> rural_class "
                                  "(Urbana/Mixta/Rural), Tipo_com -> rural_type (1/2/3), N° Habitantes -> "
                                  "inhabitants_2017, Km.2 -> area_km2, Densidad -> density; Cod_reg, Región dropped"],
    "br_units.parquet": [
        "the 5,570 rows with tipo_registro = municipio; the 25 'município ignorado' (UF0000) rows and the "
        "unlisted code 431453 are left out",
        "unit = cod_ibge_6; name = municipio; province = state code (first 2 digits); province_name = uf; "
        "region = macro-region code (first digit, 1 Norte ... 5 Centro-Oeste, checked against `regiao`); "
        "region_name = regiao; country 'BR'; lat/lon NaN (no coordinates in the source)",
        "the 7-digit code is the 6-digit code plus a check digit (checked): the registry drops the last digit"],
    "br_table_census.parquet": [
        "long by census year (1991, 2000, 2010): gini_yy -> gini, rpc_yy -> income_per_capita (R$ of 2010), "
        "pobres_yy -> poor_percent, pop_yy -> population_census, existia_yyyy -> existed"],
    "br_panel.parquet": [
        "births = nascidos_vivos, deaths = obitos_infantis (Int64; **missing stays <NA>, not 0**); "
        "health_spending_per_capita = gasto_publico_saude_per_capita_rs (nominal R$); population = populacao",
        "rows of 'unknown municipality in the state' (UF0000) and of code 431453 are excluded (ledger below)",
        "cause-of-death columns are in `br_table_causes.parquet`"],
    "br_table_causes.parquet": [
        "infant deaths by ICD-10 chapter of the underlying cause, same rows as the panel: obitos_inf_cap_perinatal "
        "-> deaths_perinatal, _malformacoes -> deaths_malformations, _mal_definidas -> deaths_ill_defined, "
        "_infecciosas -> deaths_infectious, _respiratorias -> deaths_respiratory, _causas_externas -> "
        "deaths_external, obitos_inf_outras_causas -> deaths_other (checked: the chapters add up to `deaths`), "
        "obitos_inf_sensiveis_atencao_primaria -> deaths_primary_care_sensitive (Alfradique 2009 list, as coded "
        "by the source's author; a subset, not a chapter)"],
    "ledger.parquet": ["one line per dataset, source file, year, status and reason (see the tables below)"],
}


def write_provenance(path, files, ledger_df, src):
    lines = [
        "# Provenance of brecha's embedded data",
        "",
        "Built by `tools/build_data.py` from the shared source folder (`python tools/build_data.py ../shared/data`,",
        "run from the repository root). Do not edit by hand: this file is written by the build, which also checks",
        "the documented totals and stops if a source does not look as described. Sources are real, public data,",
        "taken from public GitHub repositories (origin and commit below, as recorded in the source folder's",
        "`SOURCES.md`). Codes (`unit`, text): Chile's 2018 CUT (5 digits), Brazil's IBGE codes (6 digits),",
        "Argentina's INDEC province codes (2 digits).",
        "",
        "Total size: " + f"{sum((path.parent / n).stat().st_size for n in files) / 1024:,.0f} KiB.",
        "",
    ]
    for name, facts in files.items():
        lines.append(f"## `{name}`")
        lines.append("")
        lines.append(f"- rows: {facts['rows']:,}; columns: {', '.join('`' + c + '`' for c in facts['columns'])}")
        for source in facts.get("sources", []):
            origin = ORIGINS.get(source)
            if origin:
                lines.append(f"- source `{source}`: {origin}")
        for text in TRANSFORMS.get(name, []):
            lines.append(f"- {text}")
        for text in facts.get("notes", []) or []:
            lines.append(f"- {text}")
        if name == "cl_panel.parquet":
            lines += ["", "Duplicated 2000 rows dropped from the births file (child, year, births, parent with the same value):", ""]
            lines += [f"- {c} {y}: {v:,} = parent {p}" for c, y, v, p in facts["duplicates"]]
            lines += ["", "Commune-years written as 0 births (no row in the DEIS births file; 0 deaths):", ""]
            lines.append("- " + ", ".join(f"{u} {y}" for u, y in zip(facts["filled"]["unit"], facts["filled"]["year"])))
            lines += ["", "National totals in the panel (IMR per 1,000; 2010-2015 equal INE's published 7.4, 7.7, 7.4, 7.0, 7.3, 6.9):", "",
                      "| year | births | infant deaths | IMR |", "|---|---|---|---|"]
            for year, row in facts["national"].iterrows():
                lines.append(f"| {year} | {int(row['births']):,} | {int(row['deaths']):,} | {facts['imr'][year]:.1f} |")
        if name == "br_panel.parquet":
            lines.append(f"- municipality-years with births missing: {facts['missing_births']}; with deaths missing: "
                         f"{facts['missing_deaths']}. SOURCES.md counts the 160 rows with no SINASC row where both are "
                         "empty; 2 more rows have births empty but keep their deaths: "
                         + ", ".join(f"{u} {y} ({d} death{'s' if d != 1 else ''})" for u, y, d in facts["births_only"])
                         + ". Births stay <NA> in all 162 rows (never 0); those 2 deaths are kept")
        if name == "ar_panel.parquet":
            lines += ["", "National totals of the 24 provinces (rates per 1,000 live births; 2016 without the "
                      "deaths of residence abroad or unknown, which the source does not give that year):", "",
                      "| year | births | infant | neonatal | post-neonatal | IMR | NMR | PNMR |",
                      "|---|---|---|---|---|---|---|---|"]
            for year, row in facts["national_ar"].iterrows():
                b = int(row["births"])
                lines.append(f"| {year} | {b:,} | {int(row['deaths']):,} | {int(row['deaths_neonatal']):,} | "
                             f"{int(row['deaths_postneonatal']):,} | {1000 * row['deaths'] / b:.2f} | "
                             f"{1000 * row['deaths_neonatal'] / b:.2f} | {1000 * row['deaths_postneonatal'] / b:.2f} |")
        lines.append("")
    lines += ["## Row accounting (the ledger, `brecha.datasets.ledger(\"chile\")`, `(\"brazil\")`, `(\"argentina\")`)", "",
              "For each source file: rows read = rows kept + rows excluded, and the same for the births and deaths",
              "they hold. \"filled\" rows are added (births 0 where the source has no row); \"note\" lines describe a",
              "subset of the kept rows. Summed over years:", "",
              "| dataset | source | status | reason | rows | births | deaths |", "|---|---|---|---|---|---|---|"]
    summary = (ledger_df.groupby(["dataset", "source", "status", "reason"], sort=False)[["rows", "births", "deaths"]]
               .sum(min_count=1).reset_index())
    for _, row in summary.iterrows():
        fmt = lambda v: "" if pd.isna(v) else f"{int(v):,}"  # noqa: E731
        lines.append(f"| {row['dataset']} | `{row['source']}` | {row['status']} | {row['reason']} | {fmt(row['rows'])} "
                     f"| {fmt(row['births'])} | {fmt(row['deaths'])} |")
    lines.append("")
    Path(path).write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
