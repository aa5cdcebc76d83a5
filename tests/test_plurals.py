"""Messages agree in number with their counts: "1 unidad-año excluido", "2 unidad-años excluidos"; "1 row",
"2 rows" (brecha.i18n.plural and the catalogs' ``{field:singular|plural}`` choice).

The wording for any count but 1 is the one users and tests already compare; only the singular is new. Each
case runs through the real call path (the models' notes, a panel's warnings, the command line's "Saved"
line and panel header), in Spanish and English.
"""
import importlib
import pkgutil
import string

import numpy as np
import pandas as pd
import pytest

import brecha
import brecha.i18n
from brecha.cli.main import main
from brecha.i18n import Catalog, plural


@pytest.fixture(autouse=True)
def restore_language(monkeypatch):
    """A test that sets the language (``--lang``, ``set_language``) leaves it as it found it."""
    monkeypatch.setitem(brecha.i18n._current, "lang", brecha.i18n.get_language())


# ----------------------------------------------------------------------------------------- the helper
@pytest.mark.parametrize("count, word", [(1, "unidad"), (0, "unidades"), (2, "unidades"), (np.int64(1), "unidad"),
                                         (1.0, "unidad"), (1.5, "unidades"), ("1", "unidad"),
                                         ("1.000", "unidades"), ("-", "unidades"), (pd.NA, "unidades"),
                                         (None, "unidades")])
def test_plural_is_the_singular_for_exactly_one(count, word):
    assert plural(count, "unidad", "unidades") == word


def test_choice_in_a_template_agrees_with_its_field_in_each_language():
    msg = Catalog({"read": ("{n} {n:fila leída|filas leídas} de {total:,}; {n:la primera|las primeras {n}}",
                            "{n} {n:row|rows} read of {total:,}; {n:the first|the first {n}}")})
    assert msg("read", "es", n=1, total=12345) == "1 fila leída de 12,345; la primera"
    assert msg("read", "es", n=2, total=12345) == "2 filas leídas de 12,345; las primeras 2"
    assert msg("read", "en", n=1, total=3) == "1 row read of 3; the first"
    assert msg("read", "en", n=0, total=3) == "0 rows read of 3; the first 0"
    # a template without a choice is formatted as before, literal '|' included
    assert Catalog({"k": ("a | {x:>3}", "a | {x:>3}")})("k", "en", x=7) == "a |   7"


def _catalogs():
    seen = {}
    for info in pkgutil.walk_packages(brecha.__path__, "brecha."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, Catalog) and id(obj) not in seen:
                seen[id(obj)] = (f"{info.name}.{name}", obj)
    return list(seen.values())


def _choices(text: str) -> list[tuple[str, str]]:
    return [(field, spec) for _, field, spec, _ in string.Formatter().parse(text) if spec and "|" in spec]


def test_every_choice_in_every_catalog_renders_for_one_and_for_two():
    """Each message with a count choice formats in both languages with every field 1 or 2, both languages
    name the same fields, and no choice or brace is left in the text."""
    found = 0
    for where, catalog in _catalogs():
        for key, pair in catalog.messages.items():
            if not any(_choices(text) for text in pair):
                continue
            found += 1
            fields = [{f for _, f, _, _ in string.Formatter().parse(text) if f} for text in pair]
            assert fields[0] == fields[1], f"{where}[{key}]: the languages name different fields"
            for count in (1, 2):
                for lang in ("es", "en"):
                    text = catalog(key, lang, **{f: count for f in fields[0]})
                    assert "|" not in text and "{" not in text, f"{where}[{key}] {lang} {count}: {text}"
    assert found >= 60   # the models', the panel checks', the ingest's, the commands' ... (not a vacuous pass)


# ---------------------------------------------------------------------------------- real call paths
def _panel(zero_birth_rows: int):
    from brecha.panel import Panel

    rng = np.random.default_rng(3)
    units, years = [f"U{i}" for i in range(5)], list(range(2010, 2016))
    d = pd.DataFrame([(u, y) for u in units for y in years], columns=["unit", "year"])
    d["births"] = rng.integers(200, 400, len(d))
    d["deaths"] = rng.integers(0, 6, len(d))
    d["x"] = rng.normal(size=len(d))
    d.loc[: zero_birth_rows - 1, ["births", "deaths"]] = 0
    return Panel(d, validate=True)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang, one, two", [
    ("en", "1 unit-year excluded for zero or missing births (the rate is undefined)",
     "2 unit-years excluded for zero or missing births (the rate is undefined)"),
    ("es", "1 unidad-año excluido por nacimientos cero o faltantes (la tasa no está definida)",
     "2 unidad-años excluidos por nacimientos cero o faltantes (la tasa no está definida)")])
def test_models_notes_count_excluded_rows_in_the_singular_and_the_plural(lang, one, two):
    from brecha.models import fit_models

    notes = fit_models(_panel(1), "infant", ["x"], models=["pooled", "fe"], lang=lang).notes
    assert one in notes and two not in notes
    assert ("29 unit-years of 5 units, years 2010-2015" if lang == "en"
            else "29 unidad-años de 5 unidades, años 2010-2015") in notes
    notes = fit_models(_panel(2), "infant", ["x"], models=["pooled", "fe"], lang=lang).notes
    assert two in notes


@pytest.mark.parametrize("lang, one, two", [("en", "1 unit-year with 0 births:", "2 unit-years with 0 births:"),
                                            ("es", "1 unidad-año con 0 nacimientos:", "2 unidad-años con 0 nacimientos:")])
def test_panel_warnings_agree_with_their_count(lang, one, two):
    brecha.i18n.set_language(lang)
    with pytest.warns(Warning):
        warnings = _panel(1).warnings
    assert any(w.startswith(one) for w in warnings)
    with pytest.warns(Warning):
        warnings = _panel(2).warnings
    assert any(w.startswith(two) for w in warnings)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang, one, two", [("en", "(1 row)", "(2 rows)"), ("es", "(1 fila)", "(2 filas)")])
def test_saved_line_of_the_command_line(tmp_path, capsys, lang, one, two):
    """`brecha rates --level country`: one row for one year, two for two years."""
    out = tmp_path / "rates.csv"
    assert main(["--lang", lang, "rates", "--example", "chile", "--level", "country", "--years", "2010",
                 "-o", str(out)]) == 0
    assert f"{out} {one}" in capsys.readouterr().out
    assert main(["--lang", lang, "rates", "--example", "chile", "--level", "country", "--years", "2010-2011",
                 "-o", str(out)]) == 0
    assert f"{out} {two}" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang, one, two", [
    ("en", ": 1 unit, years 2010-2010, 1 row, country CL", ": 2 units, years 2010-2011, 4 rows, country CL"),
    ("es", ": 1 unidad, años 2010-2010, 1 fila, país CL", ": 2 unidades, años 2010-2011, 4 filas, país CL")])
def test_panel_header_of_a_one_row_file(tmp_path, capsys, lang, one, two):
    from brecha import datasets

    d = datasets.chile().data[["unit", "year", "births", "deaths"]]
    one_row, four_rows = tmp_path / "one.csv", tmp_path / "four.csv"
    d[(d["unit"] == "09101") & (d["year"] == 2010)].to_csv(one_row, index=False)
    d[d["unit"].isin(["09101", "09102"]) & d["year"].isin([2010, 2011])].to_csv(four_rows, index=False)
    assert main(["--lang", lang, "panel", str(one_row)]) == 0
    assert one in capsys.readouterr().out
    assert main(["--lang", lang, "panel", str(four_rows)]) == 0
    assert two in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang, text", [("en", "7 unit-years of 1 unit, years 2006-2012"),
                                        ("es", "7 unidad-años de 1 unidad, años 2006-2012")])
def test_models_of_one_commune_say_one_unit(tmp_path, capsys, lang, text):
    """Pooled OLS of one commune's years (robust errors: one cluster cannot be clustered on)."""
    from brecha import datasets

    d = datasets.chile().data[["unit", "year", "births", "deaths"]]
    path = tmp_path / "temuco.csv"
    d[(d["unit"] == "09101") & d["year"].between(2006, 2012)].to_csv(path, index=False)
    assert main(["--lang", lang, "models", str(path), "--covariates", "poverty", "--models", "pooled",
                 "--se", "robust"]) == 0
    assert text in capsys.readouterr().out
