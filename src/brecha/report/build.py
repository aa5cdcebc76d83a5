"""Build a study's report: load its Panel, run the steps of :data:`brecha.report.sections.STEPS` (each an
analysis of :mod:`brecha.report.analyses`, then its section), assemble the sections and write the files.

:func:`build_report` takes a parsed study (:class:`brecha.study.Study`; this package never reads study
files) and writes ``index.html``, ``brecha.xlsx``, ``tables/*.csv`` and ``figures/*``. An analysis whose
module is missing, or that cannot run on these data, becomes a section that says "not available" and why;
everything else still gets reported.
"""
from __future__ import annotations

import time
import warnings
from pathlib import Path

from .. import progress as live
from ..i18n import get_language, set_language
from ..outputs import stop_if_interrupted
from .analyses import StudyResults
from .blocks import Block, Report, Section  # noqa: F401 - the report's contract, importable from here
from .calls import Unavailable, _reason, _strict, environment_failure
from .headline import extreme_fifths, log_linear_apc  # noqa: F401 - importable from here, as before
from .labels import L, set_outcome
from .page import Page
from . import ahead, forked, load_ahead
from .files_ahead import FilesAhead
from .sections import FURTHER_OUTCOME, ORDER, STEPS, data, methods, other_outcomes


def build_report(study, output_dir, *, lang: str | None = None, progress=None, write: bool = True) -> Report:
    """Run ``study`` and write its report into ``output_dir`` (created if needed). Returns the Report."""
    lang = lang or study.language or get_language()
    previous = get_language()
    set_language(lang)  # messages of the analysis modules (panel notes, model notes) in the report's language
    previous_outcome = set_outcome(study.outcomes[0])  # labels name this outcome's rate (IMR, NMR, PNMR)
    try:
        with live.task("report") as bar:  # a bar on stderr when the caller switched progress on
            return _build(study, output_dir, lang, progress, write, bar)
    except OSError as exc:  # e.g. the disk filled up while a figure was drawn: named, the earlier report kept
        if output_dir is None or not environment_failure(exc):
            raise
        from ..outputs import os_error

        raise os_error(exc, output_dir) from None
    finally:
        set_language(previous)
        set_outcome(previous_outcome)


def _build(study, output_dir, lang, progress, write, bar=None) -> Report:
    report = Report(study=study, lang=lang, title=study.title_in(lang) or L("report", lang))
    clock = _Clock(progress, lang, report.timings, bar)
    with forked.session():  # the children of the whole report, the files' included (files_ahead.py)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with clock(L("p_load", lang)):
                # in a child while this process imports and prepares the files, when it pays
                panel = load_ahead.load(study, report, meanwhile=(lambda: _prepare_files(report)) if write else None)
            report.panel = panel
            if panel.country == "BR":  # shown first: it qualifies every Brazilian number of the report
                report.notes.insert(0, L("br_underreg", lang))
            have = list(getattr(panel, "outcomes", []) or [])
            for name in study.outcomes[1:]:
                if have and name not in have:
                    report.excluded.append(L("ex_outcome_absent", lang, outcome=name, have=", ".join(have)))
            ahead_files = FilesAhead.when_useful(report, write)
            with panel.events_remembered():  # the analyses ask for the same few tables again and again
                _assemble(report, study, panel, lang, clock, ahead_files, prepare=_prepare_files if write else None)
            for w in caught:
                text = str(w.message)
                if text not in report.warnings and "Ignoring fixed" not in text:
                    report.warnings.append(text)
        if write:
            with clock(L("p_write", lang)):
                write_report(report, Path(output_dir), ahead_files=ahead_files)
    return report


def _assemble(report: Report, study, panel, lang: str, clock, ahead_files=None, prepare=None) -> None:
    """The first outcome's steps (analyses, then figures), the further outcomes' sections, the data and
    the methods, into ``report.sections`` in the order the page shows them. ``ahead_files``: the files of
    the first tables, written in a child once it pays (:mod:`brecha.report.files_ahead`); ``prepare(report)``:
    run once, the first time the report is about to wait for an analysis computed in a child."""
    page = Page(report, study, panel, lang)
    results = StudyResults(study, panel, page.outcome)
    started = ahead.start(STEPS, results)  # computed in children meanwhile, when a core is idle (ahead.py)
    for step in STEPS:
        if step.phase == "analysis":
            pending = started.get(step.key)
            waiting = pending is not None and not pending.done()
            if ahead_files is not None:
                ahead_files.offer(waiting=waiting, idle=all(child.done() for child in started.values()))
            if waiting and prepare is not None:
                prepare(report)
                prepare = None
            _run(step, results, page, clock, pending)
    if ahead_files is not None:
        ahead_files.offer(last=True)
    with clock(L("p_figures", lang)):
        for step in STEPS:
            if step.phase == "figures":
                _run(step, results, page, clock)
    for step in STEPS:
        if step.phase == "finish" and step.wanted(study):
            step.build(results, page)
    others = _further_outcomes(report, study, panel, lang, clock)
    data.build(results, page)
    report.sections = [page.sections[k] for k in ORDER if k in page.sections]
    report.sections.extend(others)
    if "data" in page.sections:
        report.sections.append(page.sections["data"])
    report.sections.append(methods.build(results, page))


def _further_outcomes(report: Report, study, panel, lang: str, clock) -> list[Section]:
    """The study's further outcomes the data have: each one's steps on its own page, as one section."""
    have = set(getattr(panel, "outcomes", []) or [])
    out = []
    for name in study.outcomes[1:]:
        if name not in have:
            continue
        previous = set_outcome(name)
        try:
            page = Page(report, study, panel, lang, outcome=name)
            results = StudyResults(study, panel, name)
            for step in STEPS:
                if step.key in FURTHER_OUTCOME and step.phase == "analysis":
                    _run(step, results, page, clock)
            out.append(other_outcomes.build(results, page))
        finally:
            set_outcome(previous)
    return out


def _run(step, results: StudyResults, page: Page, clock, pending=None) -> None:
    """One step, timed: its analysis (or, ``pending``, the results a child computed ahead), then its section.
    A failure shows as "not available" in the section and in the exclusions; one failing analysis never
    sinks the report (a full disk does: it would meet every later file too)."""
    stop_if_interrupted()  # a Ctrl-C Python dropped (brecha.outputs.ctrl_c_watched): stop at the next step
    if not step.wanted(results.study) or (step.when is not None and not step.when(results)):
        return
    lang, report = page.lang, page.report
    label = L(f"s_{step.section}", lang)
    if page.suffix:
        label = f"{label}, {L(f'outcome_{page.outcome}', lang)}"
    with clock(L("p_analysis", lang, name=label if step.key == step.section else f"{label} ({step.key})")):
        try:
            if pending is not None:
                ahead.collect(pending, step, results)
            elif step.compute is not None:
                step.compute(results)
            step.build(results, page)
        except Unavailable as exc:
            page.section(step.section).add(Block("unavailable", text=str(exc)))
            report.excluded.append(L("ex_analysis", lang, analysis=label, reason=str(exc)))
        except Exception as exc:  # noqa: BLE001 - one failing analysis must not sink the report
            if _strict() or environment_failure(exc):  # a full disk is not this analysis' failure
                raise
            reason = _reason(exc, lang)
            page.section(step.section).add(Block("unavailable", text=reason))
            report.excluded.append(L("ex_analysis", lang, analysis=label, reason=reason))
        finally:  # the caveats the analysis found (e.g. unit-years left out of a total) join the report's
            report.notes.extend(results.notes)
            results.notes.clear()


def write_report(report: Report, out: Path, ahead_files=None) -> dict:
    """Write index.html, brecha.xlsx, tables/*.csv, figures/* and dashboard.html into ``out`` (those of them
    the study asks for: :mod:`brecha.report_files`); returns the paths written.

    The files are written into a temporary folder beside ``out`` and moved in once all are complete
    (:func:`brecha.report.folder.report_folder`): an earlier report stays whole until then, and only files
    brecha wrote (listed in ``out/.brecha-manifest.json``) are ever replaced or removed. ``ahead_files``: the
    first tables' files written ahead (:class:`brecha.report.files_ahead.FilesAhead`), if any."""
    from . import excel, html
    from ..csv_text import write_csv
    from ..report_files import wanted
    from .dashboard import FILENAME  # the same tables, explorable offline (issue 16)
    from .folder import report_folder

    out = Path(out)
    page, workbook_wanted, csv_wanted, dashboard_wanted = (wanted(report, name) for name in
                                                           ("page", "workbook", "tables", "dashboard"))
    if page or dashboard_wanted:
        # the page's and the dashboard's templates: jinja2 imported once, before the dashboard's child forks
        import jinja2  # noqa: F401

    with report_folder(out) as stage, forked.joined() as children:
        if csv_wanted:
            (stage / "tables").mkdir()
        if page:
            (stage / "figures").mkdir()
        # the dashboard and the workbook (the largest files to make), each in a child when a core is idle,
        # while the CSVs, figures and page are written here; the same bytes as the serial order below. The
        # first tables' CSV files and sheets may have been written ahead (files_ahead.py): the workbook's child
        # starts from its sheets, before the other CSV files when that child has ended, else after them (the
        # report then waits for it there); its CSV files are moved in after the others.
        dashboard, workbook = stage / FILENAME, stage / "brecha.xlsx"
        pending = []
        if children and dashboard_wanted:
            pending.append((dashboard, children.submit(_write_dashboard, report, dashboard)))

        def start_workbook():
            written = ahead_files.written() if ahead_files is not None else None
            pending.append((workbook, children.submit(excel.write_workbook, report, workbook, written)))

        # at once when the first tables' child has ended (or there is none): the workbook is then written
        # beside the CSV files below instead of after them (Brazil's report: its child started 0.3 s later
        # and was the last thing to finish; issue 19)
        workbook_now = bool(children) and workbook_wanted and (ahead_files is None or ahead_files.ended())
        if workbook_now:
            start_workbook()
        ahead = [] if ahead_files is None else ahead_files.names
        for name, (df, _title) in report.tables.items():
            if csv_wanted and name not in ahead:
                write_csv(df, stage / "tables" / f"{name}.csv")  # df.to_csv(..., index=False)'s bytes, faster
        if children:
            for name in ahead if csv_wanted else ():
                path = stage / "tables" / f"{name}.csv"
                if name in report.tables and not ahead_files.move_csv(name, path):  # not usable: written here
                    write_csv(report.tables[name][0], path)
            if workbook_wanted and not workbook_now:
                start_workbook()
        if page:
            seen = set()
            for fig in report.figures:
                if fig.filename in seen:
                    continue
                seen.add(fig.filename)
                (stage / "figures" / fig.filename).write_bytes(fig.data)
            (stage / "index.html").write_text(html.render_html(report), encoding="utf-8")
        if not children:
            if dashboard_wanted:
                _write_dashboard(report, dashboard)
            if workbook_wanted:
                excel.write_workbook(report, workbook)
        for path, child in pending:
            _written(child, path)
    files = {"html": out / "index.html", "excel": out / "brecha.xlsx", "tables": out / "tables",
             "figures": out / "figures", "dashboard": out / FILENAME}
    kept = {"html": page, "excel": workbook_wanted, "tables": csv_wanted, "figures": page,
            "dashboard": dashboard_wanted}
    files = {key: path for key, path in files.items() if kept[key]}
    report.files = files
    return files


def _prepare_files(report: Report) -> None:
    """What writing the page and the dashboard needs first: jinja2 imported, their templates compiled, their
    stylesheets and script read (about 0.1 s of CPU). The report does it while a child loads the data (after
    the imports this process does meanwhile, it would otherwise wait), else while it waits for an analysis
    computed in a child, instead of at the end, where every file is written and nothing else is left to
    overlap with (issue 19); done twice, the second time finds them in the caches (0.06 ms). The same
    templates and assets: the same files."""
    from ..report_files import wanted

    if wanted(report, "page"):
        from . import html

        html.prepare()
    if wanted(report, "dashboard"):
        from . import dashboard

        dashboard.prepare()


def _write_dashboard(report: Report, path: Path) -> None:
    from .dashboard import render_dashboard

    path.write_text(render_dashboard(report), encoding="utf-8")


def _written(pending, path: Path) -> None:
    """Wait for the child writing ``path``; its error (a full disk, ...) is raised here as in a serial run."""
    forked.value_of(pending, died=lambda code: forked.WriteError(forked.MSG("died", name=path.name, code=code)),
                    failed=lambda text: forked.WriteError(forked.MSG("failed", name=path.name, reason=text)))


class _Clock:
    """Times steps; announces those that take more than a second."""

    def __init__(self, progress, lang, timings, bar=None):
        self.progress = progress
        self.lang = lang
        self.timings = timings
        self.bar = bar  # brecha.progress step: names the step under way

    def __call__(self, step: str):
        clock = self

        class _Step:
            def __enter__(self_inner):
                self_inner.t0 = time.perf_counter()
                if clock.bar is not None:
                    clock.bar.describe(step)
                return self_inner

            def __exit__(self_inner, *exc):
                seconds = time.perf_counter() - self_inner.t0
                clock.timings[step] = seconds
                if clock.bar is not None:
                    clock.bar(1)
                if clock.progress and seconds > 1.0:
                    from .formatting import localise

                    clock.progress(L("p_done", clock.lang, step=step,
                                     seconds=localise(f"{seconds:,.1f}", clock.lang)))
                return False

        return _Step()
