"""Synthetic DEIS-format microdata with known true counts, for tests and benchmarks.

The generator draws every record's *truth* first (year, the 2018 commune it belongs to, the age group of
the death) and only then writes the fields a DEIS file would hold (the commune code in the code system of
that year, EDAD_TIPO/EDAD_CANT, the Latin-1 text columns). The expected panel and ledger are computed from
the drawn truth, not by parsing the written files, so they are an independent check of
:mod:`brecha.ingest.deis`.

Deaths follow DEIS's ``DEFUNCIONES_FUENTE_DEIS`` layout: ``;``-separated, ISO-8859-1, no header, 27
columns (see ``docs/ingest-deis.md``). Births follow the default births layout assumed by brecha
(:data:`BIRTHS_COLUMNS`), with or without a header, ``;`` or ``,``, UTF-8 or Latin-1.

Command line::

    python -m brecha.ingest.synthetic --deaths-rows 100000 --births-rows 250000 --out DIR --seed 1

writes ``DIR/deaths.csv``, ``DIR/births.csv`` and ``DIR/truth.json`` (expected counts and ledger).
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import progress
from ..outputs import open_atomic, write_file
# the column layouts are the reader's; the generator uses them only to write the births header
from .deis_layout import BIRTHS_COLUMNS, DEATHS_COLUMNS  # noqa: F401

# Death categories drawn by the generator: EDAD_CANT is uniform in [low, high]; high = -1 writes an empty
# EDAD_CANT. ``reason`` is the ledger reason the record must end under (when its year and commune are fine).
DEATH_CATEGORIES = (
    # name,                 tipo, low,  high, reason,                          default share
    ("adult",                 1,    1,   105, "not_infant",                    0.95370),
    ("hours",                 4,    0,    23, "infant_neonatal_early",         0.00800),
    ("days_early",            3,    0,     6, "infant_neonatal_early",         0.00500),
    ("days_late_neonatal",    3,    7,    27, "infant_neonatal_late",          0.00400),
    ("days_postneonatal",     3,   28,   364, "infant_postneonatal",           0.00150),
    ("months",                2,    1,    11, "infant_postneonatal",           0.00800),
    ("years_zero",            1,    0,     0, "infant_age_group_unknown",      0.00050),
    ("months_zero",           2,    0,     0, "infant_age_group_unknown",      0.00020),
    ("months_12_plus",        2,   12,    23, "not_infant_other_units",        0.00020),
    ("days_365_plus",         3,  365,   700, "not_infant_other_units",        0.00010),
    ("hours_24_plus",         4,   24,   671, "infant_neonatal_hours_24_plus", 0.00010),
    ("hours_year_plus",       4, 8760,  9000, "not_infant_other_units",        0.00002),
    ("unknown_9",             9,   99,    99, "age_unknown",                   0.00040),
    ("unknown_empty",         9,    0,    -1, "age_unknown",                   0.00010),
    ("invalid_type",          7,    1,    10, "age_invalid",                   0.00005),
    ("infant_empty_count",    3,    0,    -1, "age_invalid",                   0.00003),
)
# ledger reason -> age group of the panel
REASON_GROUP = {
    "infant_neonatal_early": "neonatal", "infant_neonatal_late": "neonatal",
    "infant_neonatal_hours_24_plus": "neonatal", "infant_postneonatal": "postneonatal",
    "infant_age_group_unknown": "infant_unknown",
}

UNKNOWN_CODE = 99999
UNRECOGNISED_CODE = 12999          # in no code system of any period
SHARE_UNKNOWN_COMMUNE = 0.002
SHARE_UNRECOGNISED_COMMUNE = 0.0005
SHARE_WRITTEN_IN_2018_CODES = 0.3  # DEIS re-releases use current codes for part of the series

_TAILS = (
    "I219;I00-I99;Enfermedades del sistema circulatorio;I20-I25;Enfermedades isquémicas del corazón;I21;"
    "Infarto agudo del miocardio;I219;INFARTO AGUDO DEL MIOCARDIO, SIN OTRA ESPECIFICACIÓN;;;;;;;;;;"
    "Hospital o Clínica",
    "C169;C00-D48;Tumores [Neoplasias];C15-C26;Tumores malignos de los órganos digestivos;C16;"
    "Tumor maligno del estómago;C169;TUMOR MALIGNO DEL ESTÓMAGO, PARTE NO ESPECIFICADA;;;;;;;;;;"
    "Casa habitación",
    "J189;J00-J99;Enfermedades del sistema respiratorio;J09-J18;Influenza [gripe] y neumonía;J18;"
    "Neumonía, organismo no especificado;J189;NEUMONÍA, NO ESPECIFICADA;E149;E00-E90;Enfermedades "
    "endocrinas;E10-E14;Diabetes mellitus;E14;Diabetes mellitus, no especificada;E149;SIN COMPLICACIÓN;"
    "Hospital o Clínica",
    "P073;P00-P96;Ciertas afecciones originadas en el período perinatal;P05-P08;Trastornos relacionados "
    "con la duración de la gestación;P07;Trastornos relacionados con duración corta de la gestación;P073;"
    "OTROS RECIÉN NACIDOS PRETÉRMINO;;;;;;;;;;Hospital o Clínica",
    "G309;G00-G99;Enfermedades del sistema nervioso;G30-G32;Otras enfermedades degenerativas;G30;"
    "Enfermedad de Alzheimer;G309;ENFERMEDAD DE ALZHEIMER, NO ESPECIFICADA;;;;;;;;;;Casa habitación",
    "V892;V01-Y98;Causas externas de morbilidad y de mortalidad;V80-V89;Otros accidentes de transporte "
    "terrestre;V89;Accidente de vehículo de motor;V892;PERSONA LESIONADA EN ACCIDENTE DE TRÁNSITO;;;;;;;;;;"
    "Vía pública",
)


@dataclass
class SyntheticFiles:
    """What the generator wrote and the truth behind it.

    ``deaths_truth``: one row per (year, code_written, unit, code_status, category, reason, group) with
    ``rows``; ``unit`` is the 2018 commune the records belong to (<NA> for unknown/unrecognised codes),
    ``code_status`` is ``known``/``unknown``/``unrecognised``, ``category`` the drawn age case of
    :data:`DEATH_CATEGORIES`, ``reason`` its ledger reason and ``group`` neonatal/postneonatal/
    infant_unknown (or empty). ``births_truth``: (year, code_written, unit, code_status, rows).
    """
    deaths: list = field(default_factory=list)
    births: list = field(default_factory=list)
    deaths_truth: pd.DataFrame | None = None
    births_truth: pd.DataFrame | None = None
    births_variant: dict = field(default_factory=dict)
    seed: int = 0

    def expected_panel(self, years=None, split: str = "keep") -> pd.DataFrame:
        """True unit x year counts (births, deaths, deaths_neonatal, deaths_postneonatal)."""
        return expected_panel(self.deaths_truth, self.births_truth, years=years, split=split)

    def expected_ledger(self, years=None) -> dict:
        """True ledger totals: {"deaths": {reason: rows}, "births": {reason: rows}} (all files together)."""
        return expected_ledger(self.deaths_truth, self.births_truth, years=years)


# ------------------------------------------------------------------------------------------ drawing
def _registry_tables():
    from ..registry import get_registry

    reg = get_registry("CL")
    units = reg.units[["unit", "name", "region_name"]].reset_index(drop=True)
    history = reg.code_history.set_index("unit")
    splits = reg.splits
    return units, history, splits


def _system_column(year: int) -> str:
    # The code system in force for data of that year (INE/DEIS practice). Written out here on purpose
    # rather than taken from brecha.registry.codes.system_for_year: the generator states the practice
    # independently of the reader it checks.
    if year <= 2000:
        return "code_pre_1999"
    if year <= 2006:
        return "code_2000_2008"
    if year <= 2009:
        return "code_2008_2010"
    if year <= 2017:
        return "code_2010_2018"
    return "code_2018"


def _draw_units_and_codes(rng, years: np.ndarray, units, history, splits):
    """For each record: the true 2018 unit index (or -1) and the code written in the file."""
    n = len(years)
    codes_2018 = units["unit"].to_numpy()
    n_units = len(codes_2018)
    # some communes are much bigger than others; the same sizes in every chunk and file
    weights = np.random.default_rng(346).permutation(np.linspace(3.0, 0.2, n_units) ** 2)
    weights /= weights.sum()
    unit_idx = rng.choice(n_units, size=n, p=weights)
    # a commune split off in 2004 did not exist before: its records belong to the parent
    position = {u: i for i, u in enumerate(codes_2018)}
    for child, parent, created in zip(splits["child"], splits["parent"], splits["created_year"]):
        early = (unit_idx == position[child]) & (years < int(created))
        unit_idx[early] = position[parent]
    written = np.zeros(n, dtype=np.int64)
    hist = history.loc[codes_2018]
    use_2018 = rng.random(n) < SHARE_WRITTEN_IN_2018_CODES
    for year in np.unique(years):
        sel = years == year
        column = _system_column(int(year))
        table = hist[column].to_numpy(dtype=np.int64)
        # pre-1999 codes are shared by a parent and its later child: only the parent is written with it
        written[sel] = table[unit_idx[sel]]
    written[use_2018] = hist["code_2018"].to_numpy(dtype=np.int64)[unit_idx[use_2018]]
    status = np.full(n, "known", dtype=object)
    u = rng.random(n)
    unknown = u < SHARE_UNKNOWN_COMMUNE
    unrecognised = (u >= SHARE_UNKNOWN_COMMUNE) & (u < SHARE_UNKNOWN_COMMUNE + SHARE_UNRECOGNISED_COMMUNE)
    written[unknown] = UNKNOWN_CODE
    written[unrecognised] = UNRECOGNISED_CODE
    status[unknown] = "unknown"
    status[unrecognised] = "unrecognised"
    unit_idx = np.where(unknown | unrecognised, -1, unit_idx)
    return unit_idx, written, status


def _fragments(units, history, encoding: str, sep: bytes):
    """Written code -> b'code;name;region' (the text columns as DEIS writes them)."""
    frags = {}
    names = dict(zip(units["unit"], units["name"]))
    regions = dict(zip(units["unit"], units["region_name"]))
    for unit, row in history.iterrows():
        text = sep.join([names.get(unit, "").encode(encoding, "replace"),
                         regions.get(unit, "").encode(encoding, "replace")])
        for column in ("code_pre_1999", "code_2000_2008", "code_2008_2010", "code_2010_2018", "code_2018"):
            code = int(row[column])
            frags.setdefault(code, b"%d%s%s" % (code, sep, text))
    frags[UNKNOWN_CODE] = b"%d%sIgnorada%sIgnorada" % (UNKNOWN_CODE, sep, sep)
    frags[UNRECOGNISED_CODE] = b"%d%sDesconocida%sDesconocida" % (UNRECOGNISED_CODE, sep, sep)
    return frags


def _draw_years(rng, n: int, years: tuple[int, int]) -> np.ndarray:
    first, last = years
    return rng.integers(first, last + 1, size=n).astype(np.int64)


# ------------------------------------------------------------------------------------------ deaths
def write_deaths(path, rows: int, *, seed: int = 0, years=(1990, 2021), shares=None,
                 chunk_rows: int = 400_000, _tables=None) -> pd.DataFrame:
    """Write a DEIS deaths file (``;``, Latin-1, no header, 27 columns) and return its truth table."""
    rng = np.random.default_rng(seed)
    units, history, splits = _tables or _registry_tables()
    cats = DEATH_CATEGORIES
    p = np.array([c[5] if shares is None else shares.get(c[0], 0.0) for c in cats], dtype=float)
    p /= p.sum()
    frags = _fragments(units, history, "latin-1", b";")
    tails = [t.encode("latin-1") for t in _TAILS]
    counts_text = [str(i).encode() for i in range(10000)]
    sexes = (b"Hombre", b"Mujer")
    truth_parts = []
    path = Path(path)
    with open_atomic(path, "wb") as handle:  # the file appears whole or not at all
        # minutes for national sizes: a bar counting rows on a terminal (brecha.progress)
        for start in progress.track(range(0, rows, chunk_rows), "synthetic", total=rows, file=path.name,
                                    size=lambda start: min(chunk_rows, rows - start)):
            m = min(chunk_rows, rows - start)
            year = _draw_years(rng, m, years)
            cat = rng.choice(len(cats), size=m, p=p)
            low = np.array([c[2] for c in cats])[cat]
            high = np.array([c[3] for c in cats])[cat]
            tipo = np.array([c[1] for c in cats])[cat]
            amount = low + (rng.random(m) * (np.maximum(high, low) - low + 1)).astype(np.int64)
            empty = high < 0
            unit_idx, written, status = _draw_units_and_codes(rng, year, units, history, splits)
            month = rng.integers(1, 13, size=m)
            day = rng.integers(1, 29, size=m)
            sex = rng.integers(0, 2, size=m)
            tail = rng.integers(0, len(tails), size=m)
            lines = [
                b"%d;%d-%02d-%02d;%s;%d;%s;%s;%s\n" % (
                    y, y, mo, d, sexes[s], t, b"" if e else counts_text[a], frags[c], tails[k])
                for y, mo, d, s, t, a, e, c, k in zip(
                    year.tolist(), month.tolist(), day.tolist(), sex.tolist(), tipo.tolist(),
                    amount.tolist(), empty.tolist(), written.tolist(), tail.tolist())
            ]
            handle.write(b"".join(lines))
            truth_parts.append(pd.DataFrame({
                "year": year, "code_written": written, "unit_index": unit_idx, "code_status": status,
                "category": np.array([c[0] for c in cats], dtype=object)[cat],
                "reason": np.array([c[4] for c in cats], dtype=object)[cat],
            }).value_counts().rename("rows").reset_index())
    truth = (pd.concat(truth_parts).groupby(["year", "code_written", "unit_index", "code_status", "category",
                                            "reason"], as_index=False)["rows"].sum())
    truth["group"] = truth["reason"].map(REASON_GROUP).fillna("")
    return _attach_units(truth, units)


def _attach_units(truth: pd.DataFrame, units) -> pd.DataFrame:
    codes = units["unit"].to_numpy()
    idx = truth.pop("unit_index").to_numpy()
    truth.insert(2, "unit", pd.array(np.where(idx >= 0, codes[np.maximum(idx, 0)], None), dtype="string"))
    return truth


# ------------------------------------------------------------------------------------------ births
def write_births(path, rows: int, *, seed: int = 0, years=(1990, 2021), header: bool = True,
                 sep: str = ";", encoding: str = "latin-1", crlf: bool = False,
                 chunk_rows: int = 500_000, _tables=None) -> pd.DataFrame:
    """Write a births file in the default layout (:data:`BIRTHS_COLUMNS`); return its truth table."""
    rng = np.random.default_rng(seed)
    units, history, splits = _tables or _registry_tables()
    s = sep.encode()
    end = b"\r\n" if crlf else b"\n"
    frags = _fragments(units, history, encoding, s)
    services = [x.encode(encoding) for x in ("Servicio de Salud Araucanía Sur", "Servicio de Salud Ñuble",
                                             "Servicio de Salud Metropolitano Oriente", "Servicio de Salud Aysén")]
    small = [str(i).encode() for i in range(10000)]
    truth_parts = []
    path = Path(path)
    template = s.join([b"%d"] * 4 + [b"%s"] * 20 + [b"%s", b"%s", b"%d", b"%d-%02d-%02d"]) + end
    with open_atomic(path, "wb") as handle:  # the file appears whole or not at all
        if header:
            handle.write(s.join(c.encode() for c in BIRTHS_COLUMNS) + end)
        # minutes for national sizes: a bar counting rows on a terminal (brecha.progress)
        for start in progress.track(range(0, rows, chunk_rows), "synthetic", total=rows, file=path.name,
                                    size=lambda start: min(chunk_rows, rows - start)):
            m = min(chunk_rows, rows - start)
            year = _draw_years(rng, m, years)
            unit_idx, written, status = _draw_units_and_codes(rng, year, units, history, splits)
            month = rng.integers(1, 13, size=m)
            day = rng.integers(1, 29, size=m)
            sex = rng.integers(1, 3, size=m)
            weight = rng.normal(3350, 500, size=m).clip(400, 6000).astype(np.int64)
            weeks = rng.integers(30, 42, size=m)
            height = rng.integers(40, 56, size=m)
            age_m = rng.integers(14, 46, size=m)
            age_f = rng.integers(16, 60, size=m)
            misc = rng.integers(1, 10, size=(m, 14))
            service = rng.integers(0, len(services), size=m)
            lines = [
                template % (sx, d, mo, y, small[mi[0]], small[mi[1]], small[w], small[wk], small[h],
                            small[am], small[mi[2]], small[mi[3]], small[mi[4]], small[mi[5]], small[mi[6]],
                            small[mi[7]], small[mi[8]], small[mi[9]], small[mi[10]], small[af], small[mi[11]],
                            small[mi[12]], small[mi[13]], small[mi[0]], frags[c], services[sv], 1 + (mi[1] & 1),
                            y, mo, d)
                for sx, d, mo, y, w, wk, h, am, af, mi, c, sv in zip(
                    sex.tolist(), day.tolist(), month.tolist(), year.tolist(), weight.tolist(), weeks.tolist(),
                    height.tolist(), age_m.tolist(), age_f.tolist(), misc.tolist(), written.tolist(),
                    service.tolist())
            ]
            handle.write(b"".join(lines))
            truth_parts.append(pd.DataFrame({
                "year": year, "code_written": written, "unit_index": unit_idx, "code_status": status,
            }).value_counts().rename("rows").reset_index())
    truth = pd.concat(truth_parts).groupby(["year", "code_written", "unit_index", "code_status"],
                                           as_index=False)["rows"].sum()
    return _attach_units(truth, units)


# ------------------------------------------------------------------------------------------ truth
def expected_panel(deaths_truth: pd.DataFrame, births_truth: pd.DataFrame, years=None,
                   split: str = "keep") -> pd.DataFrame:
    """The unit x year counts the files hold, from the generator's truth.

    Infant deaths = neonatal + post-neonatal + infant of unknown age group; records with an unknown or
    unrecognised commune are not in any unit.
    """
    d = deaths_truth[deaths_truth["unit"].notna()]
    b = births_truth[births_truth["unit"].notna()]
    if years is not None:
        d = d[d["year"].isin(list(years))]
        b = b[b["year"].isin(list(years))]
    d = d.assign(unit=_split_target(d["unit"], split))
    b = b.assign(unit=_split_target(b["unit"], split))
    infant = d[d["group"].isin(["neonatal", "postneonatal", "infant_unknown"])]
    births = b.groupby(["unit", "year"])["rows"].sum().rename("births")
    deaths = infant.groupby(["unit", "year"])["rows"].sum().rename("deaths")
    neo = infant[infant["group"] == "neonatal"].groupby(["unit", "year"])["rows"].sum().rename("deaths_neonatal")
    post = (infant[infant["group"] == "postneonatal"].groupby(["unit", "year"])["rows"].sum()
            .rename("deaths_postneonatal"))
    out = pd.concat([births, deaths, neo, post], axis=1).fillna(0).astype("int64").reset_index()
    return out.sort_values(["unit", "year"]).reset_index(drop=True)


def _split_target(units: pd.Series, split: str) -> pd.Series:
    if split == "keep":
        return units
    from ..registry import get_registry

    parent = dict(zip(get_registry("CL").splits["child"], get_registry("CL").splits["parent"]))
    return units.map(lambda u: parent.get(u, u))


def expected_ledger(deaths_truth: pd.DataFrame, births_truth: pd.DataFrame, years=None) -> dict:
    """Rows per ledger reason, in the precedence brecha documents: year outside the requested years, then
    age (deaths), then commune."""
    out = {}
    for kind, truth in (("deaths", deaths_truth), ("births", births_truth)):
        t = truth.copy()
        reason = pd.Series("", index=t.index, dtype=object)
        if years is not None:
            reason[~t["year"].isin(list(years))] = "outside_years"
        if kind == "deaths":
            age_excluded = ~t["reason"].str.startswith("infant_")
            reason[(reason == "") & age_excluded] = t["reason"]
        open_ = reason == ""
        reason[open_ & (t["code_status"] == "unknown")] = "commune_unknown"
        reason[open_ & (t["code_status"] == "unrecognised")] = "commune_unrecognised"
        open_ = reason == ""
        reason[open_] = t.loc[open_, "reason"] if kind == "deaths" else "birth"
        out[kind] = {k: int(v) for k, v in t.groupby(reason)["rows"].sum().items()}
    return out


# ------------------------------------------------------------------------------------------ API
BIRTHS_VARIANTS = {
    "header-semicolon-latin1": dict(header=True, sep=";", encoding="latin-1"),
    "header-comma-utf8": dict(header=True, sep=",", encoding="utf-8"),
    "noheader-semicolon-latin1": dict(header=False, sep=";", encoding="latin-1"),
    "noheader-comma-utf8": dict(header=False, sep=",", encoding="utf-8"),
    "header-semicolon-utf8-crlf": dict(header=True, sep=";", encoding="utf-8", crlf=True),
}


def generate(out_dir, *, deaths_rows: int, births_rows: int, seed: int = 0, years=(1990, 2021),
             births_variant: str = "header-semicolon-latin1", deaths_files: int = 1,
             births_files: int = 1) -> SyntheticFiles:
    """Write deaths and births files into ``out_dir`` and return them with their truth."""
    out_dir = Path(out_dir)
    tables = _registry_tables()
    result = SyntheticFiles(births_variant=dict(BIRTHS_VARIANTS[births_variant]), seed=seed)
    d_parts, b_parts = [], []
    for i in range(deaths_files):
        name = "deaths.csv" if deaths_files == 1 else f"deaths_{i + 1}.csv"
        n = deaths_rows // deaths_files + (1 if i < deaths_rows % deaths_files else 0)
        d_parts.append(write_deaths(out_dir / name, n, seed=seed * 1000 + i, years=years, _tables=tables))
        result.deaths.append(out_dir / name)
    for i in range(births_files):
        name = "births.csv" if births_files == 1 else f"births_{i + 1}.csv"
        n = births_rows // births_files + (1 if i < births_rows % births_files else 0)
        b_parts.append(write_births(out_dir / name, n, seed=seed * 1000 + 500 + i, years=years, _tables=tables,
                                    **BIRTHS_VARIANTS[births_variant]))
        result.births.append(out_dir / name)
    keys = ["year", "code_written", "unit", "code_status", "category", "reason", "group"]
    result.deaths_truth = pd.concat(d_parts).groupby(keys, as_index=False, dropna=False)["rows"].sum()
    result.births_truth = pd.concat(b_parts).groupby(
        ["year", "code_written", "unit", "code_status"], as_index=False, dropna=False)["rows"].sum()
    return result


def save_truth(files: SyntheticFiles, path) -> Path:
    """Write the expected panel and ledger (all years, split keep) as JSON."""
    panel = files.expected_panel()
    payload = {
        "seed": files.seed,
        "deaths_files": [str(p) for p in files.deaths],
        "births_files": [str(p) for p in files.births],
        "births_variant": files.births_variant,
        "ledger": files.expected_ledger(),
        "totals": {c: int(panel[c].sum()) for c in ("births", "deaths", "deaths_neonatal", "deaths_postneonatal")},
        "panel": panel.to_dict(orient="list"),
    }
    text = json.dumps(payload, indent=1, default=int)
    return write_file(Path(path), lambda temp: temp.write_text(text, encoding="utf-8"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m brecha.ingest.synthetic",
        description="Write DEIS-format synthetic deaths and births files with known counts.")
    parser.add_argument("--deaths-rows", type=int, required=True)
    parser.add_argument("--births-rows", type=int, required=True)
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--years", default="1990-2021", help="first-last year, e.g. 1990-2021")
    parser.add_argument("--births-variant", default="header-semicolon-latin1", choices=sorted(BIRTHS_VARIANTS))
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars (shown only on a terminal)")
    args = parser.parse_args(argv)
    first, last = (int(x) for x in args.years.split("-"))
    with progress.for_terminal(sys.stderr, quiet=args.quiet):
        files = generate(args.out, deaths_rows=args.deaths_rows, births_rows=args.births_rows, seed=args.seed,
                         years=(first, last), births_variant=args.births_variant)
        truth = save_truth(files, Path(args.out) / "truth.json")
    print(f"seed {args.seed}: wrote {', '.join(str(p) for p in files.deaths + files.births)}; truth in {truth}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
