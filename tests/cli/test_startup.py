"""Issue 19, start-up: `brecha --help`, `--version` and argument errors never import the heavy libraries.

Checked on ``sys.modules`` of a fresh interpreter (a subprocess), not on a timing: a module-level
``import pandas`` added to any command module, to ``brecha/__init__.py`` or to ``cli/common.py`` fails here.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "numpy", "scipy", "matplotlib", "statsmodels", "linearmodels", "pyarrow", "jinja2")

PROBE = """
import json, sys
from brecha.cli.main import main
try:
    code = main({argv!r})
except SystemExit as exc:
    code = exc.code
print(json.dumps({{"code": code, "heavy": [m for m in {heavy!r} if m in sys.modules]}}))
"""


def run_probe(argv: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)], capture_output=True,
                          text=True, timeout=120)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("argv, code", [
    (["--help"], 0),
    (["--version"], 0),
    (["--lang", "es", "--help"], 0),
    ([], 0),  # no command: the help
    (["rates", "--help"], 0),
    (["report", "--help"], 0),
    (["no-such-command"], 2),
    (["rates", "--no-such-option"], 2),
    (["trends", "--rho", "nope"], 2),
    (["--lang", "es", "models", "--fill", "nope"], 2),
    (["inequality", "--bootstrap", "many"], 2),
])
def test_light_paths_import_no_heavy_library(argv, code):
    result = run_probe(argv)
    assert result["code"] == code
    assert result["heavy"] == [], f"`brecha {' '.join(argv)}` imported {result['heavy']}"


def test_the_probe_can_fail(tmp_path):
    """The probe sees a heavy import when one happens (a command that does its work imports pandas)."""
    result = run_probe(["rates", "--example", "chile", "--years", "2015", "-o", str(tmp_path / "r.csv")])
    assert result["code"] == 0 and "pandas" in result["heavy"]
    import_pandas = subprocess.run([sys.executable, "-c", "import brecha, sys; brecha.Panel; "
                                    "print('pandas' in sys.modules)"], capture_output=True, text=True, timeout=120)
    assert import_pandas.stdout.strip() == "True"


def test_import_brecha_is_light_and_its_names_still_work():
    done = subprocess.run([sys.executable, "-c", "import sys, brecha; print([m for m in %r if m in sys.modules])"
                           % (HEAVY,)], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]"
    import brecha
    from brecha import Panel, read_panel
    from brecha.datasets import read_panel as datasets_read_panel
    from brecha.panel import Panel as panel_Panel

    assert Panel is panel_Panel and read_panel is datasets_read_panel
    assert {"Panel", "read_panel"} <= set(dir(brecha))
    with pytest.raises(AttributeError):
        brecha.no_such_name
    done = subprocess.run([sys.executable, "-c", "import brecha; print(len(brecha.datasets.chile().unit_codes), "
                           "brecha.rates.__name__)"], capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["346", "brecha.rates"], done.stderr[-2000:]


def test_option_choices_equal_the_analyses_own_lists():
    """cli/choices.py copies the analyses' lists so the parser needs no numpy; the copies must not drift."""
    from brecha.cli import choices
    from brecha.intervals import CI_METHODS
    from brecha.trends import RHO_METHODS, ZERO_RULES

    assert choices.CI_METHODS == tuple(CI_METHODS)
    assert choices.RHO_METHODS == tuple(RHO_METHODS)
    assert choices.ZERO_RULES == tuple(ZERO_RULES)
