"""`brecha trends --method joinpoint` end to end on a panel file: OUT.aapc.csv, --selection, --continuous,
--compare (units and fifths with --rank-by), --jump-year, and the refusals (exit 2, both languages)."""
import numpy as np
import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.i18n import get_language, set_language

AAPC_COLUMNS = ["unit", "outcome", "start", "end", "aapc", "aapc_lower", "aapc_upper", "ci_method", "n_segments"]
COMPARE_COLUMNS = ["test", "unit_a", "unit_b", "statistic", "p_value", "method"]
YEARS = np.arange(2000, 2016)


@pytest.fixture(autouse=True)
def keep_language():
    lang = get_language()
    yield
    set_language(lang)


@pytest.fixture
def panel_file(tmp_path):
    """Ten units: the poorer ones (higher 'poverty') with higher, more slowly falling rates; unit U0 with a
    joinpoint in 2007 and a drop of a fifth from 2010 (a change of source)."""
    rng = np.random.default_rng(4)
    rows = []
    for i in range(10):
        births = 200_000.0
        ln = np.log(6 + i) - (0.045 - 0.002 * i) * (YEARS - 2000)
        if i == 0:
            ln = ln + 0.07 * np.maximum(YEARS - 2007, 0) + np.log(0.8) * (YEARS >= 2010)
        deaths = rng.poisson(births * np.exp(ln) / 1000)
        for y, d in zip(YEARS, deaths):
            rows.append((f"U{i}", int(y), int(births), int(d), float(10 + 3 * i)))
    path = tmp_path / "panel.csv"
    pd.DataFrame(rows, columns=["unit", "year", "births", "deaths", "poverty"]).to_csv(path, index=False)
    return path


def test_aapc_table_beside_output(panel_file, tmp_path, capsys):
    out = tmp_path / "jp.csv"
    assert main(["--lang", "en", "trends", str(panel_file), "--method", "joinpoint", "-o", str(out)]) == 0
    table = pd.read_csv(out)
    aapc = pd.read_csv(tmp_path / "jp.aapc.csv")
    assert list(aapc.columns[:9]) == AAPC_COLUMNS
    assert len(aapc) == 10 and set(aapc["ci_method"]) == {"parametric"} and set(aapc["selection"]) == {"wbic"}
    rows = table[table["row"] == "aapc"].set_index("unit")
    for _, r in aapc.iterrows():
        assert r["aapc"] == pytest.approx(rows.loc[r["unit"], "apc"], rel=1e-12)
        assert r["aapc_lower"] == pytest.approx(rows.loc[r["unit"], "apc_lower"], rel=1e-12)
        n_seg = int((table[(table["unit"] == r["unit"]) & (table["row"] == "segment")]).shape[0])
        assert r["n_segments"] == n_seg
        assert (r["start"], r["end"]) == (2000, 2015)
    assert "jp.aapc.csv" in capsys.readouterr().out


def test_selection_and_continuous_options(panel_file, tmp_path):
    from brecha.trends import joinpoint

    out = tmp_path / "c.csv"
    assert main(["--lang", "en", "trends", str(panel_file), "--method", "joinpoint", "--continuous",
                 "--selection", "bic", "-o", str(out)]) == 0
    aapc = pd.read_csv(tmp_path / "c.aapc.csv").set_index("unit")
    u0 = aapc.loc["U0"]
    assert u0["ci_method"] == "muggeo" and u0["n_segments"] >= 2
    data = pd.read_csv(panel_file)
    d0 = data[data.unit == "U0"]
    direct = joinpoint(d0["year"], counts=d0["deaths"], births=d0["births"], continuous=True, selection="bic")
    assert u0["aapc"] == pytest.approx(direct.aapc["aapc"].iloc[0], rel=1e-10)
    assert u0["aapc_lower"] == pytest.approx(direct.aapc["aapc_lower"].iloc[0], rel=1e-10)


def test_compare_units_and_fifths(panel_file, tmp_path, capsys):
    from brecha.trends.comparability import compare

    out = tmp_path / "cmp.csv"
    assert main(["--lang", "en", "trends", str(panel_file), "--method", "joinpoint", "--compare", "U1,U9",
                 "--permutations", "199", "-o", str(out)]) == 0
    table = pd.read_csv(out)
    assert list(table.columns[:6]) == COMPARE_COLUMNS
    assert list(table["test"]) == ["coincidence", "parallelism"]
    data = pd.read_csv(panel_file)
    y = {u: np.log(1000 * g["deaths"].to_numpy() / g["births"].to_numpy()) for u, g in data.groupby("unit")}
    direct = compare(YEARS, y["U1"], y["U9"], int(table["k_a"][0]), int(table["k_b"][0]), n_permutations=199,
                     seed=2024)
    np.testing.assert_allclose(table["statistic"], direct["statistic"], rtol=1e-9)
    np.testing.assert_allclose(table["p_value"], direct["p_value"], rtol=1e-12)
    assert table["p_value"][0] < 0.01  # U9's rates are 50 % higher: not coincident
    printed = capsys.readouterr().out
    assert "U1 versus U9" in printed and "parallelism p =" in printed
    # fifths by poverty: two units each (equal births), summed counts
    out2 = tmp_path / "q.csv"
    assert main(["--lang", "en", "trends", str(panel_file), "--method", "joinpoint", "--compare", "q1,q5",
                 "--rank-by", "poverty", "--permutations", "199", "-o", str(out2)]) == 0
    q = pd.read_csv(out2)
    low = data[data.unit.isin(["U0", "U1"])].groupby("year")[["deaths", "births"]].sum()
    high = data[data.unit.isin(["U8", "U9"])].groupby("year")[["deaths", "births"]].sum()
    ya = np.log(1000 * low["deaths"] / low["births"]).to_numpy()
    yb = np.log(1000 * high["deaths"] / high["births"]).to_numpy()
    direct_q = compare(YEARS, ya, yb, int(q["k_a"][0]), int(q["k_b"][0]), n_permutations=199, seed=2024)
    np.testing.assert_allclose(q["statistic"], direct_q["statistic"], rtol=1e-9)
    slope = np.polyfit(YEARS, ya - yb, 1)[0]
    assert q["gap_apc"][0] == pytest.approx(100 * np.expm1(slope), rel=1e-9)


def test_jump_year_table(panel_file, tmp_path):
    out = tmp_path / "j.csv"
    assert main(["--lang", "en", "trends", str(panel_file), "--method", "joinpoint", "--jump-year", "2010",
                 "--selection", "bic3", "-o", str(out)]) == 0
    jump = pd.read_csv(tmp_path / "j.jump.csv").set_index("unit")
    assert len(jump) == 10
    u0 = jump.loc["U0"]
    assert u0["cr_lower"] < 0.8 < u0["cr_upper"] and u0["p_value"] < 0.05
    assert (jump.drop(index="U0")["p_value"] < 0.05).sum() <= 2  # no break elsewhere (chance aside)
    assert u0["comparability_ratio"] == pytest.approx(0.8, abs=0.05)


@pytest.mark.parametrize("args,message", [
    (["--compare", "U1"], "two different units"),
    (["--compare", "q1,q5"], "--rank-by"),
    (["--compare", "q1,q5", "--rank-by", "income"], "income"),
    (["--compare", "U1,ZZ"], "ZZ"),
    (["--compare", "U1,U2", "--method", "prais-winsten"], "--compare is an option of --method joinpoint"),
    (["--min-end", "0"], "--min-end must be a whole number >= 1"),
    (["--compare", "U1,U2", "--family", "poisson"], "--compare uses the least-squares fit"),
    (["--jump-year", "2010", "--family", "poisson"], "--jump-year uses the least-squares fit"),
    (["--plot", "f.svg", "--family", "poisson"], "--plot draws the least-squares fit"),
    (["--compare", "U1,U2", "--jump-year", "2010"], "--jump-year does not go with --compare"),
    (["--rank-by", "poverty"], "--rank-by forms the fifths of --compare q1,q5"),
])
def test_refusals(panel_file, args, message, capsys):
    base = ["--lang", "en", "trends", str(panel_file)]
    if "--method" not in args:
        base += ["--method", "joinpoint"]
    assert main(base + args) == 2
    assert message in capsys.readouterr().err


def test_spanish_messages(panel_file, capsys):
    assert main(["--lang", "es", "trends", str(panel_file), "--method", "joinpoint", "--compare", "q1,q5"]) == 2
    assert "quinto" in capsys.readouterr().err
    assert main(["--lang", "es", "trends", str(panel_file), "--method", "joinpoint", "--compare", "U1,U9",
                 "--permutations", "99"]) == 0
    assert "U1 frente a U9" in capsys.readouterr().out


def test_plot_writes_the_figure_with_each_segment_apc(panel_file, tmp_path):
    out = tmp_path / "jp.csv"
    fig = tmp_path / "jp.svg"
    assert main(["--lang", "en", "trends", str(panel_file), "--method", "joinpoint", "--plot", str(fig),
                 "-o", str(out)]) == 0
    svg = fig.read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    seg = pd.read_csv(out)
    seg = seg[seg["row"] == "segment"]
    for apc in seg["apc"]:  # every segment's APC is written on its segment (small multiples: "-2.3" or "-2.3*")
        assert f">{apc:.1f}" in svg
    png = tmp_path / "u0.png"
    assert main(["--lang", "en", "trends", str(panel_file), "--method", "joinpoint", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["--lang", "en", "trends", str(panel_file), "--method", "joinpoint", "--plot",
                 str(tmp_path / "x.pdf")]) == 2


def _figure_apcs(svg: str) -> list[str]:
    import re

    return re.findall(r">APC (-?\d+\.\d) %(\*?)<", svg)  # one series: "APC -3.1 %*" on each segment


@pytest.mark.parametrize("example, options", [
    ("argentina", ["--weights", "poisson"]),   # weighted: 2 joinpoints (2007, 2021); unweighted 1 (2021)
    ("brazil", ["--selection", "permutation"]),  # 4,499 permutations: 1 joinpoint (2011); WBIC 2 (2010, 2015)
    ("brazil", ["--alpha", "0.1"]),            # the last segment (p 0.089) is starred at alpha 0.1
])
def test_the_plot_draws_the_tables_model_whatever_the_options(tmp_path, example, options):
    """The figure is drawn from the fits behind the table's rows: with Poisson weights or the permutation
    selection it used to refit with neither (another model than the table's: Argentina's weighted fit has two
    joinpoints, the unweighted one; Brazil's permutation test keeps one, WBIC two), and its stars ignored
    --alpha. Every segment of the table is on the figure with its APC, starred when p < alpha, and no other."""
    out, fig = tmp_path / "c.csv", tmp_path / "c.svg"
    assert main(["--lang", "en", "trends", "--example", example, "--method", "joinpoint", "--level", "country",
                 *options, "--plot", str(fig), "-o", str(out)]) == 0
    seg = pd.read_csv(out, dtype={"unit": str})
    seg = seg[seg["row"] == "segment"]
    alpha = float(options[1]) if options[0] == "--alpha" else 0.05
    want = [(f"{a:.1f}", "*" if p < alpha else "") for a, p in zip(seg["apc"], seg["p_value"])]
    assert _figure_apcs(fig.read_text(encoding="utf-8")) == want
    assert len(want) == {"argentina": 3, "brazil": 2 if "permutation" in options else 3}[example]
    if options[0] == "--alpha":
        assert want[-1][1] == "*" and seg["p_value"].iloc[-1] > 0.05


def test_the_kept_fits_are_the_single_series_fits(tmp_path):
    """trends(..., fits=) keeps each unit's fitted curve: the same as brecha.trends.joinpoint on that unit's
    series alone (an independent path: one series, not the units' batched fit), weights included."""
    from brecha import datasets
    from brecha.trends import joinpoint, trends

    panel = datasets.argentina()
    fits = {}
    table = trends(panel, method="joinpoint", weights="poisson", fits=fits)
    assert set(fits) == set(table["unit"].astype(str))
    ev = panel.events("infant")
    for unit in ["02", "06", "94"]:
        g = ev[ev["unit"].astype(str) == unit].sort_values("year")
        e = g["events"].to_numpy(float)
        alone = joinpoint(g["year"].to_numpy(float), counts=np.where(e == 0, 0.5, e),
                          births=g["births"].to_numpy(float), weights="poisson")
        np.testing.assert_allclose(fits[unit]["fitted"], alone.fitted, rtol=1e-10)
        assert fits[unit]["joinpoints"] == tuple(alone.joinpoints[0])
        np.testing.assert_allclose(fits[unit]["segments"]["apc"], alone.segments["apc"], rtol=1e-10)
