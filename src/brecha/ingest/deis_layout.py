"""Layouts of DEIS microdata files, and the checks of a file's first lines before it is read.

Deaths (``DEFUNCIONES_FUENTE_DEIS_*``): ``;``-separated, ISO-8859-1, no header, 27 columns
(:data:`DEATHS_COLUMNS`). Re-published copies may carry a header and use ``,``: both are recognised.

Births: DEIS publishes no single fixed layout across years (recent files carry a header, older ones may
not; separators and encodings vary). brecha needs only the year of birth, the commune of the mother's
residence and any column used to exclude records. It finds them by header name (:data:`BIRTHS_YEAR_NAMES`,
:data:`BIRTHS_COMMUNE_NAMES`) or, in a headerless file, by position in the default layout
(:data:`BIRTHS_COLUMNS`); anything else needs a :class:`BirthsLayout`.

Only numeric columns are parsed, so the text encoding (UTF-8, Latin-1, Windows-1252) does not matter;
names always come from the registry. UTF-16 files, compressed files and spreadsheets are refused with a
message saying what to do.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, warn
from ..i18n import Catalog

DEATHS_COLUMNS = (
    "ANO_DEF", "FECHA_DEF", "GLOSA_SEXO", "EDAD_TIPO", "EDAD_CANT", "CODIGO_COMUNA_RESIDENCIA",
    "GLOSA_COMUNA_RESIDENCIA", "GLOSA_REG_RES", "DIAG1", "CAPITULO_DIAG1", "GLOSA_CAPITULO_DIAG1",
    "CODIGO_GRUPO_DIAG1", "GLOSA_GRUPO_DIAG1", "CODIGO_CATEGORIA_DIAG1", "GLOSA_CATEGORIA_DIAG1",
    "CODIGO_SUBCATEGORIA_DIAG1", "GLOSA_SUBCATEGORIA_DIAG1", "DIAG2", "CAPITULO_DIAG2", "GLOSA_CAPITULO_DIAG2",
    "CODIGO_GRUPO_DIAG2", "GLOSA_GRUPO_DIAG2", "CODIGO_CATEGORIA_DIAG2", "GLOSA_CATEGORIA_DIAG2",
    "CODIGO_SUBCATEGORIA_DIAG2", "GLOSA_SUBCATEGORIA_DIAG2", "LUGAR_DEFUNCION",
)
DEATHS_ROLES = {"year": "ANO_DEF", "age_type": "EDAD_TIPO", "age_count": "EDAD_CANT",
                "commune": "CODIGO_COMUNA_RESIDENCIA"}
DEATHS_POSITIONS = {role: DEATHS_COLUMNS.index(name) for role, name in DEATHS_ROLES.items()}   # 0-based

# Default births layout (assumed; see docs/ingest-deis.md). Used by position only for headerless files
# with exactly this many columns.
BIRTHS_COLUMNS = (
    "SEXO", "DIA_NAC", "MES_NAC", "ANO_NAC", "TIPO_ATEN", "LOCAL_PART", "PESO", "GESTACION", "TALLA",
    "EDAD_M", "EST_CIV_M", "CURSO_M", "NIVEL_M", "ACTIV_M", "CATEG_M", "HIJ_VIVOS", "HIJ_FALL", "HIJ_MORT",
    "HIJ_TOTAL", "EDAD_P", "CURSO_P", "NIVEL_P", "ACTIV_P", "CATEG_P", "COMUNA", "GLOSA_COMUNA_RESIDENCIA",
    "GLOSA_REGION_RESIDENCIA", "SERV_RES", "URBANO_RURAL", "FECHA_NACIMIENTO",
)
BIRTHS_YEAR_NAMES = ("ANO_NAC", "AÑO_NAC", "ANIO_NAC", "ANO_NACIMIENTO", "ANIO_NACIMIENTO", "ANO", "ANIO",
                     "AÑO", "YEAR")
BIRTHS_COMMUNE_NAMES = ("COMUNA", "CODIGO_COMUNA_RESIDENCIA", "COD_COMUNA_RESIDENCIA", "COMUNA_RESIDENCIA",
                        "COD_COMUNA", "CODIGO_COMUNA", "COMUNA_RES", "COD_COM_RES", "CUT")

SEPARATORS = {"semicolon": ";", "comma": ",", "tab": "\t", "pipe": "|", ";": ";", ",": ",", "|": "|",
              "\\t": "\t"}
HEAD_BYTES = 256 << 10
SAMPLE_LINES = 300

MSG = Catalog({
    "empty": ("el archivo está vacío", "the file is empty"),
    "empty_hint": ("revise que la descarga se completó", "check that the download finished"),
    "missing": ("no existe el archivo", "file not found"),
    "missing_hint": ("revise la ruta", "check the path"),
    "zip": ("es un archivo ZIP o una planilla Excel, no un CSV", "this is a ZIP file or an Excel workbook, not a CSV"),
    "zip_hint": ("descomprímalo (o expórtelo como CSV) y entregue el .csv",
                 "unzip it (or export it as CSV) and give the .csv"),
    "gzip": ("es un archivo comprimido (gzip)", "this is a compressed (gzip) file"),
    "gzip_hint": ("descomprímalo primero (gunzip)", "decompress it first (gunzip)"),
    "utf16": ("la codificación es UTF-16 (o el archivo es binario); se espera texto UTF-8 o Latin-1 "
              "(ISO-8859-1)", "the encoding is UTF-16 (or the file is binary); UTF-8 or Latin-1 (ISO-8859-1) "
              "text is expected"),
    "utf16_hint": ("guárdelo de nuevo como CSV UTF-8 o Latin-1", "save it again as CSV in UTF-8 or Latin-1"),
    "deaths_columns": ("la línea {line} tiene {n} {n:columna|columnas}; un archivo DEIS de defunciones tiene 27 "
                       "(separador '{sep}')", "line {line} has {n} {n:column|columns}; a DEIS deaths file has 27 "
                       "(separator '{sep}')"),
    "deaths_columns_hint": ("entregue el archivo de defunciones DEIS sin modificar (27 columnas separadas por ';')",
                            "give the unmodified DEIS deaths file (27 columns separated by ';')"),
    "looks_births": ("parece un archivo de nacimientos ({why}), entregado como defunciones",
                     "this looks like a births file ({why}), given as the deaths file"),
    "looks_births_hint": ("entréguelo con --births (births=[...] en Python)",
                          "give it with --births (births=[...] in Python)"),
    "why_births": ("{n} columnas, año en la columna {column}", "{n} columns, year in column {column}"),
    "why_deaths": ("{n} columnas con ANO_DEF y EDAD_TIPO", "{n} columns with ANO_DEF and EDAD_TIPO"),
    "why_no_header": ("{n} {n:columna|columnas}, sin encabezado", "{n} {n:column|columns}, no header"),
    "looks_deaths": ("parece un archivo de defunciones ({why}), entregado como nacimientos",
                     "this looks like a deaths file ({why}), given as the births file"),
    "looks_deaths_hint": ("entréguelo con --deaths (deaths=[...] en Python)",
                          "give it with --deaths (deaths=[...] in Python)"),
    "header_by_position": ("{file}: la primera línea parece un encabezado pero sin los nombres DEIS (ANO_DEF, "
                           "EDAD_TIPO...): no se cuenta como registro y las columnas se leen por posición "
                           "({used})",
                           "{file}: the first line looks like a header without the DEIS names (ANO_DEF, "
                           "EDAD_TIPO...): it is not counted as a record and the columns are read by position "
                           "({used})"),
    "header_missing_cols": ("el encabezado no tiene las columnas {cols}", "the header lacks the columns {cols}"),
    "not_deaths": ("no parece un archivo DEIS de defunciones: en {n:la primera línea|las primeras {n} líneas}, {bad} "
                   "no {bad:tiene|tienen} un año (ANO_DEF) ni un EDAD_TIPO válidos (p. ej. línea {line}: '{text}')",
                   "does not look like a DEIS deaths file: {n:of the first line|of the first {n} lines}, {bad} {bad:has|have} no "
                   "valid year (ANO_DEF) and EDAD_TIPO (e.g. line {line}: '{text}')"),
    "births_no_layout": ("no se reconocen las columnas de año y comuna de los nacimientos ({why})",
                         "cannot find the year and commune columns of the births file ({why})"),
    "births_no_layout_hint": ("indique el formato, p. ej. --births-layout \"year=ANO_NAC,commune=COMUNA\" o, "
                              "sin encabezado, --births-layout \"year=4,commune=25\" (posiciones desde 1)",
                              "describe the layout, e.g. --births-layout \"year=ANO_NAC,commune=COMUNA\" or, "
                              "without a header, --births-layout \"year=4,commune=25\" (positions from 1)"),
    "births_implausible": ("la columna {role} ({column}) no contiene {what} en {n:la primera línea|las primeras {n} "
                           "líneas} (p. ej. línea {line}: '{value}')",
                           "column {role} ({column}) does not hold {what} {n:in the first line|in the first {n} lines} "
                           "(e.g. line {line}: '{value}')"),
    "a_year": ("años", "years"),
    "a_code": ("códigos de comuna", "commune codes"),
    "bad_layout": ("no se entiende el formato de nacimientos '{text}': {why}",
                   "cannot read the births layout '{text}': {why}"),
    "bad_layout_hint": ("escriba pares clave=valor separados por comas: year=, commune=, header=yes|no, "
                        "sep=semicolon|comma|tab|pipe, keep=COLUMNA:1|2",
                        "write key=value pairs separated by commas: year=, commune=, header=yes|no, "
                        "sep=semicolon|comma|tab|pipe, keep=COLUMN:1|2"),
    "no_column": ("no hay columna '{name}' (columnas: {have})", "there is no column '{name}' (columns: {have})"),
    "position": ("la posición {pos} está fuera de {n:la|las} {n} {n:columna|columnas}",
                 "position {pos} is outside the {n} {n:column|columns}"),
})


@dataclass
class BirthsLayout:
    """Where the needed columns of a births file are.

    ``year`` and ``commune``: a column name (files with a header) or a position counted from 1. ``header``:
    True/False, or None to detect. ``sep``: the separator, or None to detect. ``keep``: {column: values}:
    records whose value is not among ``values`` are excluded (ledger reason ``filtered``).

    Text form (CLI ``--births-layout``): ``"year=ANO_NAC,commune=COMUNA,header=yes,sep=semicolon,keep=TIPO:1|2"``.
    """
    year: str | int | None = None
    commune: str | int | None = None
    header: bool | None = None
    sep: str | None = None
    keep: dict = field(default_factory=dict)

    @classmethod
    def parse(cls, text) -> "BirthsLayout":
        if text is None:
            return cls()
        if isinstance(text, BirthsLayout):
            return text
        if isinstance(text, dict):
            return cls(**text)
        layout = cls()
        for part in [p.strip() for p in str(text).split(",") if p.strip()]:
            if "=" not in part:
                raise InputError(MSG("bad_layout", text=text, why=part), hint=MSG("bad_layout_hint"))
            key, value = (x.strip() for x in part.split("=", 1))
            key = key.lower()
            if key in ("year", "commune"):
                setattr(layout, key, int(value) if value.isdigit() else value)
            elif key == "header":
                if value.lower() not in ("yes", "no", "true", "false", "si", "sí", "auto"):
                    raise InputError(MSG("bad_layout", text=text, why=part), hint=MSG("bad_layout_hint"))
                layout.header = None if value.lower() == "auto" else value.lower() in ("yes", "true", "si", "sí")
            elif key == "sep":
                if value.lower() not in SEPARATORS:
                    raise InputError(MSG("bad_layout", text=text, why=part), hint=MSG("bad_layout_hint"))
                layout.sep = SEPARATORS[value.lower()]
            elif key == "keep":
                column, _, values = value.partition(":")
                try:
                    allowed = {int(v) for v in values.split("|") if v.strip()}
                except ValueError:
                    raise InputError(MSG("bad_layout", text=text, why=part), hint=MSG("bad_layout_hint")) from None
                if not column or not allowed:
                    raise InputError(MSG("bad_layout", text=text, why=part), hint=MSG("bad_layout_hint"))
                layout.keep[int(column) if column.isdigit() else column] = allowed
            else:
                raise InputError(MSG("bad_layout", text=text, why=part), hint=MSG("bad_layout_hint"))
        return layout


@dataclass
class FileSpec:
    """A file's resolved layout: separator, header, column count, and the 0-based index of each role."""
    path: Path
    kind: str                      # "deaths" | "births"
    sep: str
    header: bool
    ncols: int
    names: list                    # column names (header names, or DEIS names, or c1..cN)
    roles: dict                    # role -> 0-based index (year, commune, age_type, age_count)
    keep: dict = field(default_factory=dict)   # 0-based index -> set of allowed ints
    has_quotes: bool = False


def _clean_name(name: str) -> str:
    return name.strip().strip('"').strip().lstrip("\ufeff").upper()


def _head(path: Path) -> bytes:
    if not path.exists():
        raise InputError(MSG("missing"), file=str(path), hint=MSG("missing_hint"))
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
    if not head.strip():
        raise InputError(MSG("empty"), file=str(path), hint=MSG("empty_hint"))
    if head.startswith(b"PK\x03\x04") or head.startswith(b"\xd0\xcf\x11\xe0"):
        raise InputError(MSG("zip"), file=str(path), hint=MSG("zip_hint"))
    if head.startswith(b"\x1f\x8b"):
        raise InputError(MSG("gzip"), file=str(path), hint=MSG("gzip_hint"))
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in head[:4096]:
        raise InputError(MSG("utf16"), file=str(path), hint=MSG("utf16_hint"))
    return head


def _sample_lines(head: bytes, full: bool) -> list[str]:
    """Complete lines of the head, decoded as Latin-1 (every byte is a character; numbers are ASCII)."""
    text = head.decode("latin-1")
    if text.startswith("\u00ef\u00bb\u00bf"):      # UTF-8 byte-order mark read as Latin-1
        text = text[3:]
    lines = text.split("\n")
    if not full and len(lines) > 1:
        lines = lines[:-1]                          # the last piece may be cut in the middle
    return [line.rstrip("\r") for line in lines if line.strip() != ""][:SAMPLE_LINES]


def _split(line: str, sep: str) -> list[str]:
    return next(csv.reader([line], delimiter=sep, quotechar='"'))


def _detect_sep(first: str, preferred: str | None) -> str:
    if preferred:
        return preferred
    counts = {s: first.count(s) for s in (";", ",", "\t", "|")}
    best = max(counts, key=counts.get)
    return best if counts[best] > 0 else ";"


def _as_int(value: str):
    value = value.strip().strip('"').strip()
    return int(value) if re.fullmatch(r"-?\d+", value) else None


def inspect_deaths(path) -> FileSpec:
    """Check the first lines of a deaths file and resolve its layout (raises InputError)."""
    path = Path(path)
    head = _head(path)
    full = path.stat().st_size <= len(head)
    lines = _sample_lines(head, full)
    if not lines:
        raise InputError(MSG("empty"), file=str(path), hint=MSG("empty_hint"))
    sep = _detect_sep(lines[0], None)
    first = [_clean_name(x) for x in _split(lines[0], sep)]
    header = "ANO_DEF" in first or "EDAD_TIPO" in first
    positional_header = not header and _unnamed_header(lines, sep)
    births_names = [n for n in first if n in BIRTHS_YEAR_NAMES[:5] or n in ("PESO", "GESTACION", "EDAD_M")]
    if header:
        missing = [n for n in DEATHS_ROLES.values() if n not in first]
        if missing:
            raise InputError(MSG("header_missing_cols", cols=", ".join(missing)), file=str(path), rows=[1],
                             hint=MSG("deaths_columns_hint"))
        roles = {role: first.index(name) for role, name in DEATHS_ROLES.items()}
        names = first
    else:
        if births_names:
            raise InputError(MSG("looks_births", why=", ".join(births_names)), file=str(path), rows=[1],
                             hint=MSG("looks_births_hint"))
        n = len(_split(lines[0], sep))
        if n != len(DEATHS_COLUMNS):
            why = _births_like(lines, sep)
            if why:
                raise InputError(MSG("looks_births", why=why), file=str(path), rows=[1],
                                 hint=MSG("looks_births_hint"))
            raise InputError(MSG("deaths_columns", line=1, n=n, sep=sep), file=str(path), rows=[1],
                             hint=MSG("deaths_columns_hint"))
        roles = dict(DEATHS_POSITIONS)
        names = list(DEATHS_COLUMNS)
        if positional_header:
            header = True
            used = ", ".join(f"{i + 1} {first[i]} = {DEATHS_COLUMNS[i]}" for i in sorted(roles.values()))
            warn(MSG("header_by_position", file=str(path), used=used))
    spec = FileSpec(path, "deaths", sep, header, len(names), names, roles, has_quotes=b'"' in head)
    _check_deaths_sample(spec, lines[1:] if header else lines)
    return spec


def _unnamed_header(lines: list[str], sep: str) -> bool:
    """A first line of 27 fields with no number in any of them, followed by deaths records: a header whose
    names are not DEIS's (a translated or renamed copy). Records never look like that (ANO_DEF, EDAD_TIPO
    and EDAD_CANT are numbers), so the line is not counted as a record; the columns are read by position
    (and the sample check that follows still requires years and EDAD_TIPO values at those positions)."""
    if len(lines) < 2:
        return False
    first = _split(lines[0], sep)
    if len(first) != len(DEATHS_COLUMNS) or any(_as_int(x) is not None for x in first):
        return False
    if not all(re.search(r"[A-Za-z]", x) for x in first):          # every field a name (no empty field)
        return False
    second = _split(lines[1], sep)
    roles = DEATHS_POSITIONS
    return (len(second) == len(DEATHS_COLUMNS) and (_as_int(second[roles["year"]]) or 0) > 1900
            and _as_int(second[roles["age_type"]]) in (1, 2, 3, 4, 9))


def _births_like(lines: list[str], sep: str) -> str:
    """Why a headerless file looks like births in the default layout ('' when it does not)."""
    rows = [_split(x, sep) for x in lines[:200]]
    if rows and all(len(r) == len(BIRTHS_COLUMNS) for r in rows):
        iy = BIRTHS_COLUMNS.index("ANO_NAC")
        if all((_as_int(r[iy]) or 0) > 1900 for r in rows):
            return MSG("why_births", n=len(BIRTHS_COLUMNS), column=iy + 1)
    return ""


def _check_deaths_sample(spec: FileSpec, lines: list[str]) -> None:
    """Refuse a file whose first lines are mostly not deaths records (a wrong file, not a bad row)."""
    bad, first_bad = 0, None
    offset = 2 if spec.header else 1
    rows = [_split(x, spec.sep) for x in lines]
    for i, row in enumerate(rows):
        ok = len(row) == spec.ncols
        if ok:
            year = _as_int(row[spec.roles["year"]])
            tipo = _as_int(row[spec.roles["age_type"]])
            ok = year is not None and 1900 <= year <= 2100 and tipo in (1, 2, 3, 4, 9)
        if not ok:
            bad += 1
            first_bad = first_bad or (i + offset, lines[i][:80])
    if rows and bad > len(rows) / 2:
        raise InputError(MSG("not_deaths", n=len(rows), bad=bad, line=first_bad[0], text=first_bad[1]),
                         file=str(spec.path), rows=[first_bad[0]], hint=MSG("deaths_columns_hint"))


def inspect_births(path, layout: BirthsLayout | None = None) -> FileSpec:
    """Check the first lines of a births file and resolve its layout (raises InputError)."""
    path = Path(path)
    layout = BirthsLayout.parse(layout)
    head = _head(path)
    full = path.stat().st_size <= len(head)
    lines = _sample_lines(head, full)
    if not lines:
        raise InputError(MSG("empty"), file=str(path), hint=MSG("empty_hint"))
    sep = _detect_sep(lines[0], layout.sep)
    first_raw = _split(lines[0], sep)
    first = [_clean_name(x) for x in first_raw]
    if "ANO_DEF" in first or "EDAD_TIPO" in first:
        raise InputError(MSG("looks_deaths", why="ANO_DEF, EDAD_TIPO"), file=str(path), rows=[1],
                         hint=MSG("looks_deaths_hint"))
    header = layout.header
    if header is None:
        # a header row has no number where the data have the year
        header = not any(_as_int(x) is not None and 1900 <= _as_int(x) <= 2100 for x in first_raw)
    ncols = len(first)
    if header:
        names = first
    else:
        names = list(BIRTHS_COLUMNS) if ncols == len(BIRTHS_COLUMNS) else [f"C{i + 1}" for i in range(ncols)]

    def resolve(role: str, given, aliases) -> int:
        if given is None:
            if header:
                for alias in aliases:
                    if alias in names:
                        return names.index(alias)
                raise InputError(MSG("births_no_layout", why=MSG("no_column", name=" / ".join(aliases[:3]),
                                                                 have=", ".join(names[:40]))),
                                 file=str(path), rows=[1], hint=MSG("births_no_layout_hint"))
            if ncols != len(BIRTHS_COLUMNS):
                why = _deaths_like(lines, sep)
                if why:
                    raise InputError(MSG("looks_deaths", why=why), file=str(path), rows=[1],
                                     hint=MSG("looks_deaths_hint"))
                raise InputError(MSG("births_no_layout", why=MSG("why_no_header", n=ncols)), file=str(path),
                                 rows=[1], hint=MSG("births_no_layout_hint"))
            return BIRTHS_COLUMNS.index(aliases[0])
        return _column_index(given, names, header, path)

    roles = {"year": resolve("year", layout.year, BIRTHS_YEAR_NAMES),
             "commune": resolve("commune", layout.commune, BIRTHS_COMMUNE_NAMES)}
    keep = {_column_index(col, names, header, path): set(values) for col, values in layout.keep.items()}
    spec = FileSpec(path, "births", sep, header, ncols, names, roles, keep=keep, has_quotes=b'"' in head)
    _check_births_sample(spec, lines[1:] if header else lines, explicit=layout.year is not None)
    return spec


def _deaths_like(lines: list[str], sep: str) -> str:
    rows = [_split(x, sep) for x in lines[:200]]
    if rows and all(len(r) == len(DEATHS_COLUMNS) for r in rows):
        year, tipo = DEATHS_POSITIONS["year"], DEATHS_POSITIONS["age_type"]
        if all(_as_int(r[tipo]) in (1, 2, 3, 4, 9) and (_as_int(r[year]) or 0) > 1900 for r in rows):
            return MSG("why_deaths", n=len(DEATHS_COLUMNS))
    return ""


def _column_index(given, names: list, header: bool, path: Path) -> int:
    if isinstance(given, int) or (isinstance(given, str) and given.isdigit()):
        pos = int(given)
        if not 1 <= pos <= len(names):
            raise InputError(MSG("births_no_layout", why=MSG("position", pos=pos, n=len(names))), file=str(path),
                             hint=MSG("births_no_layout_hint"))
        return pos - 1
    name = _clean_name(str(given))
    if name not in names:
        raise InputError(MSG("births_no_layout", why=MSG("no_column", name=given, have=", ".join(names[:40]))),
                         file=str(path), rows=[1], hint=MSG("births_no_layout_hint"))
    return names.index(name)


def _check_births_sample(spec: FileSpec, lines: list[str], explicit: bool) -> None:
    """The year column must hold years, the commune column codes, in most of the first lines."""
    offset = 2 if spec.header else 1
    rows = [_split(x, spec.sep) for x in lines]
    if not rows:
        return
    checks = (("year", lambda v: v is not None and 1900 <= v <= 2100, "a_year"),
              ("commune", lambda v: v is not None and 100 <= v <= 99999, "a_code"))
    for role, test, what in checks:
        index = spec.roles[role]
        values = [(i, r[index] if index < len(r) else "") for i, r in enumerate(rows)]
        bad = [(i, v) for i, v in values if not test(_as_int(v))]
        if len(bad) > len(rows) / 2:
            i, v = bad[0]
            raise InputError(MSG("births_implausible", role=role, column=spec.names[index], what=MSG(what),
                                 n=len(rows), line=i + offset, value=v[:40]),
                             file=str(spec.path), rows=[i + offset], hint=MSG("births_no_layout_hint"))
