"""Reading the report's SVG figures back in the tests (test_svg_charts.py, test_svg_multiples.py,
test_figures_fast.py): texts with their positions, path vertices, dots, the panels of small multiples, tick
labels as numbers in the report's language; and the ``lang`` fixture. The checks recover every scale from the
figure's own tick labels, never from the code that drew it."""
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from brecha.i18n import get_language, set_language

NS = "{http://www.w3.org/2000/svg}"
POINT = re.compile(r"([MLZ])(?:([-\d.]+) ([-\d.]+))?")


@pytest.fixture
def lang():
    """Sets the report's language for a test; the former one is back afterwards."""
    before = get_language()
    yield set_language
    set_language(before)


def parse(figure) -> ET.Element:
    assert figure.format == "svg"
    return ET.fromstring(figure.data)  # well-formed, or this raises


def texts(el) -> list[dict]:
    """Every text under ``el``: its words, position, size, anchor, fill, boldness, and whether it is rotated."""
    return [{"text": t.text, "x": float(t.get("x")), "y": float(t.get("y")), "size": float(t.get("font-size")),
             "anchor": t.get("text-anchor", "start"), "fill": t.get("fill"), "bold": t.get("font-weight") == "bold",
             "rotated": "transform" in t.attrib}
            for t in el.iter(NS + "text")]


def number(label: str) -> float:
    """A tick label's value in the report's language: Spanish 1.000,5, English 1,000.5."""
    label = label.replace("−", "-")
    if get_language() == "es":
        return float(label.replace(".", "").replace(",", "."))
    return float(label.replace(",", ""))


def paths(el, **attrs) -> list[ET.Element]:
    """The paths under ``el`` whose attributes are ``attrs`` (``stroke_dasharray=`` for ``stroke-dasharray``)."""
    return [p for p in el.iter(NS + "path") if all(p.get(k.replace("_", "-")) == v for k, v in attrs.items())]


def pieces(d: str) -> list[np.ndarray]:
    """The vertices of a path, one array of (x, y) per piece (``M`` starts one; ``Z`` closes it)."""
    out = []
    for op, x, y in POINT.findall(d):
        if op == "M":
            out.append([])
        if op in "ML":
            out[-1].append((float(x), float(y)))
    return [np.array(p) for p in out]


def dots(el, fill: str) -> np.ndarray:
    """The centres of the circles drawn in ``fill`` under ``el``, as rows (x, y)."""
    return np.array([(float(c.get("cx")), float(c.get("cy"))) for g in el.iter(NS + "g") if g.get("fill") == fill
                     for c in g.iter(NS + "circle")]).reshape(-1, 2)


def panels(root) -> list[ET.Element]:
    """The panels of small multiples, ``<g id="panel-1">`` and on, in order (``root``: an element or SVG bytes)."""
    if isinstance(root, (bytes, str)):
        root = ET.fromstring(root)
    found = [g for g in root.iter(NS + "g") if (g.get("id") or "").startswith("panel-")]
    assert [g.get("id") for g in found] == [f"panel-{i + 1}" for i in range(len(found))]
    return found


def matplotlib_loaded_by(code: str) -> list[str]:
    """The matplotlib modules a new Python process has loaded after running ``code`` (which must succeed):
    the report's figures are drawn without matplotlib."""
    import ast
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(sorted(m for m in sys.modules "
                           "if m.split('.')[0] == 'matplotlib'))\n"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])  # the list of names it printed
