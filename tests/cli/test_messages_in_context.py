"""Messages that fit what the user already did (found by a user-path audit, 2 Dec 2026): no advice to use
the option she gave, numbers in the message's own decimal convention, `-q` on `ingest` as on every other
command, and a "What to do" for a figure with the wrong extension."""
from __future__ import annotations

import re

import pytest

from brecha import datasets
from brecha.cli.main import main


@pytest.fixture(scope="module")
def one_unit(tmp_path_factory):
    path = tmp_path_factory.mktemp("one") / "santiago.csv"
    datasets.chile().subset(units=["13101"]).to_file(path)
    return path


def test_spatial_already_pooled_is_not_told_to_pool(one_unit, capsys):
    assert main(["--lang", "en", "spatial", str(one_unit), "--pool"]) == 2
    err = capsys.readouterr().err
    assert "What to do: analyse more units (without --region, or a larger area)" in err and "--pool" not in err
    assert main(["--lang", "en", "spatial", str(one_unit)]) == 2
    assert "pool years (--pool)" in capsys.readouterr().err


def test_smoothing_by_region_is_not_told_to_use_prior_region_and_spanish_decimals(capsys):
    assert main(["--lang", "es", "smooth", "--example", "chile", "--years", "2010", "--prior", "region"]) == 0
    err = capsys.readouterr().err
    assert "use --prior region" not in err and "agrupe años (--pool) o analice un área mayor" in err
    values = re.search(r"A de Marshall ([^)]*), en \(por 1\.000\)", err).group(1)
    assert "," in values and "." not in values, values  # -5,54; -4,64 ... not -5.54, -4.64
    import numpy as np

    from brecha.errors import BrechaWarning
    from brecha.i18n import set_language
    from brecha.smoothing import _warn_no_extra_variation

    set_language("en")
    with pytest.warns(BrechaWarning, match=r"pool years \(--pool\) or use --prior region"):
        _warn_no_extra_variation([0], np.array([-5.5e-6]), ["2010"], ["global"])  # one global prior: suggest it
    with pytest.warns(BrechaWarning, match=r"Marshall's A -5\.5, in"):
        _warn_no_extra_variation([0], np.array([-5.5e-6]), ["2010"], ["global"])
    set_language("es")


@pytest.mark.parametrize("command", [["ingest", "table"], ["ingest", "deis", "--deaths"]])
def test_ingest_takes_q_as_every_command_does(tmp_path, capsys, command):
    files = datasets.write_araucania_files(tmp_path)
    source = files["deaths"] if command[-1] == "--deaths" else tmp_path / "t.csv"
    if command[-1] != "--deaths":
        datasets.chile().subset(units=["13101"]).to_file(source)
    out = tmp_path / "p.csv"
    assert main(["--lang", "en", *command, str(source), "-q", "-o", str(out)]) == 0
    assert out.exists() and "Record ledger" not in capsys.readouterr().out


def test_a_figure_with_another_extension_says_what_to_name_it(capsys, tmp_path):
    assert main(["--lang", "es", "trends", "--example", "chile", "--method", "joinpoint", "--level", "country",
                 "--plot", str(tmp_path / "fig.csv")]) == 2
    assert "Qué hacer: nombre la figura fig.svg (vectorial, para publicar) o fig.png" in capsys.readouterr().err
