"""Study files: the shipped examples parse; every wrong field gives a message naming the field and the file."""

import pytest

from brecha.errors import InputError
from brecha.study import EXAMPLES, example_path, parse_period, read_study


@pytest.mark.parametrize("name", sorted(set(EXAMPLES)))
def test_shipped_examples_parse(name):
    study = read_study(example_path(name))
    assert study.title
    assert study.analyses
    assert study.years


def test_the_three_chilean_designs():
    best = read_study(example_path("chile-best"))
    assert best.reference == "best" and best.years == list(range(2000, 2016))
    assert len(best.analyses["disparity"]["focus"]) == 9
    assert best.analyses["disparity"]["focus_covariate"] == "poverty"
    rm = read_study(example_path("chile-santiago"))
    assert rm.units == {"region": "13"} and rm.years == list(range(2005, 2015))
    assert rm.analyses["trends"]["method"] == "prais-winsten"
    full = read_study(example_path("chile"))
    assert full.units == {"all": True}
    assert {"distribution", "inequality", "covariate_inequality", "models"} <= set(full.analyses)
    brazil = read_study(example_path("brazil"))
    assert brazil.country == "BR" and brazil.years == list(range(2000, 2020))
    assert brazil.reference == "best:20000"


def _write(tmp_path, text, name="study.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


BASE = 'title = "t"\nperiod = "2010-2012"\n[data]\nexample = "chile"\n'


def test_defaults(tmp_path):
    s = read_study(_write(tmp_path, BASE))
    assert s.country == "CL" and s.units == {"all": True} and s.outcomes == ["infant"]
    assert s.reference == "best" and list(s.analyses) == ["rates"]
    assert s.analyses["rates"]["ci"] == "exact"
    assert s.period == "2010-2012"


@pytest.mark.parametrize("text, field", [
    ('period = "2010 to 2012"\n[data]\nexample = "chile"\n', "period"),
    ('period = "2012-2010"\n[data]\nexample = "chile"\n', "period"),
    ('language = "fr"\n[data]\nexample = "chile"\n', "language"),
    ('country = "AR"\n[data]\nexample = "chile"\n', "country"),
    ('country = "BR"\n[data]\nexample = "chile"\n', "country"),
    ('outcomes = ["stillbirth"]\n[data]\nexample = "chile"\n', "outcomes"),
    ('outcomes = 3\n[data]\nexample = "chile"\n', "outcomes"),
    ('title = 5\n[data]\nexample = "chile"\n', "title"),
    ('[data]\nexample = "peru"\n', "data.example"),
    ('[data]\nexample = "chile"\npanel = "x.csv"\n', "data"),
    ('[data]\npanel = "missing.csv"\n', "data.panel"),
    ('[data]\ndeis = { deaths = ["a.csv"] }\n', "data.deis"),
    ('[data]\nexample = "chile"\nsplit = "join"\n', "data.split"),
    ('[data]\nexample = "chile"\n[units]\nregion = "Metropolitana"\n', "units.region"),
    ('[data]\nexample = "chile"\n[units]\ncodes = ["13A01"]\n', "units.codes"),
    ('[data]\nexample = "chile"\n[units]\nregion = "13"\ncodes = ["13101"]\n', "units"),
    ('[data]\nexample = "chile"\n[units]\nall = false\n', "units.all"),
    ('[data]\nexample = "chile"\n[reference]\nrule = "worst"\n', "reference.rule"),
    ('[data]\nexample = "chile"\n[reference]\nrule = "best"\ncodes = ["13101"]\n', "reference"),
    ('[data]\nexample = "chile"\n[reference]\nrule = "best"\nmin_births = -3\n', "reference.min_births"),
    ('[data]\nexample = "chile"\n[reference]\ncodes = ["13101"]\nmin_births = 100\n', "reference.min_births"),
    ('[data]\nexample = "chile"\n[reference]\nrule = "lowest-quintile:poverty"\nmin_births = 9\n',
     "reference.min_births"),
    ('[data]\nexample = "chile"\n[reference]\nrule = "lowest-quartile:poverty"\n', "reference.rule"),
    ('[data]\nexample = "chile"\n[covariates]\nnames = ["poverty"]\nfill = "magic"\n', "covariates.fill"),
    ('[data]\nexample = "chile"\n[covariates]\nnames = [1, 2]\n', "covariates.names"),
    ('[data]\nexample = "chile"\n[analyses.rates]\nci = "normalish"\n', "analyses.rates.ci"),
    ('[data]\nexample = "chile"\n[analyses.rates]\nlevel = 95\n', "analyses.rates.level"),
    ('[data]\nexample = "chile"\n[analyses.trends]\nalpha = "0.05"\n', "analyses.trends.alpha"),
    ('[data]\nexample = "chile"\n[analyses.inequality]\nbootstrap = 1.5\n', "analyses.inequality.bootstrap"),
    ('[data]\nexample = "chile"\n[analyses.inequality]\ngroups = true\n', "analyses.inequality.groups"),
    ('[data]\nexample = "chile"\n[analyses.models]\nmodels = ["fe", "lasso"]\n', "analyses.models.models"),
    ('[data]\nexample = "chile"\n[analyses.models]\nyears = "recent"\n', "analyses.models.years"),
    ('[data]\nexample = "chile"\n[analyses.disparity]\nfocus = ["13101", "x"]\n', "analyses.disparity.focus"),
    ('[data]\nexample = "chile"\n[analyses.maps]\nsmoothed = "yes"\n', "analyses.maps.smoothed"),
])
def test_bad_field_names_field_and_file(tmp_path, text, field):
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_study(path)
    message = str(err.value)
    assert f"'{field}'" in message
    assert str(path) in message


@pytest.mark.parametrize("text, field", [
    ('colour = "red"\n[data]\nexample = "chile"\n', "colour"),
    ('[data]\nexample = "chile"\nformat = "x"\n', "data.format"),
    ('[data]\nexample = "chile"\n[units]\ncommunes = ["13101"]\n', "units.communes"),
    ('[data]\nexample = "chile"\n[analyses.rates]\nconfidence = 0.9\n', "analyses.rates.confidence"),
    ('[data]\nexample = "chile"\n[analyses.regression]\n', "analyses.regression"),
])
def test_unknown_fields_are_named_with_the_valid_ones(tmp_path, text, field):
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_study(path)
    message = str(err.value)
    assert f"'{field}'" in message and str(path) in message
    assert err.value.hint  # lists the valid fields


def test_toml_syntax_error_names_the_file(tmp_path):
    path = _write(tmp_path, 'title = "unclosed\n')
    with pytest.raises(InputError) as err:
        read_study(path)
    assert str(path) in str(err.value) and "TOML" in str(err.value)


def test_missing_study_file(tmp_path):
    with pytest.raises(InputError) as err:
        read_study(tmp_path / "nope.toml")
    assert "nope.toml" in str(err.value)


def test_relative_paths_resolve_against_the_study_folder(tmp_path, monkeypatch):
    folder = tmp_path / "studies"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "panel.csv").write_text("unit,year,births,deaths\n13101,2010,100,1\n")
    path = _write(folder, '[data]\npanel = "data/panel.csv"\n', "s.toml")
    monkeypatch.chdir(tmp_path)  # not the study's folder
    study = read_study(path)
    assert study.data["panel"] == (folder / "data" / "panel.csv").resolve()
    deis = _write(folder, '[data]\ndeis = { deaths = ["data/panel.csv"], births = "data/panel.csv" }\n', "d.toml")
    study = read_study(deis)
    assert study.data["deis"]["births"] == [(folder / "data" / "panel.csv").resolve()]


def test_reference_forms(tmp_path):
    data = '[data]\nexample = "chile"\n'
    for top, table, expected in [('reference = "best"', "", "best"),
                                 ('reference = "13114, 13123"', "", "13114,13123"),
                                 ('reference = ["13114"]', "", "13114"),
                                 ('reference = "lowest-quintile:poverty"', "", "lowest-quintile:poverty"),
                                 ("", '[reference]\ncodes = ["13114"]\n', "13114"),
                                 ("", '[reference]\nrule = "best"\nmin_births = 2000\n', "best:2000"),
                                 # 0 lifts the minimum (plain "best" keeps the 20-expected-deaths rule)
                                 ("", '[reference]\nrule = "best"\nmin_births = 0\n', "best:0"),
                                 ("", '[reference]\nrule = "best"\n', "best")]:
        body = (top + "\n" if top else "") + data + table
        assert read_study(_write(tmp_path, body)).reference == expected


def test_parse_period():
    assert parse_period("2005-2007") == [2005, 2006, 2007]
    assert parse_period("2005, 2009") == [2005, 2009]
    assert parse_period(2010) == [2010]
    with pytest.raises(ValueError):
        parse_period("05-07")


# ------------------------------------------------------------- every problem in one run (issue 11, point 7)

MANY = '''title = "t"
period = "2014-2015"
outcomes = ["infnat", "neonatal"]
colour = "red"
[data]
example = "chile"
[units]
region = "19"
[reference]
rule = "lowest-quintile:povrety"
[covariates]
names = ["povrety", "schooling"]
[analyses.rates]
ci = "exakt"
[analyses.inequality]
rank_by = "povrety"
bootstrap = 5
[analyses.modles]
[analyses.disparity]
focus = ["13101", "99999"]
'''


def _report(argv, capsys):
    from brecha.cli.main import main
    from brecha.i18n import get_language, set_language

    before = get_language()
    capsys.readouterr()
    try:
        code = main(argv)
    finally:
        set_language(before)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("lang, expected", [
    ("en", ["10 problems in the study; nothing was computed:",
            "1. unknown field 'colour' (did you mean 'country'?)",
            "field 'outcomes': must be one of infant, neonatal, postneonatal, not 'infnat' (did you mean 'infant'",
            "field 'analyses.rates.ci': must be one of exact, byar, wilson, clopper-pearson, not 'exakt' (did you "
            "mean 'exact'?)",
            "field 'analyses.inequality.bootstrap': 5 bootstrap replicates are too few",
            "at least 200",
            "unknown analysis 'analyses.modles' (did you mean 'models'?)",
            "field 'covariates.names': unknown covariate 'povrety' (did you mean 'poverty'",
            "field 'reference.rule': unknown covariate 'povrety'",
            "field 'analyses.inequality.rank_by': unknown covariate 'povrety'",
            "field 'analyses.disparity.focus': codes not in the registry of CL: 99999",
            "field 'units.region': there is no region '19' in CL; what to do: regions: 01 Región de Tarapacá"]),
    ("es", ["10 problemas en el estudio; nada se ha calculado:",
            "1. campo desconocido 'colour' (¿quiso decir 'country'?)",
            "campo 'outcomes': debe ser uno de infant, neonatal, postneonatal, no 'infnat' (¿quiso decir 'infant'",
            "no 'exakt' (¿quiso decir 'exact'?)",
            "campo 'analyses.inequality.bootstrap': 5 réplicas bootstrap son muy pocas",
            "análisis desconocido 'analyses.modles' (¿quiso decir 'models'?)",
            "campo 'covariates.names': covariable desconocida 'povrety' (¿quiso decir 'poverty'",
            "campo 'analyses.disparity.focus': códigos que no están en el registro de CL: 99999",
            "campo 'units.region': no hay región '19' en CL"]),
])
def test_every_problem_is_listed_in_one_run_before_any_work(lang, expected, tmp_path, capsys):
    path = _write(tmp_path, MANY)
    out_dir = tmp_path / "report"
    code, out, err = _report(["--lang", lang, "report", str(path), "-o", str(out_dir)], capsys)
    assert code == 2
    assert str(path) in err
    for fragment in expected:
        assert fragment in err, f"{fragment!r} not in {err!r}"
    assert "Traceback" not in err
    assert not out_dir.exists()  # nothing was computed or written
    assert "'schooling'" not in err  # a valid name is not a problem (hints list names unquoted)


@pytest.fixture
def english():
    from brecha.i18n import get_language, set_language

    before = get_language()
    set_language("en")
    yield
    set_language(before)


def test_one_problem_keeps_its_hint(tmp_path, english):
    with pytest.raises(InputError) as err:
        read_study(_write(tmp_path, BASE + '[analyses.inequality]\nrank_by = "povrety"\n'))
    assert "field 'analyses.inequality.rank_by': unknown covariate 'povrety' (did you mean" in str(err.value)
    assert "poverty" in err.value.hint


@pytest.mark.parametrize("text", ["", "# only a comment\n\n"])
@pytest.mark.parametrize("lang, expected", [("en", "the study file is empty (it defines nothing)"),
                                            ("es", "el archivo de estudio está vacío (no define nada)")])
def test_an_empty_study_is_refused(text, lang, expected, tmp_path, capsys):
    """Before: an empty file ran the whole default Chilean report."""
    path = _write(tmp_path, text)
    code, out, err = _report(["--lang", lang, "report", str(path), "-o", str(tmp_path / "r")], capsys)
    assert code == 2 and expected in err and str(path) in err
    assert "[data] example" in err and not (tmp_path / "r").exists()


@pytest.mark.parametrize("period, shown", [("1850-1860", "1850-1860"), ("2010-2099", "2099")])
def test_a_period_outside_plausible_years_is_refused(period, shown, tmp_path, english):
    with pytest.raises(InputError) as err:
        read_study(_write(tmp_path, f'period = "{period}"\n[data]\nexample = "chile"\n'))
    assert "field 'period': years outside 1900-" in str(err.value) and shown in str(err.value)


def test_panel_file_columns_are_known_covariates(tmp_path, english):
    """A panel file's own columns are covariates of the study; a misspelt one is named with the right one."""
    panel = tmp_path / "panel.csv"
    panel.write_text("unit,year,births,deaths,spending\n13101,2010,100,1,5.0\n13102,2010,90,0,4.0\n")
    text = '[data]\npanel = "panel.csv"\n[covariates]\nnames = [{names}]\n'
    ok = read_study(_write(tmp_path, text.format(names='"spending", "poverty"')))
    assert ok.covariates == ["spending", "poverty"]
    with pytest.raises(InputError) as err:
        read_study(_write(tmp_path, text.format(names='"spendng"')))
    assert "unknown covariate 'spendng' (did you mean 'spending'?)" in str(err.value)


@pytest.mark.parametrize("lang, expected", [
    ("en", ["2 problems in the study; nothing was computed:",
            "field 'reference.codes': codes not in the registry of CL: 99999",
            "field 'reference.codes': codes not in the data (panel.csv): 13101; what to do: use codes of the data, "
            "e.g. 09101, 09102"]),
    ("es", ["2 problemas en el estudio; nada se ha calculado:",
            "campo 'reference.codes': códigos que no están en el registro de CL: 99999",
            "campo 'reference.codes': códigos que no están en los datos (panel.csv): 13101"]),
])
def test_reference_codes_are_checked_against_the_panel_file_and_registry(lang, expected, tmp_path, capsys):
    """A study on the user's panel file without ``country``: the registry comes from the panel's codes, and a
    reference outside the data is refused before any work (before: the report ran with no reference)."""
    (tmp_path / "panel.csv").write_text("unit,year,births,deaths\n09101,2010,100,1\n09102,2010,90,0\n"
                                        "9103,2010,80,2\n")
    path = _write(tmp_path, 'period = "2010"\n[data]\npanel = "panel.csv"\n[reference]\n'
                            'codes = ["99999", "13101", "09103"]\n[analyses.rates]\n')
    code, out, err = _report(["--lang", lang, "report", str(path), "-o", str(tmp_path / "r")], capsys)
    assert code == 2 and str(path) in err
    for fragment in expected:
        assert fragment in err, f"{fragment!r} not in {err!r}"
    assert "09103" not in err.split("e.g.")[0]  # '9103' in the file is commune 09103
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("lang, expected", [
    ("en", "the study file is not UTF-8 text (byte 0x80 on line 1). What to do: a study is a TOML text file"),
    ("es", "el archivo de estudio no es texto UTF-8 (byte 0x80 en la línea 1). Qué hacer: un estudio es un archivo"),
])
def test_a_binary_or_latin1_study_is_a_message(lang, expected, tmp_path, capsys):
    path = tmp_path / "study.toml"
    path.write_bytes(bytes(range(128, 256)))
    code, out, err = _report(["--lang", lang, "report", str(path), "-o", str(tmp_path / "r")], capsys)
    assert code == 2 and expected in err and str(path) in err and "Traceback" not in err
    latin = tmp_path / "latin.toml"
    latin.write_bytes('title = "Araucanía"\n[data]\nexample = "chile"\n'.encode("latin-1"))
    code, out, err = _report(["--lang", lang, "report", str(latin), "-o", str(tmp_path / "r")], capsys)
    assert code == 2 and ("0xED" in err) and ("line 1" in err or "línea 1" in err)
