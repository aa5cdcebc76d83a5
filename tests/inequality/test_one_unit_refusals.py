"""Inequality between units asked of a panel with one unit (a commune's own file) or of years without the
ranking covariate: each command stops with exit 2 and a message that says why and what to do, in Spanish and
English. Before, `inequality --rank-by`, `decompose --by` and `decompose --rank-by --determinants` exited 0
printing pandas' "Empty DataFrame"."""
from __future__ import annotations

import pytest

from brecha import datasets
from brecha.cli.main import main


@pytest.fixture(scope="module")
def one_unit(tmp_path_factory):
    path = tmp_path_factory.mktemp("one") / "santiago.csv"
    datasets.chile().subset(units=["13101"]).to_file(path)
    return path


@pytest.mark.parametrize("argv, en, es", [
    (["inequality", "--rank-by", "poverty"], "inequality is measured between at least 2 units",
     "la desigualdad se mide entre al menos 2 unidades"),
    (["decompose", "--by", "region"], "no period has at least 2 units with births and a group",
     "ningún período tiene al menos 2 unidades con nacimientos y grupo"),
    (["decompose", "--rank-by", "poverty", "--determinants", "poverty"],
     "no period has at least 3 units with births and the determinants",
     "ningún período tiene al menos 3 unidades con nacimientos y los determinantes"),
])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_one_unit_is_a_clear_refusal_not_an_empty_table(one_unit, tmp_path, capsys, argv, en, es, lang):
    out = tmp_path / "out.csv"
    assert main(["--lang", lang, argv[0], str(one_unit), *argv[1:], "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert (en if lang == "en" else es) in captured.err and "Empty DataFrame" not in captured.out
    assert not out.exists()


def test_a_ranking_covariate_without_values_in_any_year_asked(tmp_path, capsys):
    """Chile's poverty estimates start in 2006: ranked by poverty over 2000-2005 there is no order at all."""
    assert main(["--lang", "en", "inequality", "--example", "chile", "--rank-by", "poverty", "--years",
                 "2000-2005"]) == 2
    err = capsys.readouterr().err
    assert "'poverty' has no values in any period asked (2000, 2001, 2002, 2003, 2004 ...)" in err
    assert "ask for years in which the covariate has values" in err
