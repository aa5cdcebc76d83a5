"""Live births from a table (commune, year, births) beside DEIS death microdata.

DEIS publishes birth microdata, but a user often has the births already counted by commune (INE's
*Anuario de Estadísticas Vitales*, a ministry extract). ``brecha ingest deis --deaths ... --births-table
FILE`` (:func:`attach_births`) puts those counts in the panel that the death rows make:

- the table needs a commune code column (``unit``, ``codigo_comuna``, ``cod_comuna``, ``comuna``, ``commune``, ``code``),
  a year column (``year``, ``anio``, ``año``) and a births column (``births``, ``nacidos_vivos``,
  ``nacimientos``); codes are read as the registry reads them (``9101`` = ``09101``);
- a row is used when its commune-year has records in the deaths files (the panel's rows); a row of a
  commune-year without any death record is **not** added (an extract of a region covers only its own
  communes, so brecha cannot tell a true zero from a commune the files do not cover): it is excluded and
  counted in the ledger; rows of totals ("Total regional") are excluded as aggregates;
- with ``cover=True`` (``--deaths-cover births-table``) the user says the deaths files hold every infant
  death of the table's communes in the years the files hold (an extract of infant deaths only has no record
  at all for a commune-year without one, so brecha cannot see that itself): a row of such a commune-year
  without any death record is added with 0 deaths (neonatal and post-neonatal 0), and a commune-year of the
  panel whose deaths were <NA> (not covered) gets 0; rows of years the deaths files do not hold are still
  not added. Without it, a region's rate from an infant-only extract leaves out every commune without a
  death, and is too high (Araucanía 2021: 56/7,702 = 7.27 per 1,000 against 56/9,860 = 5.68);
- commune-years of the panel without a births row keep births <NA>, with a note;
- unknown codes, repeated commune-years, empty, negative or fractional births stop the ingest with the rows
  named. Births given both as microdata (``--births``) and as a table are refused.

Every row of the table is in the ledger (read = used + excluded, checked).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..i18n import Catalog
from .ledger import Ledger

MSG = Catalog({
    "both": ("dio nacimientos como microdatos (--births) y como tabla (--births-table)",
             "births given both as microdata (--births) and as a table (--births-table)"),
    "both_hint": ("use uno de los dos", "use one of them"),
    "no_column": ("no se encontró la columna de {role} (columnas: {columns})",
                  "no {role} column found (columns: {columns})"),
    "no_column_hint": ("nombre la columna {names}", "name the column {names}"),
    "role_unit": ("comuna", "commune"), "role_year": ("año", "year"), "role_births": ("nacimientos", "births"),
    "unknown_units": ("códigos de comuna desconocidos: {codes}", "unknown commune codes: {codes}"),
    "unknown_hint": ("use el código comunal (CUT 2018, p. ej. 09101) o quite esas filas",
                     "use the commune code (2018 CUT, e.g. 09101) or remove those rows"),
    "bad_births": ("nacimientos vacíos, negativos o no enteros", "births empty, negative or not whole numbers"),
    "bad_births_hint": ("escriba un número entero de nacidos vivos en cada fila",
                        "write a whole number of live births in every row"),
    "bad_year": ("año vacío o no numérico", "year empty or not a number"),
    "repeated": ("comuna-año repetido: {cells}", "repeated commune-year: {cells}"),
    "repeated_hint": ("deje una fila por comuna y año", "keep one row per commune and year"),
    "note_source": ("Nacimientos: tabla {file} ({n} {n:comuna-año|comuna-años})",
                    "Births: table {file} ({n} {n:commune-year|commune-years})"),
    "note_missing": ("{n} {n:comuna-año con registros de defunción no tiene|comuna-años con registros de defunción no "
                     "tienen} fila en {file}: nacimientos <NA> ({cells})",
                     "{n} {n:commune-year with death records has|commune-years with death records have} no row in "
                     "{file}: births <NA> ({cells})"),
    "note_not_added": ("{n} {n:fila|filas} de {file} sin ningún registro de defunción en esa comuna-año no se "
                       "{n:agrega|agregan} (los archivos de defunciones pueden no {n:cubrirla|cubrirlas}): {cells}",
                       "{n} {n:row|rows} of {file} without any death record in that commune-year {n:is|are} not added "
                       "(the deaths files may not cover {n:it|them}): {cells}"),
    "hint_cover": ("si los archivos de defunciones contienen toda defunción infantil de esas comunas y años (un "
                   "extracto solo de defunciones infantiles, p. ej.), agregue --deaths-cover births-table para "
                   "contarlas con 0 defunciones",
                   "if the deaths files hold every infant death of those communes and years (an extract of "
                   "infant deaths only, say), add --deaths-cover births-table to count them with 0 deaths"),
    "note_zero": ("{n} {n:comuna-año|comuna-años} de {file} sin registro de defunción se {n:cuenta|cuentan} con 0 "
                  "defunciones infantiles "
                  "(--deaths-cover births-table: los archivos de defunciones cubren las comunas de la tabla en "
                  "{years}): {cells}",
                  "{n} {n:commune-year|commune-years} of {file} without a death record {n:is|are} counted with 0 "
                  "infant deaths "
                  "(--deaths-cover births-table: the deaths files cover the table's communes in {years}): "
                  "{cells}"),
})
UNIT_NAMES = ("unit", "codigo_comuna", "cod_comuna", "comuna", "commune", "code", "cut", "codigo")
YEAR_NAMES = ("year", "anio", "año", "ano")
BIRTHS_NAMES = ("births", "nacidos_vivos", "nacimientos", "nv")


def _find(table: pd.DataFrame, names, role: str, path) -> str:
    lower = {str(c).strip().lower(): c for c in table.columns}
    for name in names:
        if name in lower:
            return lower[name]
    raise InputError(MSG("no_column", role=MSG(f"role_{role}"), columns=", ".join(map(str, table.columns))),
                     file=path, hint=MSG("no_column_hint", names=" / ".join(names)))


def _cells(frame: pd.DataFrame, limit: int = 6) -> str:
    shown = ", ".join(f"{u} {y}" for u, y in zip(frame["unit"].head(limit), frame["year"].head(limit)))
    return shown + (" ..." if len(frame) > limit else "")


def read_births_table(path, registry, ledger: Ledger | None = None) -> pd.DataFrame:
    """``unit, year, births, row`` of a births table (aggregate rows excluded and counted in ``ledger``)."""
    from ..io import read_table
    from ..registry.names import label_kind

    table = read_table(path, dtype=str)
    rows = list(table.attrs.get("rows", range(2, len(table) + 2)))
    unit_col = _find(table, UNIT_NAMES, "unit", path)
    year_col = _find(table, YEAR_NAMES, "year", path)
    births_col = _find(table, BIRTHS_NAMES, "births", path)
    raw_units = table[unit_col].astype("string").str.strip()
    aggregate = raw_units.fillna("").map(lambda v: label_kind(v) == "aggregate").to_numpy(dtype=bool)
    if ledger is not None:
        ledger.start_file(path, "births", len(table))
        ledger.add(path, "aggregate_row", int(aggregate.sum()),
                   lines=[r for r, a in zip(rows, aggregate) if a])
    keep = ~aggregate
    units = registry.normalise_codes(raw_units[keep].tolist())
    kept_rows = [r for r, k in zip(rows, keep) if k]
    known = registry.is_known(units)
    if not known.all():
        bad = [(r, str(u)) for r, u, k in zip(kept_rows, units, known) if not k]
        raise InputError(MSG("unknown_units", codes=", ".join(u for _, u in bad[:10])), file=path,
                         rows=[r for r, _ in bad], column=unit_col, hint=MSG("unknown_hint"))
    years = pd.to_numeric(table.loc[keep, year_col], errors="coerce")
    if years.isna().any() or (years % 1 != 0).any():
        bad = [r for r, y in zip(kept_rows, years) if pd.isna(y) or y % 1]
        raise InputError(MSG("bad_year"), file=path, rows=bad, column=year_col)
    births = pd.to_numeric(table.loc[keep, births_col].str.replace(r"[ .](?=\d{3}\b)", "", regex=True),
                           errors="coerce")
    wrong = births.isna() | (births < 0) | (births % 1 != 0)
    if wrong.any():
        raise InputError(MSG("bad_births"), file=path, rows=[r for r, w in zip(kept_rows, wrong) if w],
                         column=births_col, hint=MSG("bad_births_hint"))
    out = pd.DataFrame({"unit": units.astype(str).to_numpy(), "year": years.astype("int64").to_numpy(),
                        "births": births.astype("int64").to_numpy(), "row": kept_rows})
    repeated = out[out.duplicated(["unit", "year"], keep=False)]
    if len(repeated):
        raise InputError(MSG("repeated", cells=_cells(repeated.drop_duplicates(["unit", "year"]))), file=path,
                         rows=repeated["row"].tolist(), column=unit_col, hint=MSG("repeated_hint"))
    return out


DEATH_COLUMNS = ("deaths", "deaths_neonatal", "deaths_postneonatal")


def attach_births(result, path, cover: bool = False):
    """The :class:`~brecha.ingest.deis.DeisIngest` ``result`` with births from the table at ``path``
    (rules in the module docstring; ``cover``: ``--deaths-cover births-table``); its ledger gains the
    table's rows."""
    from ..panel import Panel

    panel = result.panel
    if panel.data["births"].notna().any():
        raise InputError(MSG("both"), hint=MSG("both_hint"))
    name = Path(path).name
    table = read_births_table(path, panel.registry, result.ledger)
    data = panel.data.drop(columns="births")
    outside = table.merge(data[["unit", "year"]].astype({"unit": str, "year": "int64"}), on=["unit", "year"],
                          how="left", indicator=True)
    outside = outside[outside["_merge"] == "left_only"].drop(columns="_merge")
    zeroed = outside.iloc[:0]
    death_years = sorted(int(y) for y in data.loc[data["deaths"].notna(), "year"].unique())
    if cover:  # the user's word: the deaths files cover the table's communes in the years they hold
        zeroed = outside[outside["year"].isin(death_years)]
        outside = outside[~outside["year"].isin(death_years)]
        if len(zeroed):
            added = pd.DataFrame({"unit": zeroed["unit"].to_numpy(), "year": zeroed["year"].to_numpy()})
            data = pd.concat([data, added], ignore_index=True).sort_values(["unit", "year"], kind="stable")
            data = data.reset_index(drop=True)
        listed = data[["unit", "year"]].astype({"unit": str, "year": "int64"})
        in_table = listed.merge(table[["unit", "year"]], on=["unit", "year"], how="left", indicator=True)
        fill = ((in_table["_merge"] == "both").to_numpy() & data["deaths"].isna().to_numpy()
                & data["year"].isin(death_years).to_numpy())
        for col in DEATH_COLUMNS:
            if col in data.columns:
                data[col] = data[col].astype("Int64").mask(fill, 0)
    cells = data[["unit", "year"]].astype({"unit": str, "year": "int64"})
    merged = cells.merge(table, on=["unit", "year"], how="left", indicator=True)
    used = table.merge(cells, on=["unit", "year"], how="inner")
    result.ledger.add(path, "births_table_row", len(used) - len(zeroed))
    result.ledger.add(path, "births_table_zero_deaths", len(zeroed), lines=zeroed["row"].tolist()[:20])
    result.ledger.add(path, "births_table_no_deaths", len(outside), lines=outside["row"].tolist()[:20])
    result.ledger.check()
    data.insert(2, "births", pd.array(merged["births"].to_numpy(dtype="float64"), dtype="Float64").astype("Int64"))
    extra = [MSG("note_source", file=name, n=len(used))]
    missing = merged[merged["_merge"] == "left_only"]
    if len(missing):
        extra.append(MSG("note_missing", n=len(missing), file=name, cells=_cells(missing)))
    if len(zeroed):
        extra.append(MSG("note_zero", n=len(zeroed), file=name, years=", ".join(map(str, death_years)),
                         cells=_cells(zeroed)))
    if len(outside):
        extra.append(MSG("note_not_added", n=len(outside), file=name, cells=_cells(outside))
                     + ("" if cover else f"; {MSG('hint_cover')}"))
    # the deaths-only ingest noted "births = <NA>" for every year: no longer true
    notes = [n for n in panel.notes if "births = <NA>" not in n] + extra
    result.ledger.notes = [n for n in result.ledger.notes if "births = <NA>" not in n] + extra
    result.panel = Panel(data, country=panel.country, source=f"{panel.source}, {name}", notes=tuple(notes),
                         registry=panel.registry)
    return result
