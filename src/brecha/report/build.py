"""Run the analyses of a study and collect what the report shows: tables, figures, headline findings.

:func:`build_report` is the orchestrator: it loads the Panel named by the study, runs each requested
analysis through the public API of its module (rates, disparity, smoothing, trends, inequality, models),
computes the headline numbers, draws the figures and writes ``index.html``, ``brecha.xlsx``,
``tables/*.csv`` and ``figures/*``. An analysis whose module is missing, or that cannot run on these data,
becomes a section that says "not available" and why; everything else still gets reported.

Headline gap (computed here, plain arithmetic on counts): the units are sorted by their rate over the
whole period (empirical-Bayes smoothed when smoothing ran, so small units do not land in the extremes by
chance) and cut into fifths of births; each fifth's rate per year is ΣD/ΣLB × 1000, and the gap is the
ratio of the highest to the lowest fifth (Kunst & Mackenbach 1994's rate ratio of extreme groups). Its
direction is the annual percent change of that ratio, APC = (e^b − 1) × 100 from an OLS fit of ln(ratio)
on year, with a t-based 95 % CI (a gap "closes" when the whole CI is below 0).
"""
from __future__ import annotations

import datetime as _dt
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import progress as live
from ..i18n import get_language, set_language
from .calls import Unavailable, _call, _function, _module, _reason, _strict, environment_failure
from .data import (_names, _provenance_text, _region_map, _span_text, _unit_word, _units_word,  # noqa: F401
                   load_study_panel)
from .headline import extreme_fifths, log_linear_apc, rate_ratio_ci
from .labels import (TREND_KEYS, L, cell_label, covariate_label, covariate_with_code, relabel_covariates, set_outcome,
                     trend_codes, trend_word)
from ..panel import OUTCOMES


# ------------------------------------------------------------------------------------------ containers

@dataclass
class Block:
    kind: str  # "table" | "figure" | "text" | "unavailable" | "list" | "pre"
    title: str = ""
    table: str = ""  # name in Report.tables
    figure: object = None
    text: str = ""
    items: list = field(default_factory=list)
    max_rows: int = 400
    columns: list | None = None
    outcome: str = ""  # set on the blocks of a further outcome's section: its labels name that outcome's rate
    column_labels: dict | None = None  # headers of columns named from data (e.g. ``poverty_2015``)


@dataclass
class Section:
    key: str
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)


@dataclass
class Report:
    study: object
    lang: str
    title: str
    panel: object = None
    tables: dict = field(default_factory=dict)  # name -> (DataFrame, title)
    figures: list = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    headline: dict = field(default_factory=dict)
    excluded: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    reference_label: str = ""

    def table(self, name: str) -> pd.DataFrame | None:
        item = self.tables.get(name)
        return None if item is None else item[0]


# ------------------------------------------------------------------------------------------------ main

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
    _NUMBERS["lang"] = lang
    clock = _Clock(progress, lang, report.timings, bar)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with clock(L("p_load", lang)):
            panel = load_study_panel(study, report)
        report.panel = panel
        if panel.country == "BR":  # shown first: it qualifies every Brazilian number of the report
            report.notes.insert(0, L("br_underreg", lang))
        have = list(getattr(panel, "outcomes", []) or [])
        for name in study.outcomes[1:]:
            if have and name not in have:
                report.excluded.append(L("ex_outcome_absent", lang, outcome=name, have=", ".join(have)))
        runner = _Runner(report, study, panel, lang, clock)
        runner.run_all()
        for w in caught:
            text = str(w.message)
            if text not in report.warnings and "Ignoring fixed" not in text:
                report.warnings.append(text)
    if write:
        with clock(L("p_write", lang)):
            write_report(report, Path(output_dir))
    return report


def write_report(report: Report, out: Path) -> dict:
    """Write index.html, brecha.xlsx, tables/*.csv and figures/* into ``out``; returns the paths.

    The files are written into a temporary folder beside ``out`` and moved in once all are complete
    (:func:`brecha.report.folder.report_folder`): an earlier report stays whole until then, and only files
    brecha wrote (listed in ``out/.brecha-manifest.json``) are ever replaced or removed."""
    from .excel import write_workbook
    from .folder import report_folder
    from .html import render_html

    out = Path(out)
    with report_folder(out) as stage:
        (stage / "tables").mkdir()
        (stage / "figures").mkdir()
        for name, (df, _title) in report.tables.items():
            df.to_csv(stage / "tables" / f"{name}.csv", index=False)
        seen = set()
        for fig in report.figures:
            if fig.filename in seen:
                continue
            seen.add(fig.filename)
            (stage / "figures" / fig.filename).write_bytes(fig.data)
        write_workbook(report, stage / "brecha.xlsx")
        (stage / "index.html").write_text(render_html(report), encoding="utf-8")
    files = {"html": out / "index.html", "excel": out / "brecha.xlsx", "tables": out / "tables",
             "figures": out / "figures"}
    report.files = files
    return files


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
                    from .html import localise

                    clock.progress(L("p_done", clock.lang, step=step,
                                     seconds=localise(f"{seconds:,.1f}", clock.lang)))
                return False

        return _Step()


# ---------------------------------------------------------------------------------------- the runner

class _Runner:
    def __init__(self, report: Report, study, panel, lang: str, clock, outcome: str | None = None):
        self.r = report
        self.study = study
        self.panel = panel
        self.lang = lang
        self.clock = clock
        self.outcome = outcome or study.outcomes[0]
        # a further outcome's runner names its tables and figures with the outcome (rates_national_neonatal)
        self.suffix = "" if self.outcome == study.outcomes[0] else f"_{self.outcome}"
        self.years = panel.years
        self.period = f"{self.years[0]}-{self.years[-1]}" if len(self.years) > 1 else str(self.years[0])
        self.unit = _unit_word(panel, lang)
        self.units = _units_word(panel, lang)
        self.names = _names(panel)
        self.smoothed: pd.Series | None = None  # unit -> smoothed pooled rate
        self.trend_classes: pd.Series | None = None
        self.reference: tuple | None = None  # (codes, label) of the study's reference, once resolved
        self.sections: dict[str, Section] = {}
        # the births caveat of the embedded Chilean data, repeated wherever rates of 2000-2009 show
        self.caveat = ""
        if any(("15-49" in str(n) or "15 a 49" in str(n)) for n in panel.notes) and min(self.years) <= 2009:
            self.caveat = " " + L("births_caveat_short", lang)

    # helpers -----------------------------------------------------------------------------------
    def section(self, key: str) -> Section:
        if key not in self.sections:
            self.sections[key] = Section(key, L(f"s_{key}", self.lang))
        return self.sections[key]

    def add_table(self, name: str, df: pd.DataFrame, title: str, section: str | None = None,
                  columns=None, max_rows: int = 400, column_labels: dict | None = None) -> None:
        name = name + self.suffix
        self.r.tables[name] = (df, title)
        if section:
            self.section(section).add(Block("table", title=title, table=name, columns=columns,
                                             max_rows=max_rows, column_labels=column_labels))

    def cov_label(self, name) -> str:
        """A covariate's name for reading (``poverty`` -> income poverty (%))."""
        return covariate_label(name, self.lang, getattr(self.panel, "country", None))

    def cov_code(self, name) -> str:
        """A covariate's label with its column name, where a reader may want both."""
        return covariate_with_code(name, self.lang, getattr(self.panel, "country", None))

    def add_figure(self, fig, section: str) -> None:
        if fig is None:
            return
        if self.suffix and not fig.name.endswith(self.suffix):
            fig.name += self.suffix
        self.r.figures.append(fig)
        self.section(section).add(Block("figure", figure=fig))

    def guarded(self, key: str, section: str, fn) -> None:
        label = L(f"s_{section}", self.lang)
        if self.suffix:
            label = f"{label}, {L(f'outcome_{self.outcome}', self.lang)}"
        with self.clock(L("p_analysis", self.lang, name=label if key == section else f"{label} ({key})")):
            try:
                fn()
            except Unavailable as exc:
                self.section(section).add(Block("unavailable", text=str(exc)))
                self.r.excluded.append(L("ex_analysis", self.lang, analysis=label, reason=str(exc)))
            except Exception as exc:  # noqa: BLE001 - one failing analysis must not sink the report
                if _strict() or environment_failure(exc):  # a full disk is not this analysis' failure
                    raise
                reason = _reason(exc, self.lang)
                self.section(section).add(Block("unavailable", text=reason))
                self.r.excluded.append(L("ex_analysis", self.lang, analysis=label, reason=reason))

    # the flow ----------------------------------------------------------------------------------
    def run_all(self) -> None:
        s = self.study
        self.guarded("rates", "rates", self.rates)
        if s.wants("smoothing") or s.wants("maps"):
            self.guarded("smoothing", "maps", self.smoothing)
        if s.wants("disparity"):
            self.guarded("disparity", "disparity", self.disparity)
        if s.wants("trends"):
            self.guarded("trends", "trends", self.trends)
        if s.wants("distribution"):
            self.guarded("distribution", "distribution", self.distribution)
        if s.wants("inequality"):
            self.guarded("inequality", "inequality", self.inequality)
        if s.wants("covariate_inequality"):
            self.guarded("covariate", "covariate", self.covariate_inequality)
        if s.wants("funnel"):
            self.guarded("funnel", "funnel", self.funnel)
        if s.wants("models"):
            self.guarded("models", "models", self.models)
        with self.clock(L("p_figures", self.lang)):
            self.guarded("headline", "rates", self.headline)
            if s.wants("maps"):
                self.guarded("maps", "maps", self.maps)
        self._smoothed_table_block()
        others = self.other_outcomes()
        self.data_section()
        order = ["rates", "disparity", "trends", "maps", "funnel", "distribution", "inequality", "covariate",
                 "models"]
        self.r.sections = [self.sections[k] for k in order if k in self.sections]
        self.r.sections.extend(others)
        if "data" in self.sections:
            self.r.sections.append(self.sections["data"])
        self.r.sections.append(self.methods_section())

    # further outcomes -----------------------------------------------------------------------------
    def other_outcomes(self) -> list[Section]:
        """The study's further outcomes the data have (DEIS microdata carry neonatal and post-neonatal
        deaths): for each, national and per-unit rates, the gap against the reference (when the study asks
        for disparity) and the trends (when it asks for trends), in one section per outcome whose tables
        and figures carry the outcome in their names (``rates_national_neonatal``). The first screen stays
        about the first outcome and names the others in one line each."""
        have = set(getattr(self.panel, "outcomes", []) or [])
        out = []
        for name in self.study.outcomes[1:]:
            if name not in have:
                continue
            previous = set_outcome(name)
            try:
                sub = _Runner(self.r, self.study, self.panel, self.lang, self.clock, outcome=name)
                sub.caveat = self.caveat
                sub.guarded("rates", "rates", sub.rates)
                if self.study.wants("disparity"):
                    sub.guarded("disparity", "disparity", sub.disparity)
                if self.study.wants("trends"):
                    sub.guarded("trends", "trends", sub.trends)
                section = Section(f"outcome_{name}", L("s_outcome", self.lang,
                                                       outcome=L(f"outcome_{name}", self.lang)))
                for key in ("rates", "disparity", "trends"):
                    if key in sub.sections:
                        section.add(Block("heading", title=sub.sections[key].title, outcome=name))
                        for block in sub.sections[key].blocks:
                            block.outcome = name
                            section.add(block)
                out.append(section)
                self._other_headline(sub, section)
            finally:
                set_outcome(previous)
        return out

    def _other_headline(self, sub, section: Section) -> None:
        """One line on the first screen per further outcome: its last national rate, the first year's, and
        the class of its national trend."""
        national = getattr(sub, "national", None)
        if national is None:
            return
        nat = national.dropna(subset=["estimate"]).sort_values("year")
        if not len(nat):
            return
        first, last = nat.iloc[0], nat.iloc[-1]
        fields = dict(rate=L(f"rate_{sub.outcome}", self.lang), last=_fmt(last["estimate"], 1), y1=int(last["year"]),
                      first=_fmt(first["estimate"], 1), y0=int(first["year"]), section=section.title)
        trend = getattr(sub, "national_trend", None)
        if trend is not None and len(trend) and all(pd.notna(trend.iloc[0].get(c))
                                                    for c in ("apc", "apc_lower", "apc_upper")):
            row = trend.iloc[0]
            word = trend_word(trend_codes(trend).iloc[0], self.lang)
            fields.update(trend=word, apc=_fmt(row["apc"], 1), lo=_fmt(row["apc_lower"], 1),
                          hi=_fmt(row["apc_upper"], 1))
            text = L("h_other_text", self.lang, **fields)
        else:
            text = L("h_other_text_notrend", self.lang, **fields)
        self.r.headline.setdefault("others", []).append(
            {"outcome": sub.outcome, "section": section.key, "text": text,
             "value": float(last["estimate"]), "year": int(last["year"])})

    # rates --------------------------------------------------------------------------------------
    def rates(self) -> None:
        rates = _function("rates", "rates", self.lang)
        opts = self.study.analyses.get("rates", {"ci": "exact", "level": 0.95})
        kw = dict(outcome=self.outcome, years=self.years, ci=opts["ci"], conf_level=opts["level"])
        national = _call(rates, self.national_events(), pool=False, **kw)
        national["year"] = national["period"].astype(int)
        self.add_table("rates_national", national, L("t_national", self.lang), "rates",
                       columns=["year", "events", "births", "estimate", "lower", "upper", "method", "flag"])
        pooled = _call(rates, self.panel, pool=True, **kw)
        pooled = self._with_region(pooled)
        per_year = _call(rates, self.panel, pool=False, **kw)
        per_year["year"] = per_year["period"].astype(int)
        self.r.tables["rates_units_year" + self.suffix] = (per_year, L("t_units_year", self.lang, unit=self.unit))
        nat_pooled = _call(rates, self.national_events(), pool=True, **kw)
        self.r.tables["rates_national_pooled" + self.suffix] = (nat_pooled, L("t_national", self.lang))
        from . import figures as F

        series = national.assign(label=L("country_total", self.lang))[["label", "year", "estimate", "lower",
                                                                       "upper"]]
        method = str(national["method"].iloc[0]) if len(national) else ""
        self.national_figure_index = len(self.r.figures)
        self.add_figure(F.line_chart("national_rate", series, ylabel=f"{L('imr_short', self.lang)} "
                                     f"({L('per_1000', self.lang)})",
                                     caption=L("cap_national", self.lang,
                                               method=cell_label("method", method, self.lang)) + self.caveat),
                         "rates")
        units_col = self.panel.units
        if units_col is not None and "region" in units_col and 1 < units_col["region"].nunique() <= 30:
            # regions summed over their units that have data (Panel.aggregate(incomplete="available"))
            regions = self._paired_counts().aggregate("region", incomplete="available")
            reg = _call(rates, regions, pool=False, **kw)
            reg["year"] = reg["period"].astype(int)
            self.add_table("rates_regions", reg, L("t_regions", self.lang))
            self.regions_year = reg
        self.add_table("rates_units_pooled", pooled, L("t_units_pooled", self.lang, unit=self.unit,
                                                          period=self.period), "rates",
                       columns=["unit", "name", "region", "events", "births", "estimate", "lower", "upper",
                                "flag"])
        self.pooled = pooled
        self.per_year = per_year
        self.national = national

    def national_events(self) -> pd.DataFrame:
        """Deaths and births of the whole study area per year (``Panel.aggregate("country",
        incomplete="available")``: the sums over the units that have data, with ``units_missing`` and a note,
        e.g. for the 162 Brazilian municipality-years without births)."""
        if not hasattr(self, "_national_events"):
            panel = self._paired_counts()
            total = panel.aggregate("country", incomplete="available")
            ev = total.events(self.outcome, years=self.years)
            ev = ev.assign(unit="TOTAL").dropna(subset=["events", "births"])
            self._national_events = ev[["unit", "year", "events", "births"]].reset_index(drop=True)
            # only the note on unit-years left out of the sums (not the generic "aggregated" one)
            self.r.notes.extend(str(n) for n in total.notes
                                if str(n) not in self.panel.notes and "units_missing" in str(n))
        return self._national_events

    def _paired_counts(self):
        """The panel with a unit-year's deaths and births both blanked when only one of them is known, so that
        sums over the units that have data (``Panel.aggregate(level, incomplete="available")``, which sums each
        count over the members that have it) never count deaths without their births (2 Brazilian
        municipality-years have deaths but no births)."""
        from ..panel import OUTCOMES, Panel

        panel, col = self.panel, OUTCOMES[self.outcome]
        d = panel.data
        lone = d["births"].isna() != d[col].isna()
        if not lone.any():
            return panel
        d = d.copy()
        d.loc[lone, ["births", col]] = pd.NA
        return Panel(d, panel.units, panel.country, panel.source, panel.notes, panel.registry, validate=False)

    def _with_region(self, table: pd.DataFrame) -> pd.DataFrame:
        u = self.panel.units
        if u is None or "region_name" not in u or "region" in table:
            return table
        reg = {k: _short_region(v) for k, v in zip(u["unit"].astype(str), u["region_name"].astype(str))}
        out = table.copy()
        pos = list(out.columns).index("name") + 1 if "name" in out else 1
        out.insert(pos, "region", out["unit"].map(reg))
        return out

    # smoothing ----------------------------------------------------------------------------------
    def smoothing(self) -> None:
        smooth = _function("smoothing", "smooth", self.lang)
        opts = self.study.analyses.get("smoothing", {"prior": "global"})
        table = _call(smooth, self.panel, outcome=self.outcome, years=self.years, pool=True,
                      prior=opts.get("prior", "global"))
        col = _first(table, ("smoothed", "smoothed_rate", "eb_rate", "estimate"))
        self.smoothed = pd.Series(table[col].astype(float).to_numpy(), index=table["unit"].astype(str))
        self.smoothed_ci = pd.DataFrame({"lower": table["lower"].astype(float).to_numpy(),
                                         "upper": table["upper"].astype(float).to_numpy()},
                                        index=table["unit"].astype(str))
        self.smooth_method = str(table["method"].iloc[0]) if "method" in table and len(table) else "EB"
        self.add_table("smoothed", table, L("t_smoothed", self.lang, period=self.period))

    # disparity ----------------------------------------------------------------------------------
    def disparity(self) -> None:
        disparity = _function("disparity", "disparity", self.lang)
        opts = self.study.analyses["disparity"]
        ref = self.study.reference
        resolve = getattr(_module("disparity", self.lang), "resolve_reference", None)
        if resolve is not None:
            codes, label = _call(resolve, self.panel, ref, years=self.years, outcome=self.outcome)
            self.reference = (list(codes), label)
            if not self.suffix:
                self.r.reference_label = label
            else:  # the best unit is chosen on this outcome's rates: say which it is
                self.section("disparity").add(Block("text", text=L("d_reference", self.lang, ref=label)))
            ref = (list(codes), label)
        from . import figures as F

        if opts["per_year"]:
            per_year = _call(disparity, self.panel, ref, outcome=self.outcome, years=self.years, pool=False,
                             conf_level=opts["level"])
            per_year["year"] = pd.to_numeric(per_year["period"], errors="coerce")
            total = per_year[per_year["unit"] == "TOTAL"].copy()
            self.add_table("disparity_total_year", total, L("t_disparity_total", self.lang), "disparity",
                           columns=["period", "measure", "estimate", "lower", "upper", "method"])
            if len(self.panel.unit_codes) <= LARGE:
                self.r.tables["disparity_units_year" + self.suffix] = (per_year[per_year["unit"] != "TOTAL"],
                                                         L("t_disparity_units", self.lang, unit=self.unit,
                                                           period=L("per_year", self.lang)))
            else:
                self.r.excluded.append(L("ex_large_table", self.lang, n=_int(len(self.panel.unit_codes)),
                                           limit=_int(LARGE)))
            chart = total[total["measure"].isin(["par_percent"])].assign(
                label=L("m_par_percent", self.lang))
            if len(chart):
                self.add_figure(F.line_chart("disparity_par_percent", chart[["label", "year", "estimate", "lower",
                                                                             "upper"]],
                                             ylabel=L("m_par_percent", self.lang),
                                             caption=L("cap_disparity", self.lang)), "disparity")
            self.disparity_year = total
        if opts["pooled"] or opts["focus"]:
            pooled = _call(disparity, self.panel, ref, outcome=self.outcome, years=self.years, pool=True,
                           conf_level=opts["level"])
            total = pooled[pooled["unit"] == "TOTAL"]
            self.add_table("disparity_total_pooled", total, L("t_disparity_total", self.lang) + f", {self.period}",
                           "disparity", columns=["period", "measure", "estimate", "lower", "upper", "method"])
            units = pooled[pooled["unit"] != "TOTAL"]
            wide = _wide_disparity(units)
            wide = self._with_region(wide)
            self.disparity_pooled = pooled
            if opts["focus"]:
                focus = wide[wide["unit"].isin(opts["focus"])].copy()
                cov = opts.get("focus_covariate") or ""
                column_labels = {}
                columns = ["unit", "name", "events", "births", "rate", "rr", "rr_lower", "rr_upper", "ar",
                           "ar_lower", "ar_upper", "ar_pct", "ar_pct_lower", "ar_pct_upper"]
                if cov:
                    if cov in self.panel.covariates:
                        # the value of one stated year (the last of the study with data), not a mean across
                        # years: survey covariates change definition (poverty: new line from 2013)
                        d = self.panel.data
                        seen = d.loc[d[cov].notna() & d["unit"].isin(opts["focus"]), "year"]
                        if len(seen):
                            year = int(seen.max())
                            column = f"{cov}_{year}"
                            values = d[d["year"] == year].set_index("unit")[cov]
                            focus.insert(2, column, focus["unit"].map(values).astype(float).to_numpy())
                            columns.insert(2, column)
                            column_labels[column] = f"{self.cov_label(cov)} {year}"
                    else:
                        self.r.excluded.append(L("ex_covariate", self.lang, name=self.cov_code(cov),
                                                 reason=L("missing", self.lang)))
                self.add_table("disparity_focus", focus, L("t_focus", self.lang, units=self.units), "disparity",
                               columns=columns, column_labels=column_labels)
            self.add_table("disparity_units_pooled", wide,
                           L("t_disparity_units", self.lang, unit=self.unit, period=self.period), "disparity")

    # trends -------------------------------------------------------------------------------------
    def trends(self) -> None:
        trends = _function("trends", "trends", self.lang)
        opts = self.study.analyses["trends"]
        kw = dict(outcome=self.outcome, years=self.years, method=opts["method"], zero=opts["zero"],
                  alpha=opts["alpha"])
        national = _call(trends, self.national_events(), **kw)
        table = _call(trends, self.panel, **kw)
        table = self._with_region(table)
        if "row" in table.columns:  # joinpoint: the AAPC row (whole period) classifies the unit
            rank = table["row"].astype(str).map({"aapc": 0, "unit": 1}).fillna(2)
            per_unit = table.assign(_rank=rank.to_numpy()).sort_values(["unit", "_rank"], kind="stable")
            per_unit = per_unit.drop_duplicates("unit").drop(columns="_rank")
        else:
            per_unit = table
        codes = trend_codes(per_unit)
        self.trend_classes = pd.Series(codes.to_numpy(), index=per_unit["unit"].astype(str))
        self.national_trend = national
        counts = codes.value_counts()
        order = [k for k in TREND_KEYS if k in counts.index]
        classes = pd.DataFrame({"code": order, "trend": [trend_word(k, self.lang) for k in order],
                                "n": [int(counts[k]) for k in order]})
        row = national.iloc[0] if len(national) else None
        if row is not None and pd.notna(row.get("apc")):
            self.section("trends").add(Block("text", text=L(
                "cap_trend_national", self.lang, apc=_fmt(row["apc"], 2), lo=_fmt(row["apc_lower"], 2),
                hi=_fmt(row["apc_upper"], 2), trend=trend_word(trend_codes(national).iloc[0], self.lang))))
        if hasattr(self, "regions_year") and hasattr(self, "national"):
            from . import figures as F

            reg = self.regions_year.dropna(subset=["estimate"])
            names = dict(zip(reg["unit"].astype(str), reg.get("name", reg["unit"]).astype(str)))
            short = {u: _short_region(n) for u, n in names.items()}
            chart = reg.assign(measure=reg["unit"].astype(str))
            self.add_figure(F.small_multiples("trends_regions", chart, labels=short, ncols=4, sharey=True,
                                              reference=self.national[["year", "estimate"]],
                                              caption=L("cap_regions", self.lang) + self.caveat), "trends")
        self.add_table("trends_national", national, L("t_trends", self.lang, unit=L("country_total", self.lang)))
        self.add_table("trend_classes", classes, L("t_trend_classes", self.lang, units=self.units.capitalize()),
                       "trends", columns=["trend", "n"])
        self.add_table("trends_units", table, L("t_trends", self.lang, unit=self.unit), "trends",
                       columns=["unit", "name", "region", "row", "start_year", "end_year", "n_years", "apc",
                                "apc_lower", "apc_upper", "p_value", "rho", "trend", "note"])

    # distribution ------------------------------------------------------------------------------
    def distribution(self) -> None:
        if not hasattr(self, "per_year"):
            raise Unavailable(L("module_missing", self.lang, module="brecha.rates"))
        from . import figures as F

        py = self.per_year.dropna(subset=["estimate"])
        py = py[py["births"].astype(float) > 0]
        q = py.groupby("year")["estimate"].describe(percentiles=[0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95])
        q = q.rename(columns={"count": "n_units"}).reset_index()
        self.add_table("distribution", q, L("t_distribution", self.lang, units=self.units, unit=self.unit),
                       "distribution")
        self.add_figure(F.distribution_chart(
            "distribution", py[["year", "estimate"]], ylabel=f"{L('imr_short', self.lang)} ({L('per_1000', self.lang)})",
            national=self.national[["year", "estimate"]], national_label=L("country_total", self.lang),
            caption=L("cap_distribution", self.lang, units=self.units, unit=self.unit) + self.caveat), "distribution")

    # inequality ---------------------------------------------------------------------------------
    def inequality(self) -> None:
        fn = _inequality_function(self.lang)
        opts = self.study.analyses["inequality"]
        kw = dict(outcome=self.outcome, years=self.years, bootstrap=opts["bootstrap"], seed=opts["seed"])
        if opts["measures"]:
            kw["measures"] = opts["measures"]
        from . import figures as F

        # between all units (non-ordered), with the module's CIs whatever the number of units; D, R, PAR and
        # PAF against the study's reference (that of the disparity section), not WHO's default "best unit",
        # whose rate is 0 when the units are single communes (PAF = 100 %)
        ref = self.study_reference()
        ref_note = ""
        if ref is not None:
            from ..errors import InputError

            try:
                per_year = _call(fn, self.panel, pool=False, reference=ref[0], **kw)
                pooled = _call(fn, self.panel, pool=True, reference=ref[0], **kw)
                ref_note = L("ineq_reference_note", self.lang, ref=ref[1], section=L("s_disparity", self.lang),
                             unit=self.unit, units=self.units)
            except InputError as exc:  # e.g. a reference unit without births in some year
                ref = None
                ref_note = L("ineq_reference_fallback", self.lang, ref=self.r.reference_label or "-",
                             reason=str(exc).splitlines()[0], unit=self.unit)
        if ref is None:
            per_year = _call(fn, self.panel, pool=False, **kw)
            pooled = _call(fn, self.panel, pool=True, **kw)
        per_year = per_year.copy()
        per_year["year"] = pd.to_numeric(per_year["period"], errors="coerce")
        self.inequality_year = per_year
        show = [m for m in UNIT_MEASURES if m in set(per_year["measure"])
                and per_year.loc[per_year["measure"] == m, "estimate"].notna().any()]
        method = "; ".join(f"{m}: {t}" for m, t in per_year.drop_duplicates("measure").set_index("measure")
                           .get("method", pd.Series(dtype=str)).items() if m in show)
        if show:
            self.add_figure(F.small_multiples("inequality", per_year[per_year["measure"].isin(show)],
                                              caption=L("cap_inequality", self.lang, method=method or "-"),
                                              labels=_measure_labels(per_year)), "inequality")
        self.section("inequality").add(Block("text", text=L("ineq_units_note", self.lang, units=self.units)))
        wide = _wide_by_year(per_year)
        self.add_table("inequality_year_wide", wide, L("t_inequality", self.lang), "inequality")
        self.add_table("inequality_year", per_year, L("t_inequality", self.lang))
        self.add_table("inequality_pooled", pooled, L("t_inequality_pooled", self.lang) + f", {self.period}",
                       "inequality", columns=[c for c in ("measure", "label", "estimate", "lower", "upper", "se")
                                              if c in pooled.columns])
        if ref_note:
            self.section("inequality").add(Block("text", text=ref_note))
        self.inequality_pooled = pooled
        # ordered by a covariate, in groups of equal births
        rank_by = opts["rank_by"]
        if rank_by and rank_by not in self.panel.covariates:
            self.r.excluded.append(L("ex_covariate", self.lang, name=self.cov_code(rank_by),
                                     reason=L("missing", self.lang)))
            rank_by = ""
        if not rank_by:
            return
        # each year ranked by that year's covariate (observed or filled by the study's rule); the years in
        # which no unit has it (poverty before its first survey) get no ordered measures, and are named
        okw = dict(kw, rank_by=rank_by, groups=opts["groups"])
        ordered = _call(fn, self.panel, pool=False, **okw).copy()
        ordered["year"] = pd.to_numeric(ordered["period"], errors="coerce")
        have = self.panel.data.groupby("year")[rank_by].count()
        missing = [int(y) for y in self.years if have.get(y, 0) == 0]
        label = self.cov_label(rank_by)
        self.section("inequality").add(Block("text", title=L("ineq_ordered_title", self.lang, covariate=label),
                                             text=L("ineq_rank_note", self.lang, covariate=label,
                                                    groups=opts["groups"], fill=self.study.fill,
                                                    missing=_span_text(missing) if missing else L("none", self.lang))))
        show = [m for m in ORDERED_MEASURES if m in set(ordered["measure"])]
        if show:
            self.add_figure(F.small_multiples("inequality_ordered", ordered[ordered["measure"].isin(show)],
                                              caption=L("cap_inequality_ordered", self.lang, covariate=label,
                                                        groups=opts["groups"]),
                                              labels=_measure_labels(ordered)), "inequality")
        wide = _wide_by_year(ordered)
        self.add_table("inequality_ordered_wide", wide, L("ineq_ordered_title", self.lang, covariate=label),
                       "inequality")
        self.add_table("inequality_ordered_year", ordered, L("ineq_ordered_title", self.lang, covariate=label))

    def study_reference(self):
        """``(codes, label)`` of the study's reference, as the disparity section resolved it (resolved here
        when the study has no disparity analysis); None when it cannot be resolved."""
        if getattr(self, "reference", None) is None:
            try:
                resolve = getattr(_module("disparity", self.lang), "resolve_reference", None)
            except Unavailable:
                return None
            if resolve is None or not self.study.reference:
                return None
            try:
                codes, label = _call(resolve, self.panel, self.study.reference, years=self.years,
                                     outcome=self.outcome)
            except Exception:  # noqa: BLE001 - without a reference the measures use WHO's default
                return None
            self.reference = (list(codes), label)
            if not self.suffix and not self.r.reference_label:
                self.r.reference_label = label
        return self.reference

    # covariate inequality -----------------------------------------------------------------------
    def covariate_inequality(self) -> None:
        mod = _module("inequality", self.lang)
        fn = getattr(mod, "covariate_inequality", None)
        if fn is None:
            raise Unavailable(L("module_missing", self.lang, module="brecha.inequality.covariate_inequality"))
        opts = self.study.analyses["covariate_inequality"]
        cov = opts["covariate"]
        if not cov or cov not in self.panel.covariates:
            raise Unavailable(L("ex_covariate", self.lang, name=self.cov_code(cov) if cov else "-",
                                reason=L("missing", self.lang)))
        label = self.cov_label(cov)
        if cov not in ("health_spending_pc", "health_spending_per_capita"):  # the default title names them
            self.section("covariate").title = L("s_covariate_of", self.lang, covariate=label)
        weight = None if opts["weight"] == "none" else opts["weight"]
        table = _call(fn, self.panel, cov, weight=weight)
        self.add_table("covariate_inequality", table, L("t_covariate", self.lang, covariate=label))
        self.add_table("covariate_inequality_wide", _wide_by_year(table), L("t_covariate", self.lang,
                                                                               covariate=label), "covariate")
        table = table.copy()
        table["year"] = pd.to_numeric(table["period"], errors="coerce")
        from . import figures as F

        show = [m for m in ("gini", "ti", "cov", "ratio_p90p10") if m in set(table["measure"])][:4]
        if show:
            self.add_figure(F.small_multiples("covariate_inequality", table[table["measure"].isin(show)],
                                              caption=L("t_covariate", self.lang, covariate=label),
                                              labels=_measure_labels(table)), "covariate")
        comove = getattr(mod, "comovement", None)
        if comove is not None and hasattr(self, "inequality_year"):
            a = self.inequality_year
            common = [m for m in ("gini", "ti", "cov") if m in set(a["measure"]) and m in set(table["measure"])
                      and table.loc[table["measure"] == m, "estimate"].notna().sum() >= 3]
            parts = []
            for m in common:
                res = _call(comove, a[a["measure"] == m], table[table["measure"] == m])
                parts.append(res if isinstance(res, pd.DataFrame) else pd.DataFrame([res]))
            if parts:
                res = pd.concat(parts, ignore_index=True)
                first = res[(res["method"].astype(str) == "pearson")] if "method" in res else res
                if len(first):
                    r0 = first.iloc[0]
                    self.section("covariate").add(Block("text", text=L(
                        "comovement_text", self.lang, measure=L(f"mshort_{r0['measure_a']}", self.lang)
                        if str(r0.get("measure_a")) in SHORT_MEASURES else str(r0.get("measure_a")),
                        covariate=label, r=_fmt(r0["estimate"], 2), lo=_fmt(r0["lower"], 2), hi=_fmt(r0["upper"], 2),
                        n=int(r0["n_years"]) if "n_years" in r0 and pd.notna(r0["n_years"]) else "-")))
                self.add_table("comovement", res, L("t_comovement", self.lang), "covariate",
                               columns=[c for c in ("measure_a", "method", "estimate", "lower", "upper", "p_value",
                                                    "n_years", "conf_level", "ci_method", "periods")
                                        if c in res.columns] or None,
                               column_labels={"measure_a": L("c_measure", self.lang)})
                if "gini" in common:
                    x = table[table["measure"] == "gini"].set_index("period")["estimate"]
                    y = a[a["measure"] == "gini"].set_index("period")["estimate"]
                    both = pd.concat([x, y], axis=1, keys=["x", "y"]).dropna()
                    if len(both) >= 3:
                        self.add_figure(F.scatter_chart(
                            "comovement", both["x"].to_numpy(float), both["y"].to_numpy(float),
                            xlabel=L("gini_of", self.lang, covariate=label),
                            ylabel=L("gini_of", self.lang, covariate=L("imr_short", self.lang)),
                            labels=both.index.tolist(), caption=L("cap_comovement", self.lang, covariate=label)),
                            "covariate")

    # funnel ---------------------------------------------------------------------------------------
    def funnel(self) -> None:
        fn = _function("smoothing", "funnel", self.lang)
        opts = self.study.analyses["funnel"]
        table = _call(fn, self.panel, outcome=self.outcome, years=self.years, pool=True,
                      overdispersion=opts["overdispersion"])
        if "name" not in table:
            table = table.assign(name=table["unit"].astype(str).map(self.names))
        self.add_table("funnel", table, L("t_funnel", self.lang))
        from . import figures as F

        t = _normalise_funnel(table)
        method = str(table["method"].iloc[0]) if "method" in table and len(table) else "Poisson"
        self.add_figure(F.funnel_plot("funnel", t, xlabel=L("c_births", self.lang),
                                      ylabel=f"{L('imr_short', self.lang)} ({L('per_1000', self.lang)})",
                                      caption=L("cap_funnel", self.lang, period=self.period,
                                                method=cell_label("method", method, self.lang),
                                                units=self.units)), "funnel")
        if "flag" in t:
            flagged = t[t["flag"].isin(["high", "above", "upper"])]
            cols = [c for c in ("unit", "name", "births", "estimate", "flag") if c in flagged]
            self.add_table("funnel_flagged", flagged[cols].sort_values("estimate", ascending=False),
                           L("t_funnel", self.lang), "funnel")

    # models --------------------------------------------------------------------------------------
    def models(self) -> None:
        fit = _function("models", "fit_models", self.lang)
        opts = self.study.analyses["models"]
        covs = opts["covariates"] or self.study.covariates
        absent = [c for c in covs if c not in self.panel.covariates]
        if absent:
            raise Unavailable(L("ex_covariate", self.lang, name=", ".join(self.cov_code(c) for c in absent),
                                reason=L("missing", self.lang)))
        years = self.years
        if opts["years"]:
            from ..study import parse_period

            years = [y for y in parse_period(opts["years"]) if y in set(self.years)]
        res = _call(fit, self.panel, outcome=self.outcome, covariates=covs, models=opts["models"], se=opts["se"],
                    years=years, fill=self.study.fill, lang=self.lang)
        self.add_table("model_coefficients", res.coefficients, L("t_coefficients", self.lang), "models",
                       columns=[c for c in ("model", "term", "estimate", "se", "statistic", "p_value", "lower",
                                            "upper") if c in res.coefficients.columns])
        country = getattr(self.panel, "country", None)
        if res.tests is not None and len(res.tests):
            tests = res.tests
            if "note" in tests:  # prose: the covariates by their labels (the term column keeps the names)
                tests = tests.assign(note=[relabel_covariates(n, covs, self.lang, country) if isinstance(n, str)
                                           else n for n in tests["note"]])
            self.add_table("model_tests", tests, L("t_tests", self.lang), "models")
        # the model notes repeat the panel's caveats (shown in the data section): keep the models' own
        heads = {str(n)[:30] for n in self.panel.notes}
        notes = [relabel_covariates(str(n), covs, self.lang, country) for n in getattr(res, "notes", [])
                 if str(n)[:30] not in heads]
        if notes:
            self.section("models").add(Block("list", items=list(dict.fromkeys(notes))))

    # headline ------------------------------------------------------------------------------------
    def headline(self) -> None:
        if not hasattr(self, "national"):
            raise Unavailable(L("module_missing", self.lang, module="brecha.rates"))
        h = self.r.headline
        lang = self.lang
        nat = self.national.dropna(subset=["estimate"]).sort_values("year")
        first, last = nat.iloc[0], nat.iloc[-1]
        change = (last["estimate"] / first["estimate"] - 1) * 100 if first["estimate"] > 0 else float("nan")
        d = self.panel.data
        h["scope"] = L("h_scope", lang, n=_int(len(self.panel.unit_codes)), units=self.units, period=self.period,
                       births=_int(d["births"].sum()), deaths=_int(d[OUTCOMES[self.outcome]].sum()),
                       kind=L(f"deaths_{self.outcome}", lang))
        h["national"] = {
            "title": L("h_national", lang, outcome=L(f"rate_{self.outcome}", lang), country=self._place()),
            "value": _fmt(last["estimate"], 1), "year": int(last["year"]),
            "text": L("h_national_text", lang, last=_fmt(last["estimate"], 1), y1=int(last["year"]),
                      lo=_fmt(last["lower"], 1), hi=_fmt(last["upper"], 1), first=_fmt(first["estimate"], 1),
                      y0=int(first["year"]),
                      change=L("h_change_down" if change < 0 else "h_change_up", lang, pct=_fmt(abs(change), 0)))
            + self.caveat,
        }
        # fifths of births by the (smoothed) rate over the period
        pooled = self.pooled.set_index("unit")
        score = self.smoothed if self.smoothed is not None else pooled["estimate"].astype(float)
        groups = extreme_fifths(pooled["births"].astype(float), score)
        py = self.per_year
        py = py[py["unit"].isin(groups.index)]
        g = py.assign(group=py["unit"].map(groups))
        g = g[g["group"].isin(["high", "low"])]
        sums = g.groupby(["year", "group"])[["events", "births"]].sum().astype(float)
        rate = (sums["events"] / sums["births"] * 1000).unstack("group")
        series = pd.DataFrame({"year": rate.index.astype(int), "high": rate["high"].to_numpy(),
                               "low": rate["low"].to_numpy()})
        series["ratio"] = series["high"] / series["low"]
        series["difference"] = series["high"] - series["low"]
        tot = g.groupby("group")[["events", "births"]].sum().astype(float)
        hi_rate = tot.loc["high", "events"] / tot.loc["high", "births"] * 1000
        lo_rate = tot.loc["low", "events"] / tot.loc["low", "births"] * 1000
        ratio, ratio_lo, ratio_hi = rate_ratio_ci(tot.loc["high", "events"], tot.loc["high", "births"],
                                                  tot.loc["low", "events"], tot.loc["low", "births"])
        h["gap"] = {"title": L("h_gap", lang), "value": _fmt(ratio, 1) + "×", "ratio": ratio,
                    "ratio_lower": ratio_lo, "ratio_upper": ratio_hi,
                    "detail": L("h_ci", lang, lo=_fmt(ratio_lo, 2), hi=_fmt(ratio_hi, 2)),
                    "text": L("h_gap_text", lang, period=self.period, units=self.units, ratio=_fmt(ratio, 2),
                              lo_ci=_fmt(ratio_lo, 2), hi_ci=_fmt(ratio_hi, 2), hi=_fmt(hi_rate, 1),
                              lo=_fmt(lo_rate, 1))}
        smoothed = self.r.table("smoothed")
        if smoothed is not None and "shrinkage" in smoothed:
            w = smoothed["births"].astype(float).fillna(0.0)
            share = float((smoothed["shrinkage"].astype(float).fillna(1.0) * w).sum() / w.sum()) if w.sum() else np.nan
            h["gap"]["shrinkage"] = share
            if share > 0.5:  # most of the spread between units is chance: the extreme fifths mostly measure noise
                h["gap"]["text"] += " " + L("h_gap_noise", lang, pct=_fmt(share * 100, 0), units=self.units)
        if hasattr(self, "disparity_pooled"):
            par = self.disparity_pooled
            par = par[(par["unit"] == "TOTAL") & (par["measure"] == "par_percent")]
            ref_rate = self.disparity_pooled.get("reference_rate")
            if len(par):
                rr = float(ref_rate.dropna().iloc[0]) if ref_rate is not None and ref_rate.notna().any() else np.nan
                h["gap"]["text"] += " " + L("h_gap_par", lang, units=self.units, unit=self.unit,
                                            ref=f"{_fmt(rr, 1)} {L('per_1000', lang)}",
                                            par_pct=_fmt(par["estimate"].iloc[0], 0), lo=_fmt(par["lower"].iloc[0], 0),
                                            hi=_fmt(par["upper"].iloc[0], 0), period=self.period)
        ok = series.dropna()
        ok = ok[(ok["ratio"] > 0) & np.isfinite(ok["ratio"])]
        if len(ok) >= 3:
            apc, lo, hi = log_linear_apc(ok["year"].to_numpy(float), ok["ratio"].to_numpy(float))
            key = "h_closing" if hi < 0 else "h_widening" if lo > 0 else "h_flat"
            fields = dict(apc=_fmt(abs(apc) if key != "h_flat" else apc, 1), lo=_fmt(lo, 1), hi=_fmt(hi, 1),
                          first=_fmt(ok["ratio"].iloc[0], 2), last=_fmt(ok["ratio"].iloc[-1], 2),
                          y0=int(ok["year"].iloc[0]), y1=int(ok["year"].iloc[-1]))
            text = L(key, lang, **fields) + " " + L("h_abs_gap", lang, first=_fmt(ok["difference"].iloc[0], 1),
                                                     last=_fmt(ok["difference"].iloc[-1], 1))
            h["trend"] = {"title": L("h_trend", lang), "direction": {"h_closing": "closing", "h_widening":
                          "widening", "h_flat": "flat"}[key], "apc": apc, "apc_lower": lo, "apc_upper": hi,
                          "text": text, "value": L(f"{key}_word", lang),
                          "detail": ("+" if apc > 0 else "−" if apc < 0 else "") + _fmt(abs(apc), 1)
                          + (" %/año" if lang == "es" else " %/yr")}
        series_out = series.rename(columns={"high": "rate_highest_fifth", "low": "rate_lowest_fifth"})
        self.add_table("gap_fifths", series_out, L("t_quintiles", lang))
        self.r.tables["gap_groups"] = (pd.DataFrame({"unit": groups.index, "group": groups.to_numpy()}),
                                       L("quintile_series", lang))
        from . import figures as F

        long = pd.concat([
            pd.DataFrame({"label": L("q5", lang), "year": series["year"], "estimate": series["high"]}),
            pd.DataFrame({"label": L("country_total", lang), "year": self.national["year"],
                          "estimate": self.national["estimate"]}),
            pd.DataFrame({"label": L("q1", lang), "year": series["year"], "estimate": series["low"]}),
        ])
        fig = F.line_chart("gap_fifths", long, ylabel=f"{L('imr_short', lang)} ({L('per_1000', lang)})",
                           caption=L("cap_quintiles", lang, units=self.units, period=self.period) + self.caveat)
        self.r.figures.append(fig)
        h["gap_figure"] = fig
        self.section("rates").blocks.insert(0, Block("figure", figure=fig))
        # worst and best units, each with its 95 % interval (posterior interval of the smoothed rate, or the
        # exact Poisson CI of the observed one)
        min_births = 0
        cols = ["name", "estimate", "births"] if "name" in pooled else ["estimate", "births"]
        if self.smoothed is not None:
            rank = pd.DataFrame({"smoothed": self.smoothed}).join(self.smoothed_ci).join(pooled[cols])
            note = L("h_rank_note", lang, period=self.period, units=self.units)
        else:
            min_births = int(max(500, np.nanmedian(pooled["births"].astype(float))))
            rank = pooled[pooled["births"].astype(float) >= min_births][cols + ["lower", "upper"]].copy()
            rank["smoothed"] = rank["estimate"]
            note = L("h_rank_note_raw", lang, period=self.period, units=self.units, min=_int(min_births))
        rank = rank.dropna(subset=["smoothed"])
        rank = rank[rank["births"].astype(float) > 0]
        region = _region_map(self.panel)

        def rows(frame):
            return [{"unit": u, "name": str(r.get("name", u)), "region": _short_region(region.get(u, "")),
                     "smoothed": _fmt(r["smoothed"], 1), "observed": _fmt(r["estimate"], 1),
                     "interval": f"{_fmt(r['lower'], 1)}–{_fmt(r['upper'], 1)}"}
                    for u, r in frame.iterrows()]

        worst = rank.sort_values("smoothed", ascending=False).head(5)
        best = rank.sort_values("smoothed").head(5)
        h["worst"] = rows(worst)
        h["best"] = rows(best)
        # honest about the ranking: do the worst units' intervals clear the best ones'?
        note += " " + L("h_rank_overlap" if float(worst["lower"].min()) <= float(best["upper"].max())
                        else "h_rank_apart", lang)
        funnel = self.r.table("funnel")
        if funnel is not None:
            t = _normalise_funnel(funnel)
            if "flag" in t:
                high = t[t["flag"] == "high"].sort_values("estimate", ascending=False)
                names = [str(n) for n in high.get("name", high["unit"]).head(6)]
                more = L("h_more", lang, n=_int(len(high) - 6)) if len(high) > 6 else ""
                note += " " + L("h_funnel", lang, n=_int(len(high)), units=self.units, total=_int(len(t)),
                                names=", ".join(names), more=more) if len(high) else \
                    " " + L("h_funnel_none", lang, units=self.units)
        h["rank_note"] = note
        h["smoothed"] = self.smoothed is not None

    def _place(self) -> str:
        u = self.study.units
        country = L(f"country_{self.panel.country}", self.lang) if self.panel.country in ("CL", "BR") else ""
        if "region" in u and self.panel.units is not None and "region_name" in self.panel.units:
            return str(self.panel.units["region_name"].iloc[0])
        return country or L("country_total", self.lang)

    # maps ----------------------------------------------------------------------------------------
    def maps(self) -> None:
        from . import figures as F

        reg = getattr(self.panel, "registry", None)
        geo = reg.polygons() if reg is not None and hasattr(reg, "polygons") else None
        if not geo:
            raise Unavailable(L("ex_no_polygons", self.lang, country=self.panel.country or "-"))
        units = self.panel.unit_codes
        inset = []
        if self.panel.country == "CL" and self.panel.units is not None:
            inset = self.panel.units.loc[self.panel.units["region"].astype(str) == "13", "unit"].astype(str).tolist()
        canvas = F.MapCanvas(geo, units, inset_region_units=inset,
                             offshore=F.CHILE_OFFSHORE if self.panel.country == "CL" else ())
        if canvas.fig is None:
            raise Unavailable(L("ex_no_polygons", self.lang, country=self.panel.country or "-"))
        offshore = ""
        if canvas.offshore:
            offshore = L("cap_map_offshore", self.lang, names=", ".join(self.names.get(u, u) for u in canvas.offshore))
        inset_title = "Región Metropolitana" if inset else ""
        per1000 = L("per_1000", self.lang)
        opts = self.study.analyses.get("maps", {"smoothed": True, "trend": True})
        pooled = self.pooled.set_index("unit")
        raw = pooled["estimate"].astype(float).where(pooled["births"].astype(float) > 0)
        values_for_classes = self.smoothed if self.smoothed is not None else raw
        from .html import localise

        edges, labels = F.quantile_classes(values_for_classes)
        labels = [localise(x, self.lang) for x in labels]
        missing = (F.MISSING, L("missing", self.lang))
        raw_edges, raw_labels = F.quantile_classes(raw)
        raw_labels = [localise(x, self.lang) for x in raw_labels]
        fig = canvas.render("map_rate", F.sequential_colours(raw, raw_edges),
                            F.legend_for(raw_edges, raw_labels) + [missing],
                            title=f"{L('imr', self.lang)} {self.period}", legend_title=per1000,
                            inset_title=inset_title,
                            caption=L("cap_map_rate", self.lang, period=self.period, unit=self.unit) + offshore)
        self.add_figure(fig, "maps")
        self.r.headline["map"] = fig
        if self.smoothed is not None and opts.get("smoothed", True):
            fig = canvas.render("map_smoothed", F.sequential_colours(self.smoothed, edges),
                                F.legend_for(edges, labels) + [missing],
                                title=f"{L('c_smoothed', self.lang)} {self.period}", legend_title=per1000,
                                inset_title=inset_title,
                                caption=L("cap_map_smooth", self.lang, period=self.period,
                                          method=cell_label("method", getattr(self, "smooth_method", "EB"),
                                                            self.lang)) + offshore)
            self.add_figure(fig, "maps")
            self.r.headline["map"] = fig
        if self.trend_classes is not None and opts.get("trend", True):
            colours = {u: F.TREND_COLOURS.get(c, F.MISSING) for u, c in self.trend_classes.items()}
            legend = [(F.TREND_COLOURS[k], trend_word(k, self.lang)) for k in TREND_KEYS]
            alpha = self.study.analyses.get("trends", {}).get("alpha", 0.05)
            fig = canvas.render("map_trend", colours, legend,
                                title=f"{L('c_trend', self.lang)} {self.period}", inset_title=inset_title,
                                caption=L("cap_map_trend", self.lang, period=self.period, alpha=_fmt(alpha, 2), unit=self.units,
                                          method=cell_label("method", self.study.analyses.get("trends", {})
                                                            .get("method", "prais-winsten"), self.lang))
                                + offshore)
            self.add_figure(fig, "maps")

    def _smoothed_table_block(self) -> None:
        if "smoothed" in self.r.tables and self.study.wants("smoothing"):
            table = self.r.tables["smoothed"][0]
            cols = [c for c in ("unit", "name", "events", "births", "raw_rate", "estimate", "smoothed", "lower",
                                "upper", "shrinkage") if c in table.columns]
            self.section("maps").add(Block("table", title=self.r.tables["smoothed"][1], table="smoothed",
                                           columns=cols))

    # data & methods ------------------------------------------------------------------------------
    def data_section(self) -> None:
        sec = self.section("data")
        lang = self.lang
        p = self.panel
        items = [L("d_source", lang, source=p.source or "-"),
                 L("d_units", lang, n=_int(len(p.unit_codes)), units=self.units, years=_span_text(p.years))]
        if self.r.reference_label:
            items.append(L("d_reference", lang, ref=self.r.reference_label))
        if self.study.covariates:
            items.append(L("d_covariates", lang, names="; ".join(self.cov_code(c) for c in self.study.covariates),
                           fill=self.study.fill))
        if self.study.path:
            items.append(f"{L('d_study', lang)}: {Path(self.study.path).name}")
        sec.add(Block("list", items=items))
        if self.r.notes:
            sec.add(Block("list", title=L("caveats", lang), items=list(dict.fromkeys(self.r.notes))))
        if self.r.excluded:
            sec.add(Block("list", title=L("t_excluded", lang), items=list(dict.fromkeys(self.r.excluded))))
        if self.r.warnings:
            sec.add(Block("list", title=L("d_warnings", lang), items=list(dict.fromkeys(self.r.warnings))[:30]))
        if "ledger" in self.r.tables:
            sec.add(Block("table", title=L("t_ledger", lang), table="ledger", max_rows=200))
        prov = _provenance_text(self.study)
        if prov:
            sec.add(Block("pre", title=L("d_provenance", lang), text=prov))

    def methods_section(self) -> Section:
        from .methods import methods_blocks

        sec = Section("methods", L("s_methods", self.lang))
        sec.blocks.extend(methods_blocks(self.study, self.lang))
        return sec


# ----------------------------------------------------------------------------------------- helpers

def _short_region(name: str) -> str:
    """'Región de Aysén del Gral.Ibañez del Campo' -> 'Aysén del Gral.Ibañez del Campo' (chart titles)."""
    for prefix in ("Región Metropolitana de ", "Región de la ", "Región de los ", "Región de ", "Región del ",
                   "Región "):
        if name.startswith(prefix):
            return name[len(prefix):] if "Metropolitana" not in prefix else "Metropolitana"
    return name


def _wide_by_year(table: pd.DataFrame) -> pd.DataFrame:
    """measure x period of the estimates, with the measure's label beside its code."""
    wide = table.pivot_table(index="measure", columns="period", values="estimate", aggfunc="first")
    wide = wide.reindex([m for m in dict.fromkeys(table["measure"]) if m in wide.index])
    wide.columns = [str(c) for c in wide.columns]
    wide = wide.reset_index()
    labels = _measure_labels(table)
    wide.insert(1, "label", wide["measure"].map(lambda m: labels.get(m, m)))
    return wide


def _first(table: pd.DataFrame, names) -> str:
    for n in names:
        if n in table.columns:
            return n
    raise Unavailable(f"none of the columns {', '.join(names)} in the result")


def _wide_disparity(units: pd.DataFrame) -> pd.DataFrame:
    """One row per unit: rate, RR (CI), AR, AR%."""
    base_cols = [c for c in ("unit", "name", "events", "births", "rate") if c in units.columns]
    base = units.drop_duplicates("unit")[base_cols].set_index("unit")
    parts = [base]
    for measure, short in (("rate_ratio", "rr"), ("attributable_risk", "ar"), ("attributable_risk_percent", "ar_pct")):
        m = units[units["measure"] == measure].set_index("unit")
        if len(m):
            parts.append(m[["estimate", "lower", "upper"]].rename(columns={
                "estimate": short, "lower": f"{short}_lower", "upper": f"{short}_upper"}))
    out = pd.concat(parts, axis=1).reset_index()
    if "rate" in out:
        out = out.sort_values("rate", ascending=False, kind="stable")
    return out


def _normalise_funnel(table: pd.DataFrame) -> pd.DataFrame:
    """Map the funnel module's column names onto those the plot reads."""
    t = table.copy()
    rename = {}
    for col in t.columns:
        low = col.lower()
        if low in ("rate",) and "estimate" not in t:
            rename[col] = "estimate"
        for lvl, tag in (("95", "95"), ("0.95", "95"), ("99.8", "998"), ("998", "998"), ("0.998", "998")):
            for side in ("lower", "upper"):
                if low in (f"{side}_{lvl}", f"{side}{lvl}", f"{side}_limit_{lvl}", f"{side}_{lvl}_limit"):
                    rename[col] = f"{side}_{tag}"
        if low in ("target", "mean", "centre", "center", "overall_rate") and "target" not in t:
            rename[col] = "target"
        if low in ("outlier", "flag_998", "signal") and "flag" not in t:
            rename[col] = "flag"
    t = t.rename(columns=rename)
    if "flag" in t:
        f = t["flag"].astype(str).str.lower()
        t["flag"] = np.where(f.str.contains("high|above|upper"), "high",
                             np.where(f.str.contains("low|below"), "low", ""))
    return t


def _inequality_function(lang):
    mod = _module("inequality", lang)
    fn = getattr(mod, "inequality", None)
    if fn is None:
        raise Unavailable(L("module_missing", lang, module="brecha.inequality.inequality"))
    return fn


UNIT_MEASURES = ("gini", "ti", "cov", "bgsd", "mdmw", "d_q5q1")
LARGE = 1500  # units above which the per-unit x year disparity table is left out of the report
ORDERED_MEASURES = ("sii", "rii", "rci", "kunst_mackenbach", "d", "r")
PREFERRED_MEASURES = UNIT_MEASURES + ORDERED_MEASURES


def _pick_measures(table: pd.DataFrame, k: int = 6) -> list[str]:
    have = list(dict.fromkeys(table["measure"].astype(str)))
    ok = [m for m in have if table.loc[table["measure"] == m, "estimate"].notna().any()]
    picked = [m for m in PREFERRED_MEASURES if m in ok]
    for m in ok:
        if len(picked) >= k:
            break
        if m not in picked:
            picked.append(m)
    return picked[:k]


def _measure_labels(table: pd.DataFrame, lang: str | None = None) -> dict:
    """Short titles for the small multiples: ours for the common measures, else the module's label."""
    out = {}
    for col in ("measure_label", "label", "measure_name"):
        if col in table:
            out = dict(zip(table["measure"].astype(str), table[col].astype(str)))
            break
    lang = lang or _NUMBERS["lang"]
    for key in SHORT_MEASURES:
        label_key = f"mshort_{key}"
        out[key] = L(label_key, lang)
    if "reference" in table and table["reference"].fillna("").astype(str).ne("").any():
        out["d"], out["r"] = L("mshort_d_ref", lang), L("mshort_r_ref", lang)  # max − reference, not max − min
    return out


SHORT_MEASURES = ("gini", "ti", "mld", "cov", "bgsd", "mdmw", "d_q5q1", "sii", "rii", "rci", "kunst_mackenbach", "d",
                  "r", "ratio_p90p10", "paf", "par")


_NUMBERS = {"lang": "en"}  # the language numbers are written in while a report is being built


def _fmt(value, digits: int = 1) -> str:
    from .html import localise

    try:
        v = float(value)
    except (TypeError, ValueError):
        return "–"
    if not np.isfinite(v):
        return "–"
    return localise(f"{v:,.{digits}f}", _NUMBERS["lang"])


def _int(value) -> str:
    from .html import localise

    try:
        return localise(f"{int(value):,}", _NUMBERS["lang"])
    except (TypeError, ValueError):
        return "–"


def today() -> str:
    return _dt.date.today().isoformat()
