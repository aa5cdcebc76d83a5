"""The first screen on a small study (one region, one year), as a regional health authority runs it: the
area is named (not the country), one year has no change to report, a reference above the area's rate is
said as such (not "would be -5 % lower", not "-3 deaths avoided"), a lowest fifth without deaths gives the
difference (not "–×"), and the highest and lowest lists never show the same commune."""
from __future__ import annotations

import html
import re

import pytest

from brecha import datasets
from brecha.cli.main import main


def first_screen(folder) -> str:
    page = (folder / "index.html").read_text(encoding="utf-8")
    body = re.sub(r"<script.*?</script>|<style.*?</style>", "", page, flags=re.S)
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))
    start = text.find("Key findings") if "Key findings" in text else text.find("Hallazgos principales")
    end = min(i for i in (text.find("Caveats about the data", start), text.find("Advertencias sobre los datos",
                                                                                  start)) if i > 0)
    return text[start:end]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_one_region_one_year_reference_above_the_area(tmp_path, lang):
    """Araucanía 2021 (the example): the reference (the best commune with births for 20 expected deaths,
    Temuco's 5.9) is above the region's 5.7, so PAR% is -5 % and the 'avoided' deaths -3."""
    out = tmp_path / "r"
    assert main(["-q", "--lang", lang, "report", "--example", "araucania", "-o", str(out)]) == 0
    text = first_screen(out)
    if lang == "en":
        assert "Infant mortality rate in Región de La Araucanía 5.7" in text and " in Chile" not in text
        assert "5.7 per 1,000 in 2021 (95 % CI 4.3–7.4)." in text and "a rise of" not in text
        assert "would be 5 % higher (PAR% 2021: -5," in text and "% lower" not in text
        assert "Deaths at the reference's rate +3 more a year" in text
        assert "there would have been 3 more infant deaths a year, not fewer" in text
        assert "-3 a year" not in text
    else:
        assert "Tasa de mortalidad infantil en Región de La Araucanía 5,7" in text
        assert "5,7 por 1.000 en 2021 (IC 95 %: 4,3–7,4)." in text and "un aumento" not in text
        assert "sería 5 % mayor (RAP% 2021: -5," in text and "% menor" not in text
        assert "Muertes con la tasa de la referencia +3 más al año" in text


def test_a_lowest_fifth_without_deaths_and_four_ranked_communes(tmp_path):
    """The region's 2021 panel as a user's file, no smoothing: the lowest fifth of births has no infant death
    (the ratio is not defined: the card gives the difference), and only four communes reach 500 births, so
    the two lists are the upper and the lower two (before: the same four in both, in reverse)."""
    panel = tmp_path / "araucania.csv"
    datasets.araucania().to_file(panel)
    study = tmp_path / "study.toml"
    study.write_text(f'title = "x"\nperiod = "2021"\n[data]\npanel = "{panel.name}"\n', encoding="utf-8")
    out = tmp_path / "r"
    assert main(["-q", "--lang", "en", "report", str(study), "-o", str(out)]) == 0
    text = first_screen(out)
    assert "–×" not in text and "–––" not in text
    assert "How unequal? 13.0 per 1,000 apart; ratio not defined" in text
    assert "the fifth of births in the communes with the lowest rates had no infant death" in text
    highest = text[text.find("Highest mortality"):text.find("Lowest mortality")]
    lowest = text[text.find("Lowest mortality"):text.find("Observed rates")]
    names = ["Angol", "Temuco", "Padre Las Casas", "Villarrica"]
    assert [n for n in names if n in highest] == ["Angol", "Temuco"]
    assert [n for n in names if n in lowest] == ["Padre Las Casas", "Villarrica"]
