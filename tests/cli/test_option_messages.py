"""An out-of-range value names the option the user typed (``--alpha``), and says what to write; the Python
API names its argument (``alpha``). One InputError serves both: ``argument=`` in the analysis, the CLI maps it
to the option (``brecha.cli.main._option_names``)."""
from __future__ import annotations

import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.errors import InputError
from brecha.i18n import set_language


@pytest.fixture(scope="module")
def panel_file(tmp_path_factory):
    """The user's own panel file: La Araucanía 2010-2015, counts only (no regions known without a registry
    for the ``A``-prefixed copy)."""
    folder = tmp_path_factory.mktemp("panels")
    panel = datasets.chile(covariates=False).subset(region="09", years=list(range(2010, 2016)))
    panel.to_file(folder / "araucania.csv")
    data = panel.data[["unit", "year", "births", "deaths"]].assign(unit=lambda d: "A" + d["unit"])
    data.to_csv(folder / "no_regions.csv", index=False)
    return folder


@pytest.fixture(autouse=True)
def spanish_afterwards():
    yield
    set_language("es")


CASES = [
    (["rates", "{p}", "--conf-level", "95"],
     "Error: option --conf-level: confidence level 95.0 is not in (0, 1). What to do: 95 looks like a "
     "percentage: write 0.95",
     "Error: opción --conf-level: nivel de confianza 95.0 fuera de (0, 1). Qué hacer: 95 parece un porcentaje: "
     "escriba 0.95"),
    (["rates", "{p}", "--conf-level", "0"],
     "option --conf-level: confidence level 0.0 is not in (0, 1). What to do: write the level as a proportion: "
     "0.95 for 95 %", "opción --conf-level: nivel de confianza 0.0 fuera de (0, 1). Qué hacer: escriba el nivel"),
    (["trends", "{p}", "--alpha", "5"],
     "option --alpha: the significance level must be between 0 and 1 (got 5.0). What to do: 5 looks like a "
     "percentage: write 0.05",
     "opción --alpha: el nivel de significación debe estar entre 0 y 1 (se recibió 5.0). Qué hacer: 5 parece un "
     "porcentaje: escriba 0.05"),
    (["trends", "{p}", "--max-zero-share", "2"],
     "option --max-zero-share: the largest share of years without deaths must be between 0 and 1 (got 2.0). "
     "What to do: write it as a proportion, e.g. 0.5",
     "opción --max-zero-share: la proporción máxima de años sin muertes debe estar entre 0 y 1"),
    (["funnel", "{p}", "--target", "-3"],
     "option --target: the target rate must be positive (per 1,000), not -3.0. What to do: give the rate per "
     "1,000 live births, e.g. 7.5, or leave it out to use the overall rate",
     "opción --target: la tasa objetivo debe ser positiva (por 1.000), no -3.0. Qué hacer: indique la tasa"),
    (["disparity", "{p}", "--reference", "best", "--units", "09101,99999"],
     "option --units: requested units that are not in the panel: 99999. What to do: use codes of the panel "
     "(e.g. 09101, 09102, 09103)",
     "opción --units: unidades pedidas que no están en el panel: 99999. Qué hacer: use códigos del panel"),
    (["disparity", "{p}", "--reference", "lowest-quintile:"],
     "option --reference: the reference 'lowest-quintile:' names no covariate. What to do: write "
     "lowest-quintile:COVARIATE, e.g. lowest-quintile:poverty; covariates available: poverty,",
     "opción --reference: la referencia 'lowest-quintile:' no nombra ninguna covariable. Qué hacer: escriba "
     "lowest-quintile:COVARIABLE"),
    (["smooth", "{n}", "--prior", "region"],
     "option --prior: the regional prior needs each unit's region, and these units have none. What to do: add "
     "a 'region' column to the panel",
     "opción --prior: el prior regional necesita la región de cada unidad, y estas unidades no la tienen. Qué "
     "hacer: agregue al panel una columna 'region'"),
]


@pytest.mark.parametrize("argv, english, spanish", CASES, ids=[" ".join(c[0][2:4]) for c in CASES])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_error_names_the_option_and_what_to_do(panel_file, capsys, argv, english, spanish, lang):
    argv = [a.format(p=panel_file / "araucania.csv", n=panel_file / "no_regions.csv") for a in argv]
    assert main(["--lang", lang, *argv]) == 2
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and captured.out == "", captured.err
    assert (english if lang == "en" else spanish) in lines[0]


def test_the_python_api_names_the_argument():
    from brecha.smoothing import funnel
    from brecha.trends import trends

    set_language("en")
    panel = datasets.chile(covariates=False).subset(region="09", years=[2014, 2015])
    with pytest.raises(InputError) as err:
        trends(panel, alpha=5)
    assert str(err.value).startswith("argument alpha: the significance level must be between 0 and 1")
    assert err.value.argument == "alpha" and err.value.option is None
    with pytest.raises(InputError) as err:
        funnel(panel, target=-3)
    assert str(err.value).startswith("argument target: the target rate must be positive")
    # the CLI's rewording changes the text, not the error's other fields
    err.value.as_option("--target")
    assert str(err.value).startswith("option --target: the target rate") and err.value.hint
