"""Live births from a table (commune, year, births) beside DEIS death microdata.

DEIS publishes birth microdata, but a user often has the births already counted by commune (INE's
*Anuario de Estadísticas Vitales*, a ministry extract). ``brecha ingest deis --deaths ... --births-table
FILE`` (:func:`attach_births`) puts those counts in the panel that the death rows make:

- the table needs a commune code column (``unit``, ``codigo_comuna``, ``cod_comuna``, ``comuna``, ``code``),
  a year column (``year``, ``anio``, ``año``) and a births column (``births``, ``nacidos_vivos``,
  ``nacimientos``); codes are read as the registry reads them (``9101`` = ``09101``);
- a row is used when its commune-year has records in the deaths files (the panel's rows); a row of a
  commune-year without any death record is **not** added (an extract of a region covers only its own
  communes, so brecha cannot tell a true zero from a commune the files do not cover): it is excluded and
  counted in the ledger; rows of totals ("Total regional") are excluded as aggregates;
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
    "note_source": ("Nacimientos: tabla {file} ({n} comuna-años)", "Births: table {file} ({n} commune-years)"),
    "note_missing": ("{n} comuna-años con registros de defunción no tienen fila en {file}: nacimientos <NA> "
                     "({cells})",
                     "{n} commune-years with death records have no row in {file}: births <NA> ({cells})"),
    "note_not_added": ("{n} filas de {file} sin ningún registro de defunción en esa comuna-año no se agregan "
                       "(los archivos de defunciones pueden no cubrirlas): {cells}",
                       "{n} rows of {file} without any death record in that commune-year are not added (the "
                       "deaths files may not cover them): {cells}"),
})
UNIT_NAMES = ("unit", "codigo_comuna", "cod_comuna", "comuna", "code", "cut", "codigo")
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


def attach_births(result, path):
    """The :class:`~brecha.ingest.deis.DeisIngest` ``result`` with births from the table at ``path``
    (rules in the module docstring); its ledger gains the table's rows."""
    from ..panel import Panel

    panel = result.panel
    if panel.data["births"].notna().any():
        raise InputError(MSG("both"), hint=MSG("both_hint"))
    name = Path(path).name
    table = read_births_table(path, panel.registry, result.ledger)
    data = panel.data.drop(columns="births")
    cells = data[["unit", "year"]].astype({"unit": str, "year": "int64"})
    merged = cells.merge(table, on=["unit", "year"], how="left", indicator=True)
    used = table.merge(cells, on=["unit", "year"], how="inner")
    outside = table.merge(cells, on=["unit", "year"], how="left", indicator=True)
    outside = outside[outside["_merge"] == "left_only"]
    result.ledger.add(path, "births_table_row", len(used))
    result.ledger.add(path, "births_table_no_deaths", len(outside), lines=outside["row"].tolist()[:20])
    result.ledger.check()
    data.insert(2, "births", pd.array(merged["births"].to_numpy(dtype="float64"), dtype="Float64").astype("Int64"))
    extra = [MSG("note_source", file=name, n=len(used))]
    missing = merged[merged["_merge"] == "left_only"]
    if len(missing):
        extra.append(MSG("note_missing", n=len(missing), file=name, cells=_cells(missing)))
    if len(outside):
        extra.append(MSG("note_not_added", n=len(outside), file=name, cells=_cells(outside)))
    # the deaths-only ingest noted "births = <NA>" for every year: no longer true
    notes = [n for n in panel.notes if "births = <NA>" not in n] + extra
    result.ledger.notes = [n for n in result.ledger.notes if "births = <NA>" not in n] + extra
    result.panel = Panel(data, country=panel.country, source=f"{panel.source}, {name}", notes=tuple(notes),
                         registry=panel.registry)
    return result
