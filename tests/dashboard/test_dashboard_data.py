"""The dashboard's numbers are the report's: every array checked against the report's own CSV files read back
from disk, and the national rates against a brute-force sum of the panel file."""
import math

import numpy as np
import pandas as pd
import pytest

from dashboard_page import page_data


def close(a, b, rel=1e-9):
    a = [np.nan if v is None else float(v) for v in a]
    b = [float(v) for v in b]
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, rel=rel, abs=1e-12)


@pytest.fixture(scope="module")
def dash(report_folder):
    return page_data(report_folder / "dashboard.html")


def table(folder, name):
    return pd.read_csv(folder / "tables" / f"{name}.csv", dtype={"unit": str, "code": str})


def test_report_writes_the_dashboard_beside_index(report_folder):
    import json

    assert (report_folder / "dashboard.html").is_file()
    manifest = json.loads((report_folder / ".brecha-manifest.json").read_text(encoding="utf-8"))
    assert "dashboard.html" in manifest["files"]


def test_national_rates_match_the_tables_and_a_brute_force_sum(dash, report_folder, panel_file):
    raw = pd.read_csv(panel_file, dtype={"unit": str})
    assert dash["outcomes"] == ["infant", "neonatal"]
    for outcome, column, suffix in (("infant", "deaths", ""), ("neonatal", "deaths_neonatal", "_neonatal")):
        nat = dash["data"][outcome]["national"]
        csv = table(report_folder, f"rates_national{suffix}")
        assert nat["y"] == csv["year"].astype(int).tolist()
        close(nat["est"], csv["estimate"])
        close(nat["lo"], csv["lower"])
        close(nat["hi"], csv["upper"])
        sums = raw[raw["year"].between(2006, 2012)].groupby("year")[[column, "births"]].sum()
        close(nat["est"], (sums[column] / sums["births"] * 1000).to_numpy())
        pooled = dash["data"][outcome]["national_pooled"]
        assert pooled["est"][0] == pytest.approx(sums[column].sum() / sums["births"].sum() * 1000, rel=1e-9)


def test_unit_tables_match_the_csv_files(dash, report_folder):
    codes = dash["units"]["code"]
    inf = dash["data"]["infant"]
    csv = table(report_folder, "rates_units_year")
    got = pd.DataFrame({"unit": [codes[i] for i in inf["units_year"]["u"]], "year": inf["units_year"]["y"],
                        "est": inf["units_year"]["est"], "ev": inf["units_year"]["ev"]})
    both = csv.merge(got, on=["unit", "year"], validate="1:1")
    assert len(both) == len(csv) == len(got) > 0
    close(both["est"], both["estimate"])
    assert (both["ev"] == both["events"]).all()
    smoothed = table(report_folder, "smoothed")
    mine = dict(zip((codes[i] for i in inf["smoothed"]["u"]), inf["smoothed"]["est"]))
    close([mine[u] for u in smoothed["unit"]], smoothed["estimate"])
    trends = table(report_folder, "trends_units")
    mine = dict(zip((codes[i] for i in inf["trends"]["u"]), zip(inf["trends"]["trend"], inf["trends"]["est"])))
    sparse = trends["sparse"].fillna(False).astype(bool) if "sparse" in trends else [False] * len(trends)
    expected = [t if isinstance(t, str) else "sparse" if s else "no_trend" for t, s in zip(trends["trend"], sparse)]
    assert [mine[u][0] for u in trends["unit"]] == expected
    close([mine[u][1] for u in trends["unit"]], trends["apc"])
    rr = table(report_folder, "disparity_units_pooled")
    mine = dict(zip((codes[i] for i in inf["rr_pooled"]["u"]), inf["rr_pooled"]["est"]))
    close([mine[u] for u in rr["unit"]], rr["rr"])
    neo = table(report_folder, "rates_units_year_neonatal")
    close(sorted(v for v in dash["data"]["neonatal"]["units_year"]["est"] if v is not None),
          sorted(neo["estimate"].dropna()))
    assert "smoothed" not in dash["data"]["neonatal"]  # the report smooths the first outcome only


def test_compare_and_models_match_the_csv_files(dash, report_folder):
    ineq = table(report_folder, "inequality_ordered_year")
    sii = ineq[ineq["measure"] == "sii"]
    mine = dash["compare"]["inequality"]["sii"]
    assert mine["y"] == sii["year"].astype(int).tolist() and mine["rank_by"] == "poverty"
    close(mine["est"], sii["estimate"])
    close(mine["lo"], sii["lower"])
    par = table(report_folder, "disparity_total_year")
    par = par[par["measure"] == "par_percent"]
    close(dash["compare"]["inequality"]["par_percent"]["est"], par["estimate"])
    funnel = table(report_folder, "funnel")
    close(dash["compare"]["funnel"]["upper_998"], funnel["upper_998"])
    coefs = table(report_folder, "model_coefficients")
    models = dash["determinants"]["models"]
    assert models["term"] == coefs["term"].tolist()
    close(models["est"], coefs["estimate"])
    close(models["p"], coefs["p_value"])


def test_fitted_line_is_weighted_least_squares(dash, report_folder):
    """The scatter's line against statsmodels' WLS on the rates of the CSV file and the covariate shown."""
    import statsmodels.api as sm

    codes = dash["units"]["code"]
    values = dash["determinants"]["values"]["poverty"]
    x = pd.DataFrame({"unit": [codes[i] for i in values["u"]], "year": values["y"], "x": values["x"]})
    rates = table(report_folder, "rates_units_year").merge(x, on=["unit", "year"])
    checked = 0
    for year, part in rates.groupby("year"):
        part = part.dropna(subset=["x", "estimate"])
        part = part[part["births"] > 0]
        fit = sm.WLS(part["estimate"], sm.add_constant(part["x"]), weights=part["births"]).fit()
        a, b, n = dash["determinants"]["fits"]["poverty"][str(year)]
        assert a == pytest.approx(fit.params["const"], rel=1e-8)
        assert b == pytest.approx(fit.params["x"], rel=1e-7, abs=1e-12)
        assert n == len(part)
        checked += 1
    assert checked == 7


def test_fitted_line_against_statsmodels_random():
    import statsmodels.api as sm

    from brecha.report.dashboard.payload import fitted_line

    rng = np.random.default_rng(7)
    x, w = rng.normal(10, 3, 50), rng.integers(1, 500, 50).astype(float)
    y = 2 + 0.5 * x + rng.normal(0, 1, 50)
    x[3] = np.nan
    a, b, n = fitted_line(x, y, w)
    keep = ~np.isnan(x)
    fit = sm.WLS(y[keep], sm.add_constant(x[keep]), weights=w[keep]).fit()
    assert (a, b, n) == (pytest.approx(fit.params[0], rel=1e-10), pytest.approx(fit.params[1], rel=1e-10), 49)
    assert fitted_line([1, 1, 1], [1, 2, 3], [1, 1, 1]) is None  # no spread in x
    assert fitted_line([1, 2], [1, 2], [1, 1]) is None  # fewer than three points


def test_numbers_travel_exactly():
    import json

    from brecha.report.dashboard.payload import number, numbers

    values = [6.912345678912345, 0.1 + 0.2, -1e-12, 5570.0, float("nan"), float("inf"), None]
    got = json.loads(json.dumps(numbers(values)))
    assert got[:4] == [6.912345678912345, 0.30000000000000004, -1e-12, 5570] and got[4:] == [None, None, None]
    assert isinstance(got[3], int) and number(pd.NA) is None and number("x") is None
    # repeated values (each distinct number made once, issue 19): the same as number() value by value
    many = np.random.default_rng(3).choice([0.0, -0.0, 0.95, 1 / 3, np.nan, 7.0, np.inf, 2.0 ** 60], 2000)
    made = numbers(many)
    assert made == [number(v) for v in many]
    assert [type(v) for v in made] == [type(number(v)) for v in many]


def test_polygon_paths_decode_to_the_projected_rings():
    """Decode one commune's relative path and compare with the projection written out independently."""
    from brecha.registry import get_registry
    from brecha.report.dashboard.shapes import polygon_paths

    geo = get_registry("CL").polygons()
    feature = next(f for f in geo["features"] if f["properties"]["unit"] == "13101")
    shapes = polygon_paths(geo, ["13101", "13102"])
    assert set(shapes["paths"]) == {"13101", "13102"}
    allpts = [p for f in geo["features"] if f["properties"]["unit"] in ("13101", "13102")
              for ring in _outer(f["geometry"]) for p in ring]
    lon0, lat0, lat1 = min(p[0] for p in allpts), min(p[1] for p in allpts), max(p[1] for p in allpts)
    k = math.cos(math.radians((lat0 + lat1) / 2))
    ring = _outer(feature["geometry"])[0]
    expected = [(round((lo - lon0) * k * 1000), round((lat1 - la) * 1000)) for lo, la in ring]
    d = shapes["paths"]["13101"].split("z")[0]
    first, rest = d[1:].split("l")
    pts = [tuple(int(v) for v in first.split())]
    nums = [int(v) for v in rest.split()]
    for i in range(0, len(nums), 2):
        pts.append((pts[-1][0] + nums[i], pts[-1][1] + nums[i + 1]))
    assert pts == [expected[0]] + [p for a, p in zip(expected, expected[1:]) if p != a]
    assert polygon_paths(None, ["13101"]) is None


def _outer(geometry):
    c = geometry["coordinates"]
    return [poly[0] for poly in (c if geometry["type"] == "MultiPolygon" else [c])]


def test_seats_without_polygons_and_the_table_only_case():
    from brecha.report.dashboard.shapes import SCALE, seats

    units = pd.DataFrame({"unit": ["a", "b", "c"], "lat": [-10.0, -12.0, np.nan], "lon": [-50.0, -48.0, -49.0]})
    got = seats(units)
    k = math.cos(math.radians(-11.0))
    assert got["xy"]["a"] == [0, 0]
    assert got["xy"]["b"] == [round(2 * k * SCALE), 2 * SCALE]
    assert got["missing"] == ["c"]
    assert seats(units.drop(columns=["lat", "lon"])) is None


def test_tiles_follow_the_reports_tile_positions():
    """Each square is the report's tile (brecha.report.symbol_maps.tile_positions) scaled by 1000."""
    from brecha.report.dashboard.shapes import tiles
    from brecha.report.symbol_maps import tile_positions

    units = pd.DataFrame({"unit": ["110001", "110002", "120001"], "province": ["11", "11", "12"],
                          "province_name": ["Rondônia", "Rondônia", "Acre"]})
    got = tiles(units, "BR")
    pos = tile_positions(units, units["unit"], None).set_index("unit")
    from brecha.report.symbol_maps import BRAZIL_STATE_TILES

    pos = tile_positions(units, units["unit"], BRAZIL_STATE_TILES).set_index("unit")
    for unit, row in pos.iterrows():
        left, top, side = round(row.x * 1000), round(-(row.y + row["size"]) * 1000), round(row["size"] * 1000)
        assert got["paths"][unit] == f"M{left} {top}h{side}v{side}h{-side}z"
    assert sorted(t[2] for t in got["tiles"]) == ["Acre", "Rondônia"]
    assert tiles(units.drop(columns="province")) is None
