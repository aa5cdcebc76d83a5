"""Implausible requests are refused (exit 2, a message naming the option and what to do, in Spanish and
English, no traceback) or flagged, never silently changed; an internal error is one short message (exit 1)
and the traceback only with --debug or BRECHA_DEBUG=1 (issue 11, points 6 and 7)."""
import datetime
import warnings

import numpy as np
import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.i18n import get_language, set_language


@pytest.fixture(autouse=True)
def _keep_language():
    before = get_language()
    yield
    set_language(before)


def _run(argv, capsys):
    """(exit code, stdout, stderr) of `brecha ARGV` in-process; argparse's own refusals exit via SystemExit."""
    capsys.readouterr()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # whatever -W the test run was given: warnings are part of the test
            code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def one_unit_panel(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("unit,year,births,deaths\n01101,2010,100,1\n01101,2011,120,2\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def odd_years_panel(tmp_path):
    path = tmp_path / "years.csv"
    path.write_text("unit,year,births,deaths\n01101,2010,100,1\n01101,20015,100,2\n01107,1850,50,0\n",
                    encoding="utf-8")
    return str(path)


NEXT = datetime.date.today().year + 1
CHILE_2010 = ["--example", "chile", "--years", "2010", "--measures", "d"]

# (argv, English fragments, Spanish fragments); "{panel}" / "{odd}" stand for the files above
CASES = [
    (["rates", "--example", "chile", "--years", "1850-1860"],
     ["argument --years: years outside 1900-%d: 1850-1860" % NEXT, "ask for years between 1900 and %d" % NEXT],
     ["argumento --years: años fuera de 1900-%d: 1850-1860" % NEXT, "pida años entre 1900 y %d" % NEXT]),
    (["inequality", "--example", "chile", "--years", f"2010,{NEXT + 3}"],
     [f"years outside 1900-{NEXT}: {NEXT + 3}"], [f"años fuera de 1900-{NEXT}: {NEXT + 3}"]),
    (["rates", "{odd}"],
     ["rows 3, 4; column 'year': years outside 1900-%d: 20015 (row 3), 1850 (row 4)" % NEXT,
      "correct the year"],
     ["filas 3, 4; columna 'year': años fuera de 1900-%d: 20015 (fila 3), 1850 (fila 4)" % NEXT,
      "corrija el año"]),
    (["inequality", "--rank-by", "poverty", "--groups", "1000", *CHILE_2010],
     ["2010: 1000 groups asked for (--groups) but only 340 units with data", "ask for at most 340 groups"],
     ["2010: se piden 1000 grupos (--groups) pero solo hay 340 unidades con datos", "pida a lo más 340 grupos"]),
    (["inequality", "--rank-by", "poverty", "--groups", "0", *CHILE_2010],
     ["groups (--groups) must be an integer >= 2"], ["groups (--groups) debe ser un entero >= 2"]),
    (["inequality", "--rank-by", "poverty", "--groups", "-3", *CHILE_2010],
     ["groups (--groups) must be an integer >= 2"], ["groups (--groups) debe ser un entero >= 2"]),
    (["inequality", "--bootstrap", "5", *CHILE_2010],
     ["--bootstrap 5 is too few replicates for a 95 % CI", "use --bootstrap 0 (analytic CIs) or at least "
      "--bootstrap 200"],
     ["--bootstrap 5 son muy pocas réplicas para un IC de 95 %", "al menos --bootstrap 200"]),
    (["inequality", "--bootstrap", "500", "--conf-level", "0.99", *CHILE_2010],
     ["--bootstrap 500 is too few replicates for a 99 % CI", "at least --bootstrap 1000"],
     ["--bootstrap 500 son muy pocas réplicas para un IC de 99 %", "al menos --bootstrap 1000"]),
    (["inequality", "--bootstrap", "-5", *CHILE_2010],
     ["--bootstrap must be 0 (analytic CIs) or a positive number of replicates, not -5"],
     ["--bootstrap debe ser 0 (IC analíticos) o un número positivo de réplicas, no -5"]),
    (["inequality", "--seed", "-1", *CHILE_2010],
     ["seed (--seed) must be a whole number from 0 to 4294967295, not -1"],
     ["seed (--seed) debe ser un entero entre 0 y 4294967295, no -1"]),
    (["trends", "--example", "chile", "--region", "11", "--method", "joinpoint", "--selection", "permutation",
      "--permutations", "10", "--seed", "-3"],
     ["--seed must be a whole number >= 0, not -3"], ["--seed debe ser un entero >= 0, no -3"]),
    (["inequality", "--conf-level", "95", *CHILE_2010],
     ["option --conf-level: confidence level 95.0 is not in (0, 1)", "95 looks like a percentage: write 0.95"],
     ["opción --conf-level: nivel de confianza 95.0", "95 parece un porcentaje: escriba 0.95"]),
    (["disparity", "--example", "chile", "--years", "2010", "--reference", "best:-5"],
     ["'best:-5': the minimum of births of best:N cannot be negative", "use best:0 (no minimum)"],
     ["'best:-5': el mínimo de nacimientos de best:N no puede ser negativo", "use best:0 (sin mínimo)"]),
    (["disparity", "--example", "chile", "--years", "2010", "--reference", "best:2.5"],
     ["'best:2.5' is not a valid minimum of births (best:N with N a whole number)"],
     ["'best:2.5' no es un mínimo de nacimientos válido (best:N con N entero)"]),
    (["inequality", "{panel}"],
     ["inequality is measured between at least 2 units with births and no period has them (2010, 2011; "
      "units: 01101)", "for a single unit use brecha rates or brecha trends"],
     ["la desigualdad se mide entre al menos 2 unidades con nacimientos", "para una sola unidad use brecha "
      "rates o brecha trends"]),
    (["inequality", "--region", "99", *CHILE_2010],
     ["unknown region '99'; regions of the panel: 01 Región de Tarapacá"], ["'99'", "01 Región de Tarapacá"]),
    (["inequality", "--outcome", "stillbirths", *CHILE_2010],
     ["unknown outcome 'stillbirths'; use infant, neonatal or postneonatal"], ["'stillbirths'", "infant"]),
    (["rates", "--example", "chile", "--years", "2010", "-o", "{tmp}/out.txt"],
     ["unknown output type '.txt'", "end the output name with .csv, .parquet, .xlsx or .json"],
     ["'.txt'", ".csv, .parquet, .xlsx"]),
]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("argv, english, spanish", CASES, ids=[" ".join(c[0][:6]) for c in CASES])
def test_implausible_requests_are_refused(argv, english, spanish, lang, one_unit_panel, odd_years_panel, tmp_path,
                                          capsys):
    argv = [a.format(panel=one_unit_panel, odd=odd_years_panel, tmp=tmp_path) for a in argv]
    code, out, err = _run(["--lang", lang, *argv], capsys)
    assert code == 2, err
    for fragment in english if lang == "en" else spanish:
        assert fragment in err, f"{fragment!r} not in {err!r}"
    assert "Traceback" not in err and 'File "' not in err
    assert "Saved" not in out and "Guardado" not in out  # refused before anything was written
    assert not (tmp_path / "out.txt").exists()


def test_the_output_type_is_checked_before_the_work(tmp_path, capsys):
    """Nothing computed or printed before the refusal (the panel's notes would come first otherwise)."""
    code, out, err = _run(["--lang", "en", "inequality", "--example", "chile", "--bootstrap", "1000", "-o",
                           str(tmp_path / "x.docx")], capsys)
    assert code == 2 and out == "" and "unknown output type '.docx'" in err


def test_more_groups_than_formed_is_flagged(tmp_path, capsys):
    """300 groups of 340 communes: ties and large communes leave 188; said on stderr and in n_groups."""
    out = tmp_path / "g.csv"
    code, _, err = _run(["--lang", "en", "inequality", "--rank-by", "poverty", "--groups", "300", "-o", str(out),
                         *CHILE_2010], capsys)
    assert code == 0
    assert "2010: 300 groups asked for and 188 formed" in err
    table = pd.read_csv(out)
    assert table["groups"].tolist() == [300] and table["n_groups"].tolist() == [188]


def test_few_replicates_through_the_python_api_are_flagged():
    """A script may ask for a quick look with 50 replicates: it runs, with a warning that says so."""
    from brecha.errors import BrechaWarning, InputError
    from brecha.inequality import inequality
    from brecha.panel import Panel

    panel = Panel(pd.DataFrame({"unit": list("ABCD"), "year": 2010, "births": [1000, 800, 1200, 500],
                                "deaths": [8, 10, 6, 9]}))
    set_language("en")
    with pytest.warns(BrechaWarning, match="50 bootstrap replicates are too few for a 95 % CI.*at least 200"):
        out = inequality(panel, measures="d", bootstrap=50, seed=1)
    assert out["bootstrap"].tolist() == [50]
    with pytest.raises(InputError, match="seed"):
        inequality(panel, measures="d", seed=-1)
    with pytest.raises(InputError, match="bootstrap"):
        inequality(panel, measures="d", bootstrap=-1)


# ------------------------------------------------------------------------------- internal errors, --debug

def _broken(args):
    raise RuntimeError("boom: a bug\nspread over two lines")


@pytest.mark.parametrize("lang, text", [("en", "unexpected internal error in 'brecha rates' (a bug in brecha, "
                                                "not in your data): RuntimeError: boom: a bug spread over two lines"),
                                        ("es", "error interno inesperado en 'brecha rates' (un fallo de brecha, "
                                                "no de sus datos): RuntimeError: boom: a bug spread over two lines")])
def test_internal_error_is_one_short_message(lang, text, monkeypatch, capsys):
    import brecha.cli.rates

    monkeypatch.delenv("BRECHA_DEBUG", raising=False)
    monkeypatch.setattr(brecha.cli.rates, "run", _broken)
    code, out, err = _run(["--lang", lang, "rates", "--example", "chile"], capsys)
    assert code == 1
    assert err.startswith("Error: ") and text in err
    assert "--debug" in err and "BRECHA_DEBUG=1" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 2


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_prints_the_traceback(how, monkeypatch, capsys):
    import brecha.cli.rates

    monkeypatch.setattr(brecha.cli.rates, "run", _broken)
    if how == "env":
        monkeypatch.setenv("BRECHA_DEBUG", "1")
        argv = ["--lang", "en", "rates", "--example", "chile"]
    else:
        monkeypatch.delenv("BRECHA_DEBUG", raising=False)
        argv = ["--lang", "en", "--debug", "rates", "--example", "chile"]
    code, _, err = _run(argv, capsys)
    assert code == 1
    assert "Traceback (most recent call last)" in err and "in _broken" in err
    assert "unexpected internal error in 'brecha rates'" in err


def test_debug_keeps_input_errors_at_exit_code_2(monkeypatch, capsys):
    monkeypatch.delenv("BRECHA_DEBUG", raising=False)
    code, _, err = _run(["--lang", "en", "--debug", "inequality", "--seed", "-1", *CHILE_2010], capsys)
    assert code == 2 and "Traceback" in err and "Error: seed (--seed) must be" in err


def test_library_warnings_show_no_file_path(monkeypatch, capsys):
    """numpy's RuntimeWarning and statsmodels' ConvergenceWarning: one line each, named, no path or source."""
    import brecha.cli.rates
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    def noisy(args):
        with np.errstate(invalid="warn"):
            np.log(np.array([-1.0]))
        warnings.warn("Maximum Likelihood optimization failed to converge", ConvergenceWarning)
        return 0

    monkeypatch.setattr(brecha.cli.rates, "run", noisy)
    for lang, word in (("en", "Warning"), ("es", "Aviso")):
        code, _, err = _run(["--lang", lang, "rates", "--example", "chile"], capsys)
        assert code == 0
        assert f"{word} (RuntimeWarning): invalid value encountered in log" in err
        assert f"{word} (ConvergenceWarning): Maximum Likelihood optimization failed to converge" in err
        assert ".py" not in err and "np.log" not in err and "warnings.warn" not in err
