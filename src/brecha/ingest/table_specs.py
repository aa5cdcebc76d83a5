"""What each file given to ``ingest table`` holds: ``FILE``, ``FILE=VARIABLE`` or ``FILE=ROLE:COLUMN,...``.

The column options (``--births-col``, ``--unit-col``, ...) name a column in every file at once, so a deaths
file whose count is ``defunciones`` and a births file whose count is ``nacidos`` could not be read together
without renaming columns by hand. A file can therefore name its own columns after its ``=``, in the same
place where it already says what a wide table holds:

    deaths.csv=deaths:defunciones                  # this file's column 'defunciones' holds the deaths
    nacidos.xlsx=births:nacidos,unit:cod_com       # several, separated by commas
    births.xlsx=births                             # wide (one column per year): the file holds births
    births.csv=births                              # long (a year column): its one count column is births

A ``ROLE:COLUMN`` pair is one of the column options for this file only; it replaces the option for that file
and leaves the option in force for the others. The roles are those of the options: ``unit``, ``name``,
``year``, ``births``, ``deaths``, ``neonatal``, ``postneonatal``. A role outside this list is refused rather
than read as a covariate, so a typo (``birth:nacidos``) cannot make a column silently a covariate.

A bare ``VARIABLE`` (no colon) says what the file holds. In a wide table its year columns hold it (as
before). In a long table (one with a year column) it is the one column that is not the unit, the year or
another count: :func:`column_holding` finds it, or refuses, naming the columns, when there is none or more
than one. Before, a long file's ``=births`` was read as if it were not there.

A file given twice (``d.csv=births:nv d.csv=deaths:def``) is refused: it would be read twice, each time with
the other's count as a covariate, and its rows counted twice in the ledger; one spec names both columns.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path

from ..errors import InputError
from ..i18n import Catalog

MSG = Catalog({
    "syntax_hint": ("escriba ARCHIVO=ROL:COLUMNA, p. ej. {path}=deaths:defunciones; varios separados por comas: "
                    "{path}=unit:cod_com,deaths:defunciones; ROL es unit, name, year, births, deaths, neonatal o "
                    "postneonatal",
                    "write FILE=ROLE:COLUMN, e.g. {path}=deaths:defunciones; several separated by commas: "
                    "{path}=unit:cod_com,deaths:defunciones; ROLE is unit, name, year, births, deaths, neonatal "
                    "or postneonatal"),
    "bad_role": ("'{role}' en '{spec}' no es un rol de columna", "'{role}' in '{spec}' is not a column role"),
    "column_word": ("COLUMNA", "COLUMN"),
    "example": (", p. ej. {example}", ", e.g. {example}"),
    "role_hint": ("escriba {example}; ROL es unit, name, year, births, deaths, neonatal o postneonatal",
                  "write {example}; ROLE is unit, name, year, births, deaths, neonatal or postneonatal"),
    "no_column": ("'{item}' en '{spec}' no nombra una columna después de ':'",
                  "'{item}' in '{spec}' names no column after ':'"),
    "role_twice": ("'{spec}' indica {role} dos veces", "'{spec}' gives {role} twice"),
    "same_column": ("'{spec}' indica la columna '{col}' para {first} y para {second}",
                    "'{spec}' gives column '{col}' for both {first} and {second}"),
    "key_variable": ("'{spec}': {variable} es una columna, no una variable que un archivo contenga",
                     "'{spec}': {variable} is a column, not a variable a file holds"),
    "two_variables": ("'{spec}' indica más de una variable sin columna ({names})",
                      "'{spec}' names more than one variable without a column ({names})"),
    "two_variables_hint": ("una tabla ancha contiene una sola variable ({path}=births); en una tabla larga "
                           "indique la columna de cada una: {path}=births:COLUMNA,deaths:COLUMNA",
                           "a wide table holds one variable ({path}=births); in a long table name the column of "
                           "each: {path}=births:COLUMN,deaths:COLUMN"),
    "file_twice": ("el archivo se indica dos veces ({first}; {second})",
                   "the file is given twice ({first}; {second})"),
    "file_twice_hint": ("indíquelo una vez, con todas sus columnas: {path}=births:COLUMNA,deaths:COLUMNA",
                        "give it once, with all its columns: {path}=births:COLUMN,deaths:COLUMN"),
    "no_own_col": ("no existe la columna '{col}' indicada para {role} en '{spec}' (columnas del archivo: {present})",
                   "there is no column '{col}' given for {role} in '{spec}' (the file's columns: {present})"),
    "no_own_col_hint": ("escriba {path}={role}:COLUMNA con una de las columnas del archivo (cuentan mayúsculas "
                        "y tildes)", "write {path}={role}:COLUMN with one of the file's columns (case and "
                        "accents count)"),
    "wide_hint": ("; una tabla ancha (una columna por año) se indica {path}={role}, sin columna",
                  "; a wide table (one column per year) is given as {path}={role}, without a column"),
    "wide_named": ("la tabla es ancha (columnas por año: {years}), así que {role} no está en una columna "
                   "'{col}'", "the table is wide (one column per year: {years}), so its {role} are not in one "
                   "column '{col}'"),
    "wide_named_hint": ("escriba {path}={role}, sin ':{col}'", "write {path}={role}, without ':{col}'"),
    "long_none": ("la tabla es larga (columna de año '{year}') y se indicó ={variable}, pero ninguna columna "
                  "queda para {variable} (columnas: {present})",
                  "the table is long (year column '{year}') and was given ={variable}, but no column is left "
                  "to read as {variable} (columns: {present})"),
    "long_none_hint": ("si el archivo no contiene {variable}, quite ={variable}; si la contiene, indique su "
                       "columna: {path}={variable}:COLUMNA",
                       "if the file does not hold {variable}, leave out ={variable}; if it does, name its "
                       "column: {path}={variable}:COLUMN"),
    "long_many": ("la tabla es larga (columna de año '{year}') y se indicó ={variable}, pero más de una columna "
                  "podría contenerla: {candidates}", "the table is long (year column '{year}') and was given "
                  "={variable}, but more than one column could hold it: {candidates}"),
    "long_many_hint": ("indique cuál: {path}={variable}:{first}", "say which: {path}={variable}:{first}"),
})

# the roles a file may name, as the column options spell them (and the canonical count names) -> canonical
ROLES = {"unit": "unit", "name": "name", "year": "year", "births": "births", "deaths": "deaths",
         "neonatal": "deaths_neonatal", "postneonatal": "deaths_postneonatal",
         "deaths_neonatal": "deaths_neonatal", "deaths_postneonatal": "deaths_postneonatal"}
KEYS = ("unit", "name", "year")
COUNTS = ("births", "deaths", "deaths_neonatal", "deaths_postneonatal")
# canonical -> the word a user writes (the option's), for messages
SHOWN = {"deaths_neonatal": "neonatal", "deaths_postneonatal": "postneonatal"}


@dataclass(frozen=True)
class FileSpec:
    """One file as given: its ``path``, the ``variable`` it holds (a bare ``=VARIABLE``, canonical name, or
    None) and the ``columns`` it names itself ({canonical role: the file's column}); ``text`` as written."""

    path: str
    variable: str | None = None
    columns: dict = field(default_factory=dict)
    text: str = ""

    def mapping(self, options: dict | None) -> dict:
        """The options' mapping with this file's own columns over it. A file naming its ``unit`` drops the
        options' ``name`` (and the reverse): otherwise the option would decide over the file's own word."""
        out = dict(options or {})
        if "unit" in self.columns:
            out.pop("name", None)
        if "name" in self.columns:
            out.pop("unit", None)
        out.update(self.columns)
        return out


def parse(spec) -> FileSpec:
    """``FILE``, ``FILE=VARIABLE`` or ``FILE=ROLE:COLUMN[,ROLE:COLUMN...]`` (a bare VARIABLE among them) ->
    :class:`FileSpec`; a malformed spec is an :class:`InputError` naming the file and showing the syntax.

        >>> parse("d.csv=deaths:defunciones,unit:cod").columns
        {'deaths': 'defunciones', 'unit': 'cod'}
        >>> parse("n.xlsx=neonatal").variable
        'deaths_neonatal'
    """
    text = str(spec)
    path, _, rest = text.partition("=")
    if not rest:
        return FileSpec(path, text=text)
    hint = MSG("syntax_hint", path=path)
    variables, columns = [], {}
    for item in rest.split(","):
        word, colon, column = item.partition(":")
        word = word.strip()
        if not word and not colon:
            continue  # 'births,' : a trailing comma says nothing
        if not colon:
            variables.append(word)
            continue
        if word not in ROLES:
            close = get_close_matches(word, list(ROLES), n=1, cutoff=0.6)
            raise InputError(MSG("bad_role", role=word, spec=text), file=path, hint=MSG(
                "role_hint", example=f"{path}={close[0]}:{column}") if close and column else hint)
        if not column:
            raise InputError(MSG("no_column", item=item, spec=text), file=path, hint=hint)
        role = ROLES[word]
        if role in columns:
            raise InputError(MSG("role_twice", role=word, spec=text), file=path, hint=hint)
        for other, col in columns.items():
            if col == column:
                raise InputError(MSG("same_column", spec=text, col=column, first=shown(other), second=word),
                                 file=path, column=column, hint=hint)
        columns[role] = column
    if len(variables) > 1:
        raise InputError(MSG("two_variables", spec=text, names=", ".join(variables)), file=path,
                         hint=MSG("two_variables_hint", path=path))
    variable = ROLES.get(variables[0], variables[0]) if variables and variables[0] else None
    if variable in KEYS:
        raise InputError(MSG("key_variable", spec=text, variable=variable), file=path,
                         hint=MSG("role_hint", example=f"{path}={variable}:{MSG('column_word')}"))
    return FileSpec(path, variable, columns, text)


def parse_all(specs) -> list[FileSpec]:
    """Each spec parsed; the same file twice is refused (it would be read, and counted, twice)."""
    parsed = [parse(s) for s in specs]
    seen: dict[str, FileSpec] = {}
    for spec in parsed:
        key = str(Path(spec.path).resolve()) if spec.path else spec.path
        if key in seen:
            raise InputError(MSG("file_twice", first=seen[key].text, second=spec.text), file=spec.path,
                             hint=MSG("file_twice_hint", path=spec.path))
        seen[key] = spec
    return parsed


def check_columns(spec: FileSpec, columns) -> None:
    """Every column the file names itself is one of its columns (else the error names the file, the column,
    lists the file's columns and says what to write)."""
    for role, col in spec.columns.items():
        if col not in columns:
            hint = MSG("no_own_col_hint", path=spec.path, role=shown(role))
            close = get_close_matches(col, list(columns), n=1, cutoff=0.6)
            if close:
                hint += MSG("example", example=f"{spec.path}={shown(role)}:{close[0]}")
            if role in COUNTS:
                hint += MSG("wide_hint", path=spec.path, role=shown(role))
            raise InputError(MSG("no_own_col", col=col, role=shown(role), spec=spec.text,
                                 present=", ".join(columns)), file=spec.path, column=col, hint=hint)


def check_wide(spec: FileSpec, year_columns) -> None:
    """A wide table keeps its counts in its year columns: a count column named for it would be left unread."""
    for role, col in spec.columns.items():
        if role in COUNTS:
            raise InputError(MSG("wide_named", years=", ".join(year_columns[:5]), role=shown(role), col=col),
                             file=spec.path, column=col,
                             hint=MSG("wide_named_hint", path=spec.path, role=shown(role), col=col))


def column_holding(spec: FileSpec, columns, taken, year_col: str) -> str:
    """The column of a long table given ``=VARIABLE`` without a column: the one column that is not the unit,
    the name, the year or another count (``taken``). None or several is an error listing them: a guess
    between two columns would be a silent choice."""
    left = [c for c in columns if c not in set(taken)]
    variable = shown(spec.variable)
    if len(left) == 1:
        return left[0]
    if not left:
        raise InputError(MSG("long_none", year=year_col, variable=variable, present=", ".join(columns)),
                         file=spec.path, hint=MSG("long_none_hint", variable=variable, path=spec.path))
    raise InputError(MSG("long_many", year=year_col, variable=variable, candidates=", ".join(left)),
                     file=spec.path, hint=MSG("long_many_hint", variable=variable, path=spec.path,
                                              first=left[0]))


def shown(role: str) -> str:
    """A canonical role as the user writes it (``deaths_neonatal`` -> ``neonatal``)."""
    return SHOWN.get(role, role)

