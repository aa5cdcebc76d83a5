"""``brecha dashboard`` through the real command line, on a study whose panel file is on disk."""
import pytest

from dashboard_page import page_data


def test_dashboard_command_writes_the_page_with_the_reports_numbers(study_file, report_folder, capsys):
    from brecha.cli.main import main

    out = study_file.parent / "alone" / "dash.html"
    assert main(["--lang", "en", "--quiet", "dashboard", str(study_file), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"Saved: {out}" in printed and "MB)" in printed
    alone, beside = page_data(out), page_data(report_folder / "dashboard.html")
    assert alone["data"] == beside["data"] and alone["compare"] == beside["compare"]
    html = out.read_text(encoding="utf-8")
    assert "Dashboard &lt;test&gt; &amp; co" in html  # the study's title escaped
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
    assert "<script src" not in html and "<link rel=\"stylesheet\"" not in html


@pytest.mark.parametrize("lang, expected", [("en", "the dashboard is an HTML page and -o ends in '.csv'"),
                                            ("es", "el tablero es una página HTML y -o termina en '.csv'")])
def test_a_non_html_output_is_refused_before_the_work(study_file, capsys, lang, expected):
    from brecha.cli.main import main

    target = study_file.parent / "dash.csv"
    assert main(["--lang", lang, "dashboard", str(study_file), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert expected in err and "dash.html" in err
    assert not target.exists()


def test_an_output_naming_the_study_or_a_folder_is_refused(study_file, capsys):
    from brecha.cli.main import main

    assert main(["--lang", "en", "dashboard", str(study_file), "-o", str(study_file.parent)]) == 2
    assert "Error:" in capsys.readouterr().err
    assert main(["--lang", "en", "dashboard", "--example", "chile", str(study_file), "-o", "x.html"]) == 2
    assert "not both" in capsys.readouterr().err


def test_the_report_summary_names_the_dashboard(study_file, tmp_path, capsys):
    from brecha.cli.main import main

    out = tmp_path / "rep"
    assert main(["--lang", "es", "--quiet", "report", str(study_file), "-o", str(out)]) == 0
    assert f"tablero:  {out / 'dashboard.html'}" in capsys.readouterr().out
    assert page_data(out / "dashboard.html")["lang"] == "es"


def test_a_users_own_dashboard_file_is_never_overwritten(study_file, tmp_path, capsys):
    from brecha.cli.main import main

    out = tmp_path / "mine"
    out.mkdir()
    (out / "dashboard.html").write_text("my own", encoding="utf-8")
    assert main(["--lang", "en", "--quiet", "report", str(study_file), "-o", str(out)]) == 2
    assert "dashboard.html" in capsys.readouterr().err
    assert (out / "dashboard.html").read_text(encoding="utf-8") == "my own"


PROTECTED = '''
title = "protected"
period = "2010-2012"
[data]
example = "chile"
[units]
region = "11"
[publication]
suppress = 5
[analyses.rates]
[analyses.disparity]
[analyses.funnel]
'''


def test_the_dashboard_inherits_the_reports_publication_policy(tmp_path):
    """With ``[publication] suppress = 5`` no count of 1 to 5 deaths, nor its rate, reaches the page: the
    dashboard holds the report's protected tables, cell for cell."""
    import numpy as np
    import pandas as pd

    from brecha.cli.main import main

    study = tmp_path / "protected.toml"
    study.write_text(PROTECTED, encoding="utf-8")
    out = tmp_path / "rep"
    assert main(["--lang", "en", "--quiet", "report", str(study), "-o", str(out)]) == 0
    data = page_data(out / "dashboard.html")
    units = data["data"]["infant"]["units_year"]
    assert all(v is None or v == 0 or v > 5 for v in units["ev"])
    assert any(v is None for v in units["ev"])
    assert all(e is None for v, e in zip(units["ev"], units["est"]) if v is None)
    csv = pd.read_csv(out / "tables" / "rates_units_year.csv", dtype={"unit": str})
    codes = data["units"]["code"]
    mine = pd.DataFrame({"unit": [codes[i] for i in units["u"]], "year": units["y"],
                         "ev": [np.nan if v is None else v for v in units["ev"]]})
    both = csv.merge(mine, on=["unit", "year"], validate="1:1")
    assert len(both) == len(csv)
    assert ((both["ev"] == both["events"]) | (both["ev"].isna() & both["events"].isna())).all()
    funnel = data["compare"]["funnel"]["est"]
    hidden = pd.read_csv(out / "tables" / "funnel.csv")["rate"].isna().sum()
    assert sum(v is None for v in funnel) == hidden
    text = (out / "dashboard.html").read_text(encoding="utf-8")
    assert "counts of 1 to 5 deaths are hidden" in text  # the report's caveat at the foot of the page


def test_a_panel_without_a_country_gets_the_table_only(tmp_path, capsys):
    """No registry: no polygons, no seats, no regions; the page still has every unit, named by its code."""
    import brecha
    from brecha.cli.main import main

    chile = brecha.read_panel("example:chile").subset(region="11", years=range(2008, 2013))
    data = chile.data[["unit", "year", "births", "deaths"]].copy()
    data["unit"] = "X" + data["unit"]
    brecha.Panel(data).to_file(tmp_path / "p.csv")
    study = tmp_path / "s.toml"
    study.write_text('title = "no country"\nperiod = "2008-2012"\n[data]\npanel = "p.csv"\n[units]\nall = true\n'
                     "[analyses.rates]\n[analyses.trends]\n", encoding="utf-8")
    assert main(["--lang", "en", "--quiet", "dashboard", str(study), "-o", str(tmp_path / "d.html")]) == 0
    data_ = page_data(tmp_path / "d.html")
    assert data_["map"] is None and data_["regions"] == {"code": [], "name": []}
    assert sorted(data_["units"]["code"]) == sorted(data["unit"].unique())
    national = data.groupby("year")[["deaths", "births"]].sum()
    assert data_["data"]["infant"]["national"]["est"] == pytest.approx(
        (national["deaths"] / national["births"] * 1000).tolist(), rel=1e-12)
