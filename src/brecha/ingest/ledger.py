"""The record ledger: where every input record went (counted, or excluded with a reason).

One entry per (input file, reason) with the number of records. For each file the counted and excluded
records add up exactly to the records read; :meth:`Ledger.check` enforces it and the ingest calls it before
returning. The ledger prints in Spanish or English (:meth:`Ledger.format`) and is saved beside the panel as
CSV and JSON (:meth:`Ledger.save`).

Example::

    >>> led = Ledger()
    >>> led.start_file("defunciones.csv", "deaths", rows_read=10)
    >>> led.add("defunciones.csv", "not_infant", 9)
    >>> led.add("defunciones.csv", "infant_neonatal_early", 1)
    >>> led.check()
    >>> led.totals()["counted"].tolist()
    [1]
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import BrechaError
from ..i18n import Catalog, format_count, get_language  # noqa: F401 (format_count is part of this module's API)

# reason -> (status, Spanish label, English label). Order = order of printing.
REASONS: dict[str, tuple[str, str, str]] = {
    "infant_neonatal_early": ("counted", "defunción neonatal precoz (< 7 días)",
                              "early neonatal death (< 7 days)"),
    "infant_neonatal_late": ("counted", "defunción neonatal tardía (7-27 días)",
                             "late neonatal death (7-27 days)"),
    "infant_neonatal_hours_24_plus": ("counted", "defunción neonatal anotada en horas >= 24 (leída como días)",
                                      "neonatal death written as 24 hours or more (read as days)"),
    "infant_postneonatal": ("counted", "defunción posneonatal (28 días a 11 meses)",
                            "post-neonatal death (28 days to 11 months)"),
    "infant_postneonatal_hours": ("counted", "defunción posneonatal anotada en horas (672-8759, leída como días)",
                                  "post-neonatal death written in hours (672-8759, read as days)"),
    "infant_age_group_unknown": ("counted", "defunción infantil sin grupo de edad (anotada 0 años o 0 meses)",
                                 "infant death without age group (written as 0 years or 0 months)"),
    "birth": ("counted", "nacido vivo", "live birth"),
    "not_infant": ("excluded", "edad 1 año o más (no es defunción infantil)",
                   "age 1 year or more (not an infant death)"),
    "not_infant_other_units": ("excluded", "edad >= 1 año anotada en meses (>= 12), días (>= 365) u horas (>= 8760)",
                               "age >= 1 year written in months (>= 12), days (>= 365) or hours (>= 8760)"),
    "age_unknown": ("excluded", "edad ignorada (EDAD_TIPO 9)", "age unknown (EDAD_TIPO 9)"),
    "age_invalid": ("excluded", "edad vacía o inválida (EDAD_TIPO/EDAD_CANT)",
                    "age empty or invalid (EDAD_TIPO/EDAD_CANT)"),
    "year_invalid": ("excluded", "año vacío o no numérico", "year empty or not a number"),
    "outside_years": ("excluded", "fuera de los años pedidos", "outside the requested years"),
    "filtered": ("excluded", "excluido por el filtro del formato", "excluded by the layout's filter"),
    "commune_unknown": ("excluded", "comuna ignorada (99999)", "commune unknown (99999)"),
    "commune_unrecognised": ("excluded", "código de comuna no reconocido en ningún período",
                             "commune code not recognised in any period"),
    "commune_missing": ("excluded", "comuna vacía o no numérica", "commune empty or not a number"),
    "malformed_columns": ("excluded", "fila mal formada (número de columnas distinto)",
                          "malformed row (wrong number of columns)"),
    "blank_line": ("excluded", "línea en blanco", "blank line"),
    # brecha ingest table (brecha.ingest.table_rows)
    "table_row": ("counted", "fila usada", "row used"),
    "table_row_variant": ("counted", "fila usada: nombre por variante oficial conocida",
                          "row used: name by a known official variant"),
    "table_row_homonym_region": ("counted", "fila usada: nombre de varias regiones, resuelto por la región del "
                                 "archivo", "row used: name of several regions, resolved by the file's region"),
    "table_row_approximate": ("counted", "fila usada: nombre por coincidencia aproximada (--match approximate)",
                              "row used: name by approximate match (--match approximate)"),
    "aggregate_row": ("excluded", "fila de total o agregado (Total país, Región de ...)",
                      "total or aggregate row (Total país, Región de ...)"),
    "unit_unknown_in_source": ("excluded", "unidad desconocida en la fuente (Ignorada, 99999)",
                               "unit unknown to the source (Ignorada, 99999)"),
    "blank_row": ("excluded", "fila vacía", "blank row"),
    # brecha ingest deis --births-table (brecha.ingest.births_table)
    "births_table_row": ("counted", "fila de nacimientos usada (comuna-año con registros de defunción)",
                         "births row used (commune-year with death records)"),
    "births_table_zero_deaths": ("counted", "fila de nacimientos de una comuna-año sin registro de defunción: 0 "
                                 "defunciones (--deaths-cover births-table)",
                                 "births row of a commune-year without a death record: 0 deaths "
                                 "(--deaths-cover births-table)"),
    "births_table_no_deaths": ("excluded", "comuna-año sin ningún registro en los archivos de defunciones (el "
                               "archivo puede no cubrirla): no se agrega",
                               "commune-year without any record in the deaths files (the files may not cover "
                               "it): not added"),
}

MSG = Catalog({
    "title": ("Registro de filas (ledger)", "Record ledger"),
    "file": ("archivo", "file"),
    "kind": ("tipo", "kind"),
    "deaths": ("defunciones", "deaths"),
    "births": ("nacimientos", "births"),
    "table": ("tabla", "table"),
    "read": ("filas leídas", "rows read"),
    "counted": ("contadas", "counted"),
    "excluded": ("excluidas", "excluded"),
    "status": ("estado", "status"),
    "reason": ("motivo", "reason"),
    "rows": ("filas", "rows"),
    "lines": ("líneas (ejemplos)", "lines (examples)"),
    "total": ("TOTAL", "TOTAL"),
    "mismatch": ("el ledger no cuadra para {file}: {read} {read:fila leída|filas leídas}, {counted} "
                 "{counted:contada|contadas} + {excluded} {excluded:excluida|excluidas}",
                 "the ledger does not add up for {file}: {read} {read:row|rows} read, {counted} counted + "
                 "{excluded} excluded"),
    "unknown_reason": ("motivo desconocido en el ledger: {reason}", "unknown ledger reason: {reason}"),
})


class LedgerError(BrechaError):
    """The ledger's totals do not add up (a bug, never a user error)."""


@dataclass
class Ledger:
    """Per input file: rows read, rows counted, rows excluded by reason (exact totals)."""

    rows_read: dict = field(default_factory=dict)      # file -> int
    kinds: dict = field(default_factory=dict)          # file -> "deaths" | "births" | "table"
    entries: list = field(default_factory=list)        # dicts: file, reason, rows, lines, detail
    notes: list = field(default_factory=list)          # free text shown under the table

    def start_file(self, file, kind: str, rows_read: int) -> None:
        file = str(file)
        self.rows_read[file] = self.rows_read.get(file, 0) + int(rows_read)
        self.kinds[file] = kind

    def add(self, file, reason: str, rows: int, lines=(), detail: str = "") -> None:
        """Record ``rows`` records of ``file`` under ``reason`` (a key of :data:`REASONS`)."""
        if reason not in REASONS:
            raise LedgerError(MSG("unknown_reason", reason=reason))
        rows = int(rows)
        if rows == 0:
            return
        for entry in self.entries:
            if entry["file"] == str(file) and entry["reason"] == reason:
                entry["rows"] += rows
                entry["lines"] = sorted(set(entry["lines"]) | {int(x) for x in lines})[:20]
                if detail and detail not in entry["detail"]:
                    entry["detail"] = "; ".join(x for x in (entry["detail"], detail) if x)
                return
        self.entries.append({"file": str(file), "reason": reason, "rows": rows,
                             "lines": sorted({int(x) for x in lines})[:20], "detail": detail})

    # ------------------------------------------------------------------ tables
    def to_frame(self, lang: str | None = None) -> pd.DataFrame:
        """One row per (file, reason): file, kind, status, reason, label, rows, lines, detail."""
        lang = lang or get_language()
        order = {r: i for i, r in enumerate(REASONS)}
        rows = []
        for e in sorted(self.entries, key=lambda e: (list(self.rows_read).index(e["file"])
                                                     if e["file"] in self.rows_read else 0, order[e["reason"]])):
            status, es, en = REASONS[e["reason"]]
            rows.append({"file": e["file"], "kind": self.kinds.get(e["file"], ""), "status": status,
                         "reason": e["reason"], "label": en if lang == "en" else es, "rows": e["rows"],
                         "lines": " ".join(str(x) for x in e["lines"]), "detail": e["detail"]})
        columns = ["file", "kind", "status", "reason", "label", "rows", "lines", "detail"]
        return pd.DataFrame(rows, columns=columns).astype({"rows": "int64"})

    def totals(self) -> pd.DataFrame:
        """Per file: kind, rows_read, counted, excluded (counted + excluded == rows_read)."""
        frame = self.to_frame("en")
        out = []
        for file, read in self.rows_read.items():
            mine = frame[frame["file"] == file]
            out.append({"file": file, "kind": self.kinds[file], "rows_read": int(read),
                         "counted": int(mine.loc[mine["status"] == "counted", "rows"].sum()),
                         "excluded": int(mine.loc[mine["status"] == "excluded", "rows"].sum())})
        return pd.DataFrame(out, columns=["file", "kind", "rows_read", "counted", "excluded"])

    def by_reason(self, kind: str | None = None) -> dict:
        """Rows per reason over all files (of one kind if given)."""
        frame = self.to_frame("en")
        if kind:
            frame = frame[frame["kind"] == kind]
        return {k: int(v) for k, v in frame.groupby("reason", sort=False)["rows"].sum().items()}

    def check(self) -> None:
        """Raise :class:`LedgerError` unless every file's counted + excluded equals its rows read."""
        for row in self.totals().itertuples():
            if row.counted + row.excluded != row.rows_read:
                raise LedgerError(MSG("mismatch", file=row.file, read=row.rows_read, counted=row.counted,
                                      excluded=row.excluded))

    # ------------------------------------------------------------------ output
    def format(self, lang: str | None = None) -> str:
        """A readable table: per file the rows read, then each reason with its rows."""
        lang = lang or get_language()
        frame = self.to_frame(lang)
        width = max([len(r) for r in frame["label"]] + [30]) + 4
        lines = [MSG("title", lang=lang)]
        for total in self.totals().itertuples():
            lines.append("")
            lines.append(f"{total.file}  ({MSG(total.kind, lang=lang)})")
            lines.append(f"  {MSG('read', lang=lang):<{width}}{format_count(total.rows_read, lang):>12}")
            for status in ("counted", "excluded"):
                mine = frame[(frame["file"] == total.file) & (frame["status"] == status)]
                value = total.counted if status == "counted" else total.excluded
                lines.append(f"  {MSG(status, lang=lang):<{width}}{format_count(value, lang):>12}")
                for row in mine.itertuples():
                    where = f"   [{MSG('lines', lang=lang)}: {row.lines}]" if row.lines else ""
                    extra = f"   ({row.detail})" if row.detail else ""
                    lines.append(f"    {row.label:<{width - 2}}{format_count(row.rows, lang):>12}{where}{extra}")
        if len(self.rows_read) > 1:
            t = self.totals()
            lines.append("")
            for kind in ("deaths", "births", "table"):
                k = t[t["kind"] == kind]
                if len(k):
                    lines.append(f"{MSG('total', lang=lang)} {MSG(kind, lang=lang)}: {MSG('read', lang=lang)} "
                                 f"{format_count(k['rows_read'].sum(), lang)}, {MSG('counted', lang=lang)} "
                                 f"{format_count(k['counted'].sum(), lang)}, {MSG('excluded', lang=lang)} "
                                 f"{format_count(k['excluded'].sum(), lang)}")
        for note in self.notes:
            lines.append(f"* {note}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    @staticmethod
    def paths_beside(output) -> tuple[Path, Path]:
        """``<output stem>.ledger.csv`` and ``<output stem>.ledger.json`` for a panel file ``output``."""
        output = Path(output)
        base = output.with_suffix("") if output.suffix else output
        return base.parent / f"{base.name}.ledger.csv", base.parent / f"{base.name}.ledger.json"

    def save(self, output) -> tuple[Path, Path]:
        """Write ``<output stem>.ledger.csv`` and ``.ledger.json`` beside ``output``; return both paths.

        The two appear together or not at all (:func:`brecha.outputs.together`; inside a caller's ``together``
        block, with the caller's files, e.g. the panel)."""
        from ..outputs import together, write_file

        csv_path, json_path = self.paths_beside(output)
        table = self.to_frame()
        payload = {"totals": self.totals().to_dict(orient="records"),
                   "entries": self.to_frame("en").to_dict(orient="records"), "notes": list(self.notes)}
        text = json.dumps(payload, indent=1, ensure_ascii=False)
        with together():
            write_file(csv_path, lambda temp: table.to_csv(temp, index=False))
            write_file(json_path, lambda temp: temp.write_text(text, encoding="utf-8"))
        return csv_path, json_path

    @classmethod
    def beside(cls, panel_file) -> "Ledger | None":
        """The ledger saved beside a panel file by ``brecha ingest deis`` (None when there is none).

        For reports: ``Ledger.beside("panel.parquet").to_frame(lang)`` (one row per file and reason) and
        ``.totals()`` (per file: rows read, counted, excluded).
        """
        json_path = cls.paths_beside(panel_file)[1]
        return cls.load(json_path) if json_path.exists() else None

    @classmethod
    def load(cls, path) -> "Ledger":
        """Read a ledger saved by :meth:`save` (the .json file)."""
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
        led = cls()
        for t in payload["totals"]:
            led.start_file(t["file"], t["kind"], t["rows_read"])
        for e in payload["entries"]:
            lines = [int(x) for x in str(e.get("lines") or "").split()]
            led.add(e["file"], e["reason"], e["rows"], lines=lines, detail=e.get("detail") or "")
        led.notes = list(payload.get("notes", []))
        return led
