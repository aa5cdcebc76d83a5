"""The default Chilean report (the README's main job) on the embedded real data."""
import numpy as np


def test_national_rates_reproduce_ine(default_report):
    """INE's published national IMR 2010-2015: 7.4, 7.7, 7.4, 7.0, 7.3, 6.9 per 1,000 live births."""
    report, _ = default_report
    national = report.table("rates_national").set_index("year")["estimate"]
    np.testing.assert_array_equal(national.loc[2010:2015].round(1).to_numpy(), [7.4, 7.7, 7.4, 7.0, 7.3, 6.9])


def test_first_screen_answers_the_three_questions(default_report):
    report, out = default_report
    h = report.headline
    html = (out / "index.html").read_text(encoding="utf-8")
    first = html[: html.index('<section id="rates"')]
    assert h["national"]["value"] == "6.9" and h["national"]["year"] == 2015
    assert h["gap"]["value"] in first                      # how unequal
    assert h["trend"]["value"] in first                    # is the gap closing
    for row in h["worst"]:                                  # which communes are worst
        assert row["name"] in first
    assert 'id="fig-map_smoothed"' in first                 # a map
    assert "15-49" in first                                 # the births caveat


def test_every_section_is_present_and_available(default_report):
    report, _ = default_report
    keys = [s.key for s in report.sections]
    for key in ("rates", "disparity", "trends", "maps", "funnel", "distribution", "inequality", "covariate",
                "models", "data", "methods"):
        assert key in keys
    for section in report.sections:
        for block in section.blocks:
            assert block.kind != "unavailable", (section.key, block.text)
