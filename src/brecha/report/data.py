"""The Panel a study names (data source, covariates, units, years) and what was left out of it, and why."""
from __future__ import annotations

import pandas as pd

from ..errors import BrechaError, InputError
from ..i18n import Catalog, get_language
from .calls import Unavailable, _call, _function, _reason, _strict
from .labels import L

MSG = Catalog({
    "field": ("campo '{field}': {problem}", "field '{field}': {problem}"),
    "no_outcome": ("campo 'outcomes': los datos no tienen defunciones {outcome} (tienen: {have})",
                   "field 'outcomes': the data have no {outcome} deaths (they have: {have})"),
    "no_outcome_hint": ("use outcomes = [\"infant\"], o microdatos DEIS para neonatal/posneonatal",
                        "use outcomes = [\"infant\"], or DEIS microdata for neonatal/post-neonatal"),
    "codes_hint": ("compare los códigos con los de los datos", "check the codes against the data"),
    "no_years": ("campo 'period': ninguno de los años del estudio ({period}) está en los datos ({first}-{last})",
                 "field 'period': none of the study's years ({period}) is in the data ({first}-{last})"),
    "no_years_hint": ("cambie 'period' en el archivo de estudio", "change 'period' in the study file"),
})


def load_study_panel(study, report=None):
    """The Panel a study names: data source, covariates, units and years (exclusions noted in ``report``)."""
    lang = report.lang if report else get_language()
    data = study.data
    ledger = None
    if "example" in data:
        from .. import datasets

        if data["example"] == "chile":
            panel = _call(datasets.chile, split=data.get("split", "keep"), covariates=True)
        else:
            panel = datasets.example(data["example"])
        try:
            ledger = datasets.ledger(data["example"])
        except Exception:  # noqa: BLE001 - the ledger is a courtesy
            ledger = None
    elif "panel" in data:
        from ..ingest.ledger import Ledger
        from ..panel import read_panel

        # with a report, its warnings about rows are listed for the rows the study keeps (_note_exclusions)
        panel = read_panel(data["panel"]) if report is None else _read_for_report(read_panel, data["panel"])
        ledger = Ledger.beside(data["panel"])  # saved there by `brecha ingest deis`, if that made the file
    else:
        ingest = _function("ingest.deis", "ingest_deis", lang)
        result = _call(ingest, deaths=[str(p) for p in data["deis"]["deaths"]],
                       births=[str(p) for p in data["deis"]["births"]], split=data.get("split", "keep"),
                       years=study.years)
        panel = result
        if hasattr(result, "panel"):
            panel, ledger = result.panel, getattr(result, "ledger", None)
        elif isinstance(result, tuple):
            panel, ledger = result[0], result[1]
    if ledger is not None and not isinstance(ledger, pd.DataFrame):
        ledger = _call(ledger.to_frame, lang=lang) if hasattr(ledger, "to_frame") else pd.DataFrame(ledger)
    if report is not None and ledger is not None:
        report.tables["ledger"] = (ledger, L("t_ledger", lang))

    # the outcome must be in the data (the embedded Chilean and Brazilian data have infant deaths only)
    have = list(getattr(panel, "outcomes", []) or [])
    if have and study.outcomes[0] not in have:
        raise InputError(MSG("no_outcome", lang, outcome=study.outcomes[0], have=", ".join(have)),
                         file=str(study.path) if study.path else None, hint=MSG("no_outcome_hint", lang))

    # units
    units = study.units
    try:
        if "region" in units:
            panel = panel.subset(region=units["region"])
        elif "codes" in units:
            panel = panel.subset(units=units["codes"])
    except InputError as exc:  # name the study file and field, not only the data
        field = "units.region" if "region" in units else "units.codes"
        raise InputError(MSG("field", lang, field=field, problem=exc.problem),
                         file=str(study.path) if study.path else None,
                         hint=exc.hint or MSG("codes_hint", lang)) from None

    # the study's covariates, built with the study's filling rule: those the panel lacks, and the standard
    # ones the embedded panels carry (filled by interpolation) rebuilt with ``fill`` and a full note each
    # (brecha.covariates.attach_missing; columns of a panel file are kept as they are)
    # (also those the analyses name: rank_by, focus_covariate, covariate_inequality, models)
    a = study.analyses
    named = [a.get("inequality", {}).get("rank_by"), a.get("disparity", {}).get("focus_covariate"),
             a.get("covariate_inequality", {}).get("covariate"), *a.get("models", {}).get("covariates", [])]
    wanted = list(dict.fromkeys([*study.covariates, *(n for n in named if n)]))
    if wanted:
        reason = L("missing", lang)
        try:
            attach = _function("covariates", "attach_missing", lang)
            panel = _call(attach, panel, wanted, fill=study.fill, lang=lang)
        except (Unavailable, BrechaError, KeyError, ValueError) as exc:
            if _strict() and not isinstance(exc, Unavailable):
                raise
            reason = _reason(exc, lang)
        if report is not None:
            for name in study.covariates:
                if name not in panel.covariates:
                    report.excluded.append(L("ex_covariate", lang, name=name, reason=reason))

    # years
    if study.years:
        have = set(panel.years)
        absent = [y for y in study.years if y not in have]
        if absent and report is not None:
            report.excluded.append(L("ex_years_missing", lang, years=_span_text(absent)))
        keep = [y for y in study.years if y in have]
        if not keep:
            raise InputError(MSG("no_years", lang, period=study.period, first=min(have), last=max(have)),
                             file=str(study.path) if study.path else None, hint=MSG("no_years_hint", lang))
        panel = panel.subset(years=keep)
    if report is not None:
        _note_exclusions(panel, report)
    return panel


def _read_for_report(read_panel, path):
    """A panel file read for a report. Its warnings about rows (0 births...) are not said here: the report
    lists the warnings of the panel it analyses (``panel.warnings``, :func:`_note_exclusions`), which a study's
    years and units count for the rows they keep (:mod:`brecha.panel_warnings`); said here they would add the
    whole file's. Its other warnings are said as they come."""
    from ..panel_warnings import read_for_rows

    return read_for_rows(lambda: read_panel(path))


def _span_text(years) -> str:
    years = sorted(years)
    runs, start = [], years[0]
    for a, b in zip(years, years[1:] + [None]):
        if b != a + 1:
            runs.append(str(start) if start == a else f"{start}-{a}")
            start = b
    return ", ".join(runs)


def _note_exclusions(panel, report) -> None:
    lang = report.lang
    d = panel.data
    unit_word = _unit_word(panel, lang)
    units_word = _units_word(panel, lang)
    zero = d[(d["births"] == 0).fillna(False).astype(bool)]
    if len(zero):
        ex = ", ".join(f"{u} {y}" for u, y in zip(zero["unit"].head(8), zero["year"].head(8)))
        report.excluded.append(L("ex_zero_births", lang, n=_count(len(zero), lang), unit=unit_word, examples=ex))
    na = d[d["births"].isna()]
    if len(na):
        ex = ", ".join(f"{u} {y}" for u, y in zip(na["unit"].head(8), na["year"].head(8)))
        report.excluded.append(L("ex_missing_births", lang, n=_count(len(na), lang), unit=unit_word, examples=ex))
    per_unit = d.groupby("unit")["births"].sum(min_count=1)
    none = per_unit[(per_unit.fillna(0) <= 0)]
    if len(none):
        names = _names(panel)
        shown = ", ".join(f"{names.get(u, u)} ({u})" for u in none.index[:10])
        report.excluded.append(L("ex_no_births_units", lang, n=_count(len(none), lang), units=units_word, names=shown))
    report.notes.extend(str(n) for n in panel.notes)
    report.warnings.extend(str(w) for w in getattr(panel, "warnings", []) if str(w) not in report.warnings)


def _names(panel) -> dict:
    u = panel.units
    if u is None or "name" not in u:
        return {}
    return dict(zip(u["unit"].astype(str).tolist(), u["name"].astype(str).tolist()))


def _unit_word(panel, lang):
    key = f"unit_word_{panel.country}" if panel.country in ("CL", "BR", "AR") else "unit_word"
    return L(key, lang)


def _units_word(panel, lang):
    key = f"units_word_{panel.country}" if panel.country in ("CL", "BR", "AR") else "units_word"
    return L(key, lang)


def _region_map(panel) -> dict:
    u = panel.units
    if u is None or "region_name" not in u:
        return {}
    return dict(zip(u["unit"].astype(str).tolist(), u["region_name"].astype(str).tolist()))


def _provenance_text(study) -> str:
    if "example" not in study.data:
        return ""
    try:
        from importlib import resources

        text = (resources.files("brecha") / "data" / "PROVENANCE.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return ""
    return _example_provenance(text, study.data["example"])[:20000]


def _example_provenance(text: str, example: str) -> str:
    """PROVENANCE.md cut to the example's own files (its "## `xx_...`" sections, by the country prefix of
    the file names), after the page's opening paragraph; the whole page for an unknown example."""
    prefix = {"chile": "cl_", "brazil": "br_", "argentina": "ar_", "araucania": "cl_araucania"}.get(example)
    parts = text.split("\n## ")
    if prefix is None or len(parts) < 2:
        return text
    kept = [p for p in parts[1:] if p.startswith(f"`{prefix}")]
    if example == "chile":
        kept = [p for p in kept if not p.startswith("`cl_araucania")]
    return "\n## ".join([parts[0], *kept]) if kept else text


def _count(value: int, lang: str) -> str:
    """A count with thousands separators in the report's language (5.570 in Spanish, 5,570 in English)."""
    from .formatting import localise

    return localise(f"{int(value):,}", lang)


def short_region(name: str) -> str:
    """'Región de Aysén del Gral.Ibañez del Campo' -> 'Aysén del Gral.Ibañez del Campo' (chart titles)."""
    for prefix in ("Región Metropolitana de ", "Región de la ", "Región de los ", "Región de ", "Región del ",
                   "Región "):
        if name.startswith(prefix):
            return name[len(prefix):] if "Metropolitana" not in prefix else "Metropolitana"
    return name
