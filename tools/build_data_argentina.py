"""The Argentine part of the embedded data and the Araucanía 2021 DEIS example (called by build_data.py).

Argentina: the registry of the 24 provinces (``ar_units.parquet``) and the province x year panel 2005-2024
with infant, neonatal and post-neonatal deaths (``ar_panel.parquet``), from
``argentina_provincias_neonatal_posneonatal_2005_2024.csv``. Araucanía 2021: the raw DEIS death rows
(``cl_araucania_2021_deis_deaths.csv.gz``, the file as shipped in the source folder, gzip with mtime 0) and
the INE births by commune with the counts the source file gives for checking
(``cl_araucania_2021_births.parquet``). Every check stops the build when the sources do not look as
documented in the source folder's SOURCES.md.
"""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd

AR_SOURCE = "argentina_provincias_neonatal_posneonatal_2005_2024.csv"
ARAUCANIA_DEATHS = "deis_defunciones_formato_crudo_araucania_2021.csv"
ARAUCANIA_BIRTHS = "araucania_2021_nacidos_ine_y_defunciones_infantiles_deis_por_comuna.csv"

# Province centroids (lat, lon) of the Georef Argentina API (datos.gob.ar, Instituto Geográfico Nacional),
# field `centroide` of /provincias, as they appear in public copies of the API's answer. Tierra del Fuego's
# centroid there lies in the Antarctic sector the province claims (-82.52, -50.74): the map uses the seat of
# the provincial government, Ushuaia (54°48'S 68°18'W), instead.
CENTROIDS = {
    "02": (-34.6144420654301, -58.4458763250916), "06": (-36.6773920760823, -60.5584771084959),
    "10": (-27.3359537960762, -66.9478972451295), "14": (-32.1447993873859, -63.801973466573),
    "18": (-28.7742044813623, -57.8010818603331), "22": (-26.3869871835867, -60.765116260356),
    "26": (-43.7886271389083, -68.5267363339818), "30": (-32.0589278938558, -59.201262616496),
    "34": (-24.8950871761481, -59.9321901121647), "38": (-23.3199750616583, -65.764423919292),
    "42": (-37.1350652212898, -65.4476439990213), "46": (-29.6849372775783, -67.1817575814487),
    "50": (-34.6303887067166, -68.5829456019867), "54": (-26.8753025989034, -54.6515705627219),
    "58": (-38.6419828626673, -70.1198972237318), "62": (-40.4050796306359, -67.2296757996036),
    "66": (-24.2992838957201, -64.8141586574346), "70": (-30.8656607015096, -68.8881597071776),
    "74": (-33.7611035381154, -66.0252312714021), "78": (-48.8155471830527, -69.9557619144913),
    "82": (-30.7088227091528, -60.9506872769706), "86": (-27.7834318817521, -63.2526268856462),
    "90": (-26.948283501723, -65.3647655803683), "94": (-54.8019, -68.3030),
}
ORIGINS = {
    AR_SOURCE: "DEIS Argentina (Ministerio de Salud), *Estadísticas vitales. Información básica*, yearbooks "
        "2005-2024, as tabulated in `sanchisivan/infant-mortality-argentina-1980-2024` @ `5386fc53`, "
        "`data_raw/deis_anuarios_neonatal_posneonatal_2005_2024.csv` (copied character for character in the "
        "shared folder). Official public statistics.",
    "georef provincias": "Georef Argentina API (Servicio de Normalización de Datos Geográficos, datos.gob.ar; "
        "source IGN), `centroide` of each province, as repeated in public repositories that copy the API's "
        "answer. Datos Argentina publishes under CC BY 4.0.",
    ARAUCANIA_DEATHS: "`jmainhard/analisis-deis` @ `d472cbacd89a8962a8e70c82ca784b53fe0219fd`, "
        "`producto/b-araucania/2021/datos.csv`, written back in the shared folder to the DEIS layout (`;`, "
        "Latin-1, no header). Producer: DEIS (MINSAL), open data \"Defunciones por causa\", preliminary file "
        "of 2022-10-06.",
    ARAUCANIA_BIRTHS: "births: INE, *Anuario de Estadísticas Vitales 2021* (CC BY 4.0), as normalised in "
        "`cortega26/chile-hub` (`data/normalized/estadisticas_vitales.json` @ `053bdafa`); DEIS counts made "
        "in the shared folder from the raw rows above.",
}
TRANSFORMS = {
    "ar_units.parquet": [
        "the 24 jurisdictions with their INDEC codes (2-digit text), INDEC names and INDEC statistical region "
        "(EPH codes 01 Gran Buenos Aires, 40 Noroeste, 41 Noreste, 42 Cuyo, 43 Pampeana, 44 Patagonia; the "
        "whole province of Buenos Aires in Pampeana, the Ciudad alone in Gran Buenos Aires); province = the "
        "unit itself; country 'AR'",
        "lat/lon = the Georef province centroid; Tierra del Fuego: Ushuaia (the Georef centroid is in "
        "Antarctica)"],
    "ar_panel.parquet": [
        "births = nv, deaths = def, deaths_neonatal = neo, deaths_postneonatal = posneo (Int64; empty stays "
        "<NA>); prov -> unit, anio -> year",
        "rows that are not provinces are excluded (ledger): 00 (country total), 98 (residence abroad), 99 "
        "(residence unknown), GBA (Gran Buenos Aires, overlaps 02 and 06)",
        "every province-year has deaths = neonatal + post-neonatal; the two source rows where one infant death "
        "of unknown age breaks that (00 and 99 of 2024) are not provinces and are excluded"],
    "ar_table_neonatal_days.parquet": [
        "deaths_neonatal_early = neo_0_6 (0-6 days), deaths_neonatal_late = neo_7_27 (7-27 days) for the 24 "
        "provinces; empty (<NA>) for every province in 2016 and 2024, as in the source"],
    "cl_araucania_2021_deis_deaths.csv.gz": [
        "the raw file byte for byte, gzip-compressed (level 9, mtime 0): 8,619 rows, 27 columns, no header"],
    "cl_araucania_2021_births.parquet": [
        "codigo_comuna -> unit, nombre_comuna -> name, anio -> year, nacidos_vivos -> births; the source's DEIS "
        "counts kept for checking as check_deaths, check_deaths_neonatal, check_deaths_postneonatal; "
        "rates and the other columns dropped"],
}


def _count(values: pd.Series) -> pd.Series:
    numbers = pd.to_numeric(values, errors="coerce")
    assert ((numbers.dropna() % 1) == 0).all(), "non-integer count"
    return numbers.round().astype("Int64")


def argentina(src: Path, out: Path, write_parquet, ledger) -> None:
    """ar_units, ar_panel, ar_table_neonatal_days and the ledger lines of dataset 'argentina'."""
    from brecha.registry.argentina import AGGREGATE_CODES, PROVINCES, REGIONS

    units = pd.DataFrame({
        "unit": list(PROVINCES), "name": [n for n, _ in PROVINCES.values()], "province": list(PROVINCES),
        "province_name": [n for n, _ in PROVINCES.values()], "region": [r for _, r in PROVINCES.values()],
        "region_name": [REGIONS[r] for _, r in PROVINCES.values()], "country": "AR",
        "lat": [CENTROIDS[c][0] for c in PROVINCES], "lon": [CENTROIDS[c][1] for c in PROVINCES]})
    assert len(units) == 24 and units["lat"].between(-56, -21).all() and units["lon"].between(-74, -53).all()
    write_parquet(units, out, "ar_units.parquet", sources=["georef provincias"])

    raw = pd.read_csv(src / AR_SOURCE, dtype=str, keep_default_na=False, na_values=[""])
    assert len(raw) == 557, len(raw)
    d = pd.DataFrame({"unit": raw["prov"], "year": raw["anio"].astype("int64"), "births": _count(raw["nv"]),
                      "deaths": _count(raw["def"]), "deaths_neonatal": _count(raw["neo"]),
                      "deaths_postneonatal": _count(raw["posneo"]),
                      "deaths_neonatal_early": _count(raw["neo_0_6"]), "deaths_neonatal_late": _count(raw["neo_7_27"])})
    ledger("argentina", AR_SOURCE, "read", "rows in the source", d, births=True, deaths=True)
    reasons = {"country_total": "country total (prov 00), not a province",
               "residence_abroad": "residence in another country (prov 98), not a province",
               "residence_unknown": "residence unknown (prov 99), not a province",
               "gran_buenos_aires": "Gran Buenos Aires (GBA): an aggregate overlapping 02 and 06, not a province"}
    for code, key in AGGREGATE_CODES.items():
        part = d[d["unit"] == code]
        assert len(part) in (19, 20), (code, len(part))
        ledger("argentina", AR_SOURCE, "excluded", reasons[key], part, births=True, deaths=True)
    kept = d[d["unit"].isin(PROVINCES)].sort_values(["unit", "year"]).reset_index(drop=True)
    assert len(kept) + d["unit"].isin(AGGREGATE_CODES).sum() == len(d)
    assert len(kept) == 24 * 20 and not kept.duplicated(["unit", "year"]).any()
    ledger("argentina", AR_SOURCE, "kept", "province-years", kept, births=True, deaths=True)
    # the checks SOURCES.md states
    parts = d["deaths_neonatal"] + d["deaths_postneonatal"]
    off = d[parts != d["deaths"]]      # the country row and the unknown-residence row of 2024
    assert off[["unit", "year"]].values.tolist() == [["00", 2024], ["99", 2024]], off
    assert ((off["deaths"] - parts[off.index]) == 1).all()
    both = kept["deaths_neonatal_early"].notna() & kept["deaths_neonatal_late"].notna()
    assert (kept.loc[both, "deaths_neonatal_early"] + kept.loc[both, "deaths_neonatal_late"]
            == kept.loc[both, "deaths_neonatal"]).all()
    assert set(kept.loc[~both, "year"]) == {2016, 2024}
    total = d[d["unit"] == "00"].set_index("year")
    summed = d[d["unit"].isin(list(PROVINCES) + ["98", "99"])].groupby("year")[["births", "deaths"]].sum()
    for year in summed.index:
        if year != 2016:
            assert summed.loc[year, "deaths"] == total.loc[year, "deaths"], year
    assert summed.loc[2016, "deaths"] != total.loc[2016, "deaths"]     # 2016: no 98/99 rows in the source
    ledger("argentina", AR_SOURCE, "note", "2016: the source has no rows of residence abroad or unknown "
           "(98/99): the provinces add up to less than the country row",
           kept[kept["year"] == 2016], births=True, deaths=True)
    ledger("argentina", AR_SOURCE, "note", "kept rows without the 0-6 / 7-27 days split (2016 and 2024)",
           kept[~both], births=True, deaths=True)
    panel = kept[["unit", "year", "births", "deaths", "deaths_neonatal", "deaths_postneonatal"]]
    national = panel.groupby("year")[["births", "deaths", "deaths_neonatal", "deaths_postneonatal"]].sum()
    write_parquet(panel, out, "ar_panel.parquet", sources=[AR_SOURCE], national_ar=national)
    write_parquet(kept[["unit", "year", "deaths_neonatal", "deaths_neonatal_early", "deaths_neonatal_late"]], out,
                  "ar_table_neonatal_days.parquet", sources=[AR_SOURCE])


def araucania(src: Path, out: Path, write_parquet, files: dict) -> None:
    """The raw DEIS rows of Araucanía 2021 (gzip) and the INE births by commune."""
    raw = (src / ARAUCANIA_DEATHS).read_bytes()
    assert raw.count(b"\n") == 8619, raw.count(b"\n")
    name = "cl_araucania_2021_deis_deaths.csv.gz"
    (out / name).write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    files[name] = {"rows": 8619, "columns": ["27 DEIS columns, no header"], "sources": [ARAUCANIA_DEATHS]}
    b = pd.read_csv(src / ARAUCANIA_BIRTHS, dtype=str)
    assert len(b) == 32 and b["codigo_comuna"].str.fullmatch(r"09\d{3}").all()
    births = pd.DataFrame({
        "unit": b["codigo_comuna"], "name": b["nombre_comuna"], "year": b["anio"].astype("int64"),
        "births": _count(b["nacidos_vivos"]), "check_deaths": _count(b["def_infantiles_deis"]),
        "check_deaths_neonatal": _count(b["def_neonatales_deis"]),
        "check_deaths_postneonatal": _count(b["def_postneonatales_deis"])}).sort_values("unit")
    totals = births[["births", "check_deaths", "check_deaths_neonatal", "check_deaths_postneonatal"]].sum()
    assert totals.tolist() == [9860, 56, 41, 15], totals.tolist()
    assert np.isclose(1000 * 56 / 9860, 5.68, atol=0.005)
    write_parquet(births, out, "cl_araucania_2021_births.parquet", sources=[ARAUCANIA_BIRTHS, ARAUCANIA_DEATHS])
