"""`brecha spatial` and `brecha smooth --method bym2` through the real command line, on panel files written to
disk and read back; the neighbours' rule for islands; bilingual errors."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from brecha import datasets
from brecha.cli.main import main
from brecha.i18n import get_language, set_language
from brecha.spatial.autocorrelation import spatial_autocorrelation
from brecha.spatial.neighbours import neighbours


GLOBAL = ["period", "outcome", "measure", "estimate", "expected", "z", "p_value", "method"]
LOCAL = ["unit", "period", "outcome", "lisa", "lisa_p", "lisa_q", "cluster", "gi_star", "gi_z", "gi_p"]
BYM2 = ["unit", "period", "outcome", "estimate", "lower", "upper", "prob_above", "shrinkage", "method"]


@pytest.fixture(autouse=True)
def keep_language():
    before = get_language()
    yield
    set_language(before)


@pytest.fixture(scope="module")
def chile():
    return datasets.example("chile")


@pytest.fixture(scope="module")
def panel_file(tmp_path_factory, chile):
    """Valparaíso (region 05: Isla de Pascua and Juan Fernández are islands) and Araucanía, to disk."""
    path = tmp_path_factory.mktemp("spatial") / "panel.csv"
    chile.subset(region=["05", "09"], years=list(range(2008, 2016))).to_file(path)
    return path


def test_islands_and_missing_polygons_are_reported_not_dropped(chile):
    nb = neighbours(chile, "queen")
    assert nb.isolated == {"12202": "no_polygon", "05104": "island", "05201": "island", "10206": "island",
                           "11203": "island"}
    assert len(nb.units) == 346 - 5
    rook = neighbours(chile, "rook")
    queen_links = {(u, v) for u, vs in nb.w.neighbors.items() for v in vs}
    assert {(u, v) for u, vs in rook.w.neighbors.items() for v in vs} <= queen_links
    knn = neighbours(chile, "knn:4")  # Antártica has no seat either
    assert knn.isolated == {"12202": "no_seat"} and set(knn.w.cardinalities.values()) == {4}


def test_spatial_command_writes_both_tables(panel_file, tmp_path, capsys):
    out = tmp_path / "moran.csv"
    code = main(["--lang", "en", "spatial", str(panel_file), "--years", "2008-2015", "--pool", "--permutations",
                 "199", "--seed", "11", "-o", str(out)])
    assert code == 0
    printed = capsys.readouterr()
    assert "Clusters describe where similar rates sit together; they do not explain why." in printed.out
    assert "island: 05104, 05201" in printed.err  # the islands are reported, not dropped silently
    glob = pd.read_csv(out, dtype={"period": str})
    local = pd.read_csv(tmp_path / "moran.local.csv", dtype={"unit": str, "period": str})
    assert list(glob.columns[:8]) == GLOBAL and list(local.columns[:10]) == LOCAL
    assert set(glob["measure"]) == {"moran_rate", "moran"}
    assert set(glob["method"]) == {"normality", "randomisation", "permutation"}
    assert local.set_index("unit").loc[["05104", "05201"], "cluster"].tolist() == ["island", "island"]
    assert local["cluster"].isin(["high-high", "low-low", "high-low", "low-high", "not_significant", "island",
                                  "no_births", "no_polygon"]).all()
    # the numbers are the API's on the panel read back
    from brecha.panel import read_panel

    api_glob, api_local = spatial_autocorrelation(read_panel(panel_file), years=list(range(2008, 2016)),
                                                  pool=True, permutations=199, seed=11)
    assert np.allclose(glob["estimate"], api_glob["estimate"]) and np.allclose(glob["p_value"], api_glob["p_value"])
    assert np.allclose(local["lisa_p"].fillna(-1), api_local["lisa_p"].fillna(-1))


def test_smooth_bym2_command(panel_file, tmp_path):
    out = tmp_path / "bym2.csv"
    assert main(["--lang", "es", "smooth", str(panel_file), "--method", "bym2", "--years", "2008-2015",
                 "--pool", "-o", str(out)]) == 0
    table = pd.read_csv(out, dtype={"unit": str, "period": str})
    assert list(table.columns[:9]) == BYM2
    assert len(table) == table["unit"].nunique() and table["period"].eq("2008-2015").all()
    assert table["method"].str.startswith("bym2").all()
    assert ((table["lower"] < table["estimate"]) & (table["estimate"] < table["upper"])).all()
    # prob_above orders like the estimate against the overall rate (monotone in the posterior location)
    above = table["estimate"] > 1000 * table["events"].sum() / table["births"].sum()
    assert (table.loc[above, "prob_above"] > 0.4).all() and (table.loc[~above, "prob_above"] < 0.6).all()


@pytest.mark.parametrize("lang,words", [("en", "unknown neighbours 'knn:0'"), ("es", "vecindad 'knn:0' desconocida")])
def test_bad_neighbours_is_a_bilingual_error(panel_file, capsys, lang, words):
    assert main(["--lang", lang, "spatial", str(panel_file), "--neighbours", "knn:0"]) == 2
    err = capsys.readouterr().err
    assert words in err and "--neighbours" in err


def test_country_without_polygons_or_seats(tmp_path, capsys):
    table = pd.DataFrame({"unit": ["A", "B", "C", "D"], "year": 2010, "deaths": [1, 2, 3, 4],
                          "births": [100, 200, 300, 400]})
    path = tmp_path / "plain.csv"
    table.to_csv(path, index=False)
    assert main(["--lang", "en", "spatial", str(path)]) == 2
    err = capsys.readouterr().err
    assert "neither polygons nor seat locations" in err and "add lat and lon columns" in err


def test_country_with_seats_only_uses_knn(tmp_path, capsys):
    """Argentina's provinces have seats but no polygons: queen is refused with the way out, knn:K works."""
    assert main(["--lang", "en", "spatial", "--example", "argentina", "--years", "2015-2020", "--pool"]) == 2
    assert "use --neighbours knn:5" in capsys.readouterr().err
    out = tmp_path / "ar.csv"
    assert main(["--lang", "en", "spatial", "--example", "argentina", "--years", "2015-2020", "--pool",
                 "--neighbours", "knn:3", "--permutations", "99", "-o", str(out)]) == 0
    local = pd.read_csv(tmp_path / "ar.local.csv", dtype={"unit": str})
    assert len(local) == 24 and (local["n_neighbours"] >= 3).all() and local["lisa"].notna().all()
    glob = pd.read_csv(out)
    assert (glob["n_units"] == 24).all() and (glob["neighbours"] == "knn:3").all()


@pytest.mark.parametrize("lang, said", [("en", "Protected publication (K = 3)"), ("es", "Publicación protegida (K = 3)")])
def test_suppress_protects_the_local_table_as_every_other_table(panel_file, tmp_path, capsys, lang, said):
    """`spatial --suppress K` wrote the local table (each unit's deaths, rate, EB rate) as it was: counts of 1
    to K deaths were published. It is now protected as `rates` protects its table: the same cells hidden, with
    their rate, EB rate, LISA, Gi* and cluster (high or low would say where the count lies), the totals it is
    published with, the flag and the note; births and the number of neighbours stay."""
    out = tmp_path / "m.csv"
    assert main(["--lang", lang, "spatial", str(panel_file), "--pool", "--permutations", "99", "--suppress", "3",
                 "-o", str(out)]) == 0
    assert said in capsys.readouterr().out
    local = pd.read_csv(tmp_path / "m.local.csv", dtype={"unit": str, "period": str})
    assert main(["--lang", lang, "rates", str(panel_file), "--pool", "--suppress", "3", "-o", str(tmp_path / "r.csv")]) == 0
    rates = pd.read_csv(tmp_path / "r.csv", dtype={"unit": str, "period": str})
    hidden = local.loc[local["flag"].fillna("").str.contains("suppressed"), "unit"].tolist()
    assert hidden and hidden == rates.loc[rates["flag"].fillna("").str.contains("suppressed"), "unit"].tolist()
    events = pd.to_numeric(local["events"])
    assert not ((events >= 1) & (events <= 3)).any()
    rows = local[local["unit"].isin(hidden)]
    for col in ("events", "rate", "eb_rate", "lisa", "lisa_p", "gi_star", "gi_z", "cluster"):
        assert rows[col].isna().all(), col
    assert rows["births"].notna().all() and rows["n_neighbours"].notna().all()
    assert "TOTAL" in set(local["unit"]) and (local["unit"].str.startswith("region:")).any()
    published = local[~local["unit"].isin(hidden) & ~local["unit"].str.contains(":|TOTAL")]
    assert published["lisa"].notna().sum() > 0 and published["cluster"].notna().all()
