"""The report's sections keep one contract (docs/ARCHITECTURE.md, "The report"): a section is a module with
``build(results, page)``, registered by one line in ``sections.STEPS``; the report never imports the study;
every word comes from the labels; the page is rendered by Jinja2 with every value escaped."""
import ast
import re
from pathlib import Path

import pytest

from brecha.report import build, sections
from brecha.report.blocks import Block
from brecha.study import read_study

REPORT = Path(build.__file__).parent


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_the_report_never_imports_the_study_or_the_cli():
    for path in REPORT.rglob("*.py"):
        for name in _imports(path):
            assert not re.search(r"(^|\.)(study|study_check|cli)(\.|$)", name), f"{path.name} imports {name}"


def test_every_section_module_is_registered_and_no_source_file_is_over_600_lines():
    registered = {step.build.__module__.rsplit(".", 1)[1] for step in sections.STEPS}
    modules = {p.stem for p in (REPORT / "sections").glob("*.py")} - {"__init__", "measures"}
    assert modules - registered == {"other_outcomes", "data", "methods"}  # assembled by build.py
    assert [s.key for s in sections.STEPS if s.phase == "analysis"] == [
        "rates", "smoothing", "disparity", "trends", "distribution", "inequality", "covariate", "funnel", "models",
        "gap_where", "spatial"]
    for path in REPORT.rglob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 600, path


def test_sections_define_no_words_of_their_own():
    """Sentences come from labels.py: a section passes no string literal with a space to a block or a table
    title (column names, keys and format specs only)."""
    for path in (REPORT / "sections").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                    "Block", "add_table", "text", "exclude"):
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        assert " " not in arg.value, f"{path.name}: {arg.value!r}"


def test_a_new_section_is_one_module_and_one_line(tiny_study_path, tmp_path, monkeypatch):
    """A step added to the registry (and its title to the labels) runs after the analyses it reads, and its
    blocks show in the page."""
    def dashboard(results, page):
        births = int(results.national["births"].sum())
        page.add_table("dashboard", results.national[["year", "births"]], "Dashboard", "dashboard")
        page.section("dashboard").add(Block("text", text=f"{births} <births>"))

    from brecha.report.labels import LABELS

    monkeypatch.setitem(LABELS.messages, "s_dashboard", ("Tablero", "Dashboard"))  # its title, in labels.py
    step = sections.Step("dashboard", "dashboard", dashboard)
    monkeypatch.setattr(build, "STEPS", [*sections.STEPS, step])
    monkeypatch.setattr(build, "ORDER", (*sections.ORDER, "dashboard"))
    report = build.build_report(read_study(tiny_study_path), tmp_path / "out", lang="en")
    keys = [s.key for s in report.sections]
    assert keys.index("dashboard") == keys.index("trends") + 1
    national = report.table("rates_national")
    assert report.table("dashboard")["births"].tolist() == national["births"].tolist()
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    total = int(national["births"].sum())
    assert f"<p>{total} &lt;births&gt;</p>" in html  # text from data escaped by the template
    assert (tmp_path / "out" / "tables" / "dashboard.csv").exists()


def test_a_failing_section_says_why_and_the_report_goes_on(tiny_study_path, tmp_path, monkeypatch):
    def broken(results, page):
        raise ValueError("no <dashboard> today")

    monkeypatch.setattr(build, "STEPS", [*sections.STEPS, sections.Step("dashboard", "rates", broken)])
    report = build.build_report(read_study(tiny_study_path), tmp_path / "out", lang="en")
    rates = next(s for s in report.sections if s.key == "rates")
    assert rates.blocks[-1].kind == "unavailable"
    assert rates.blocks[-1].text == "the analysis failed (ValueError: no <dashboard> today)"
    assert "Rates: the analysis failed (ValueError: no <dashboard> today)" in " ".join(report.excluded)
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "no &lt;dashboard&gt; today" in html and "no <dashboard>" not in html
    assert report.headline["national"]["year"] == 2012  # the rest of the report is there


@pytest.mark.parametrize("value, escaped", [('a "b" & <c>', "a &quot;b&quot; &amp; &lt;c&gt;"),
                                            ("l'Aysén", "l&#x27;Aysén")])
def test_values_are_escaped_as_before(value, escaped):
    from brecha.report.html import _render

    block = Block("text", title=value, text=value)
    assert str(_render("block.html.j2", b=block, extra="")) == f"<h3>{escaped}</h3><p>{escaped}</p>"
