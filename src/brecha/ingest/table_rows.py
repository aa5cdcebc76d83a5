"""Which rows of a user's table are units: every row read is used or excluded with a reason, in the ledger.

A table keyed by names gets its codes from :mod:`brecha.registry.names` (exact up to accents, case, spaces
and punctuation, or a known official variant; approximate only when asked). A table keyed by codes keeps
its codes (the Panel checks them against the registry). In both, rows that are not units are excluded and
counted, never matched:

============================ ====================================================================
ledger reason                rows
============================ ====================================================================
``blank_row``                wholly empty rows between the header and the last row
``aggregate_row``            totals and aggregates: "Total país", "Región de Valparaíso", "Provincia de
                             Cautín", "Servicio de Salud ...", "Brasil"; in a code column, or with the
                             code empty and such a label in another column
``unit_unknown_in_source``   the source's own "unknown unit": "Ignorada", "Município ignorado - RO",
                             code 99999 (DEIS) or a Brazilian state code with 0000 (110000)
============================ ====================================================================

Excluding these rather than failing is deliberate: ministry and DATASUS exports end in a total row and
carry regional subtotals, and an analyst should not have to edit the file; the rows are printed and kept in
the ledger, so nothing leaves silently. Anything else that is not a unit (an unknown code, a name with no
exact match) stops with one error listing every such row.

Rows used are counted as ``table_row``, or, for names, ``table_row_variant`` (a known official variant),
``table_row_homonym_region`` (a name of several regions resolved by the file's region) and
``table_row_approximate`` (only with ``match="approximate"``); the last two are also warnings.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import InputError, warn
from ..i18n import Catalog
from .ledger import Ledger

MSG = Catalog({
    "bad_match": ("modo de coincidencia '{match}' desconocido", "unknown matching mode '{match}'"),
    "bad_match_hint": ("use exact (por defecto) o approximate", "use exact (the default) or approximate"),
    "excluded": ("{file}: {n} fila(s) excluida(s), {reason}: {examples}",
                 "{file}: {n} row(s) excluded, {reason}: {examples}"),
    "several": ("{n} problemas en el archivo (se corrigen todos antes de repetir)",
                "{n} problems in the file (correct them all before running again)"),
    "column": ("columna '{column}'", "column '{column}'"),
    "todo": ("qué hacer", "what to do"),
})
MATCH_MODES = ("exact", "approximate")
# name match kind -> ledger reason of a used row
USED_REASON = {"exact": "table_row", "variant": "table_row_variant", "homonym_region": "table_row_homonym_region",
               "approximate": "table_row_approximate", "missing": "table_row"}
EXCLUDED_REASON = {"aggregate": "aggregate_row", "unit_unknown": "unit_unknown_in_source"}
_UNKNOWN_CODE_CL = re.compile(r"^0*99999(?:\.0)?$")
_UNKNOWN_CODE_BR = re.compile(r"^(?:1[1-7]|2[1-9]|3[1-35]|4[1-3]|5[0-3])0000\d?(?:\.0)?$")


class Problems:
    """Every InputError of one file's checks, gathered so that one run reports them all.

        problems = Problems(file)
        births = problems.check(_check_counts, table["nv"], "nv", rows, file)   # None when it failed
        problems.raise_all()     # nothing, the one error, or one error listing each problem with its rows
    """

    def __init__(self, file: str):
        self.file = file
        self.errors: list[InputError] = []

    def check(self, check, *args):
        try:
            return check(*args)
        except InputError as exc:
            self.errors.append(exc)
            return None

    def raise_all(self) -> None:
        if not self.errors:
            return
        if len(self.errors) == 1:
            raise self.errors[0]
        lines = []
        for exc in self.errors:
            where = MSG("column", column=exc.column) + ": " if exc.column else ""
            todo = f" ({MSG('todo')}: {exc.hint})" if exc.hint else ""
            lines.append(f"{where}{exc.problem}{todo}")   # the problem names its first cells and rows
        rows = sorted({r for exc in self.errors for r in (exc.rows or [])})
        raise InputError(MSG("several", n=len(lines)) + ":\n  - " + "\n  - ".join(lines), file=self.file,
                         rows=rows or None)


def check_match_mode(match: str) -> str:
    """``"exact"`` or ``"approximate"`` (else an InputError)."""
    if match not in MATCH_MODES:
        raise InputError(MSG("bad_match", match=match), hint=MSG("bad_match_hint"))
    return match


def file_rows(table: pd.DataFrame) -> np.ndarray:
    """The file's row numbers of the table's rows (from read_table; header = row 1)."""
    rows = table.attrs.get("rows")
    if rows is None or len(rows) != len(table):
        return np.arange(len(table)) + 2
    return np.asarray(rows)


def start(table: pd.DataFrame, file: str, ledger: Ledger | None) -> None:
    """Rows read = every row between the header and the last row read; the wholly empty ones (dropped by
    :func:`brecha.io.read_table`, which keeps the others' file rows) are excluded as ``blank_row``. The
    header is row 1 unless a title block sits above it (``attrs["header_row"]``, brecha.table_layout): the
    title rows are not table rows."""
    if ledger is None:
        return
    rows = file_rows(table)
    header = int(table.attrs.get("header_row") or 1)
    read = int(rows.max()) - header if len(rows) else 0
    kept = set(int(r) for r in rows)
    blank = [r for r in range(header + 1, header + read + 1) if r not in kept]
    ledger.start_file(file, "table", read)
    ledger.add(file, "blank_row", len(blank), lines=blank[:20])


def _keep(table: pd.DataFrame, mask: np.ndarray) -> pd.DataFrame:
    rows = file_rows(table)
    out = table.loc[mask].reset_index(drop=True)
    from ..io import file_rows as as_file_rows  # a tuple pandas does not deep-copy at every step (issue 19)

    out.attrs["rows"] = as_file_rows(rows[mask])
    return out


def _exclude(ledger, file, reasons: pd.Series, labels: pd.Series, rows) -> None:
    """Count and announce the excluded rows (one warning per reason, with examples and rows)."""
    from .ledger import REASONS
    from ..i18n import get_language

    for reason in dict.fromkeys(reasons.dropna()):
        mine = (reasons == reason).to_numpy()
        where = [int(r) for r in np.asarray(rows)[mine]]
        examples = ", ".join(f"'{label}' ({r})" for label, r in list(zip(labels[mine], where))[:5])
        if mine.sum() > 5:
            examples += ", ..."
        label = REASONS[reason][2 if get_language() == "en" else 1]
        warn(MSG("excluded", file=file, n=int(mine.sum()), reason=label, examples=examples))
        if ledger is not None:
            detail = "; ".join(dict.fromkeys(str(x) for x in labels[mine]))[:300]
            ledger.add(file, reason, int(mine.sum()), lines=where[:20], detail=detail)


def units_from_names(table: pd.DataFrame, name_col: str, *, country: str | None, file: str,
                     ledger: Ledger | None = None, match: str = "exact") -> pd.DataFrame:
    """The table with a ``unit`` column from the names in ``name_col`` (dropped), rows that are not units
    excluded. Every problem name (ambiguous, not exact, unknown, in another region) is in one InputError."""
    from ..registry import get_registry

    from ..registry import country_by_names

    registry = get_registry(country or country_by_names(table[name_col]))
    rows = file_rows(table)
    resolved = registry.resolve_names(table[name_col], rows=rows, approximate=check_match_mode(match) ==
                                      "approximate")
    error = registry.names_error(resolved, source=file, column=name_col, refuse=())
    if error is not None:
        raise error
    for note in dict.fromkeys(n for n in resolved["note"] if n):
        warn(f"{file}: {note}")
    excluded = resolved["match"].map(EXCLUDED_REASON)
    _exclude(ledger, file, excluded, resolved["name"], rows)
    keep = excluded.isna().to_numpy()
    if ledger is not None:
        used = resolved[keep]
        for kind, group in used.groupby("match", sort=False):
            notes = "; ".join(dict.fromkeys(n for n in group["note"] if n)) if kind != "variant" else \
                "; ".join(dict.fromkeys(f"{a} -> {registry.name_label(u)}" for a, u in zip(group["name"],
                                                                                          group["unit"])))
            lines = group["row"].tolist() if kind != "exact" else []
            ledger.add(file, USED_REASON[kind], len(group), lines=lines[:20], detail=notes[:500])
    out = table.drop(columns=[c for c in ("unit",) if c in table.columns]).copy()
    out.insert(0, "unit", resolved["unit"].to_numpy())
    out = _keep(out.drop(columns=[name_col]), keep)
    return out


def exclude_non_units(table: pd.DataFrame, unit_col: str, *, country: str | None, file: str,
                      ledger: Ledger | None = None) -> pd.DataFrame:
    """A code-keyed table without its total/aggregate rows and the source's unknown-unit codes (counted)."""
    from ..registry.names import label_kind

    rows = file_rows(table)
    codes = table[unit_col].astype("string").str.strip()
    kind = pd.Series([None] * len(table), dtype="object")
    text = codes.fillna("")
    numeric = text.str.fullmatch(r"[0-9.]+").fillna(False).to_numpy(dtype=bool)
    labels = text.copy()
    for i in np.flatnonzero(~numeric & (text != "").to_numpy()):
        kind.iloc[i] = label_kind(text.iloc[i])
    if country is not None:
        unknown = text.str.fullmatch(_UNKNOWN_CODE_CL.pattern).fillna(False).to_numpy(dtype=bool)
        if str(country).upper() in ("BR", "AUTO", "BRAZIL", "BRASIL"):
            unknown |= text.str.fullmatch(_UNKNOWN_CODE_BR.pattern).fillna(False).to_numpy(dtype=bool)
        kind[unknown & kind.isna().to_numpy()] = "unit_unknown"
        if str(country).upper() in ("AR", "AUTO", "ARGENTINA"):  # DEIS Argentina: 00 the country, GBA a sum of
            # partidos, 98 abroad, 99 unknown residence (brecha.registry.argentina.AGGREGATE_CODES)
            code = text.str.replace(r"\.0$", "", regex=True).str.zfill(2)
            fresh = kind.isna().to_numpy()
            kind[code.isin(["00", "GBA"]).to_numpy(dtype=bool) & fresh] = "aggregate"
            kind[code.isin(["98", "99"]).to_numpy(dtype=bool) & fresh] = "unit_unknown"
    others = [c for c in table.columns if c != unit_col]
    for i in np.flatnonzero((text == "").to_numpy()):   # code empty: a total labelled in another column?
        for col in others:
            cell = table[col].iloc[i]
            if isinstance(cell, str) and label_kind(cell) == "aggregate":
                kind.iloc[i], labels.iloc[i] = "aggregate", cell.strip()
                break
    excluded = kind.map(EXCLUDED_REASON)
    _exclude(ledger, file, excluded, labels, rows)
    keep = excluded.isna().to_numpy()
    if ledger is not None:
        ledger.add(file, "table_row", int(keep.sum()))
    return _keep(table, keep) if not keep.all() else table
