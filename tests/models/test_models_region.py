"""`brecha models --region`: the determinants of one region's communes (a SEREMI's own question).

A region's run must be the run on a panel file holding only that region's rows (the same coefficients, the
same units, covariates attached from the shipped sources to those communes), and a region whose usable rows
cannot identify the models asked is refused with the reason (exit code 2), never a crash. Every region of
Chile is run once with the README's command.
"""
import numpy as np
import pandas as pd
import pytest

import brecha.i18n
from brecha.cli.main import main

COMMAND = ["--outcome", "imr", "--covariates", "poverty,health_spending_pc", "--years", "2006-2012"]


@pytest.fixture(autouse=True)
def restore_language(monkeypatch):
    """`main(["--lang", ...])` sets the language of the process: put it back after each test."""
    monkeypatch.setitem(brecha.i18n._current, "lang", brecha.i18n.get_language())


@pytest.fixture(scope="module")
def chile():
    from brecha import datasets

    return datasets.chile()


def _cli(capsys, lang, *argv):
    code = main(["--lang", lang, "models", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _region_units(chile, region: str) -> list[str]:
    units = chile.units
    return sorted(units.loc[units["region"].astype(str) == region, "unit"].astype(str))


@pytest.mark.filterwarnings("ignore")
def test_region_09_equals_a_panel_file_of_its_rows(tmp_path, capsys, chile):
    """--region 09 on the embedded panel gives the coefficient table of `brecha models` on a file holding only
    region 09's births and deaths (no covariate column: brecha attaches them from the shipped sources)."""
    communes = _region_units(chile, "09")
    assert len(communes) == 32          # La Araucanía, Cholchol (09121, created in 2004) included
    rows = chile.data[chile.data["unit"].astype(str).isin(communes)]
    panel_file = tmp_path / "araucania.csv"
    rows[["unit", "year", "births", "deaths"]].to_csv(panel_file, index=False)
    assert set(pd.read_csv(panel_file, dtype={"unit": str})["unit"]) == set(communes)

    code, out, err = _cli(capsys, "en", "--example", "chile", *COMMAND, "--region", "09",
                          "-o", str(tmp_path / "region.csv"))
    assert code == 0, err
    code, out_file, err = _cli(capsys, "en", str(panel_file), *COMMAND, "-o", str(tmp_path / "file.csv"))
    assert code == 0, err

    by_region = pd.read_csv(tmp_path / "region.csv")
    by_file = pd.read_csv(tmp_path / "file.csv")
    assert list(by_region["model"].unique()) == ["pooled", "fe", "re"]
    assert len(by_region) == 8     # pooled and re: intercept and two slopes; fe: two slopes
    pd.testing.assert_frame_equal(by_region, by_file, check_exact=False, rtol=1e-10, atol=1e-12)

    # every model used every region-09 commune (4 unit-years lack health spending, no commune lacks all 7)
    fit_info = pd.read_csv(tmp_path / "region.fit_info.csv")
    assert (fit_info["n_units"] == len(communes)).all()
    assert "220 unit-years of 32 units, years 2006-2012" in out
    # the shipped covariates were attached to the region's rows, and counted on them (32 communes x 7 years)
    notes = pd.read_csv(tmp_path / "region.notes.csv")["note"]
    assert notes.str.contains("Covariate poverty: ").any()
    assert notes.str.contains(r"of 224 panel unit-years filled", regex=False).sum() == 2
    # the whole country gives other numbers: the subset did happen
    code, _, _ = _cli(capsys, "en", "--example", "chile", *COMMAND, "-o", str(tmp_path / "all.csv"))
    country = pd.read_csv(tmp_path / "all.csv")
    assert not np.allclose(country["estimate"], by_region["estimate"])


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang", ["en", "es"])
def test_region_with_one_usable_commune_is_refused_saying_why(capsys, lang):
    """Arica y Parinacota (15), 2006-2012: Camarones, Putre and General Lagos have no SINIM health spending,
    so only Arica is left; the message says the panel read had 4 units and why the other rows went."""
    code, out, err = _cli(capsys, lang, "--example", "chile", *COMMAND, "--region", "15")
    assert code == 2
    assert "internal" not in err and "interno" not in err and "Traceback" not in err
    words = {"en": ["the panel has one unit (15101) with usable rows (of 4 units read:",
                    "1 unit-year excluded for zero or missing births",
                    "20 unit-years excluded for missing covariates (health_spending_pc: 20)",
                    "not estimated: fe, re", "--models pooled --se robust"],
             "es": ["el panel tiene una sola unidad (15101) con filas utilizables (de 4 unidades leídas:",
                    "1 unidad-año excluido por nacimientos cero o faltantes",
                    "20 unidad-años excluidos por covariables faltantes (health_spending_pc: 20)",
                    "no se estiman: fe, re", "--models pooled --se robust"]}[lang]
    for text in words:
        assert text in err


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang", ["en", "es"])
def test_region_without_a_covariate_is_refused_naming_it(capsys, lang):
    """Aysén (11): SINIM has no health data for its communes in 2006-2012 (its code 99 in every health field,
    read as missing: tests/covariates/test_sinim_no_data.py); the refusal says that every row went for want
    of health_spending_pc. Without it the region fits."""
    code, out, err = _cli(capsys, lang, "--example", "chile", *COMMAND, "--region", "11")
    assert code == 2
    text = {"en": "only 0 usable rows are left for 3 terms: cannot estimate (70 unit-years excluded for missing "
                  "covariates (health_spending_pc: 70))",
            "es": "quedan 0 filas utilizables con 3 términos: no se puede estimar (70 unidad-años excluidos por "
                  "covariables faltantes (health_spending_pc: 70))"}[lang]
    assert text in err
    code, out, err = _cli(capsys, lang, "--example", "chile", "--outcome", "imr", "--covariates", "poverty",
                          "--years", "2006-2012", "--region", "11")
    assert code == 0, err
    assert ("70 unit-years of 10 units" if lang == "en" else "70 unidad-años de 10 unidades") in out


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang", ["en", "es"])
def test_region_with_two_usable_communes_is_refused_random_effects(capsys, lang):
    """Antofagasta (02), 2006-2012: only Antofagasta and Calama have SINIM health spending (the others have its
    no-data code or text), so the between regression of random effects (3 terms) has no residual degree of
    freedom; re is refused saying what can be estimated, and pooled,fe fit with the tests skipped and why."""
    code, out, err = _cli(capsys, lang, "--example", "chile", *COMMAND, "--region", "02")
    assert code == 2
    words = {"en": ["only 2 units with usable rows (of 9 units read:", "44 unit-years excluded for missing "
                    "covariates (health_spending_pc: 44)", "needs more units than terms (3); not estimated: re",
                    "use --models pooled,fe"],
             "es": ["solo 2 unidades con filas utilizables (de 9 unidades leídas:", "no se estiman: re",
                    "use --models pooled,fe"]}[lang]
    for text in words:
        assert text in err
    code, out, err = _cli(capsys, lang, "--example", "chile", *COMMAND, "--region", "02", "--models", "pooled,fe")
    assert code == 0, err
    assert {"en": "the Hausman and Mundlak tests need more units than terms (3)",
            "es": "las pruebas de Hausman y de Mundlak necesitan más unidades que términos (3)"}[lang] in out
    assert ("14 unit-years of 2 units" if lang == "en" else "14 unidad-años de 2 unidades") in out


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("lang", ["en", "es"])
def test_region_where_a_covariate_is_constant_names_it(tmp_path, capsys, chile, lang):
    """A user's panel of one region with a covariate of one value everywhere (a regional programme coded 1 in
    every commune): the intercept absorbs it, and the refusal names the covariate and its value instead of
    calling it 'collinear'."""
    rows = chile.data[chile.data["unit"].astype(str).isin(_region_units(chile, "09"))]
    panel = rows[["unit", "year", "births", "deaths"]].assign(programme=1.0)
    panel_file = tmp_path / "araucania.csv"
    panel.to_csv(panel_file, index=False)
    code, out, err = _cli(capsys, lang, str(panel_file), "--outcome", "imr", "--covariates", "poverty,programme",
                          "--years", "2006-2012")
    assert code == 2
    text = {"en": "covariate programme (1) has the same value in all",
            "es": "la covariable programme (1) no cambia en ninguna de las"}[lang]
    assert text in err
    assert "--covariates" in err


@pytest.mark.filterwarnings("ignore")
def test_fixed_effects_drop_time_invariant_covariates_of_a_region(capsys):
    """schooling and distance_hospital_km do not change within a commune: in region 09 fe keeps poverty only,
    says so, and fe alone on the two of them is refused with what to use instead."""
    code, out, err = _cli(capsys, "en", "--example", "chile", "--outcome", "imr", "--covariates",
                          "poverty,schooling,distance_hospital_km", "--years", "2006-2012", "--region", "09")
    assert code == 0, err
    assert ("covariates with no variation within units (time-invariant): schooling, distance_hospital_km; they "
            "vanish under fixed effects and first differences; use re or cre (Mundlak) to estimate them") in out
    code, out, err = _cli(capsys, "en", "--example", "chile", "--outcome", "imr", "--covariates",
                          "schooling,distance_hospital_km", "--models", "fe", "--years", "2006-2012",
                          "--region", "09")
    assert code == 2
    assert "fe: no time-varying covariate, not estimated" in err and "use re or cre (Mundlak)" in err


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("region", [f"{r:02d}" for r in range(1, 17)])
def test_every_region_fits_or_is_refused_clearly(capsys, chile, region):
    """The README's command on each of Chile's 16 regions: a table (exit 0) on the region's communes only, or
    a refusal (exit 2) that is one message, never an internal error."""
    code, out, err = _cli(capsys, "en", "--example", "chile", *COMMAND, "--region", region)
    assert "Traceback" not in err and "internal" not in err
    if region in ("02", "11", "12", "15"):   # see the tests above
        assert code == 2 and err.strip().startswith("Error: ")
        return
    assert code == 0, err
    used = int(out.split(" unit-years of ")[1].split(" units")[0])
    assert 2 <= used <= len(_region_units(chile, region))
