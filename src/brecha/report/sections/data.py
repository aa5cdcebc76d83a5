"""About the data: source, units and years, the reference, the covariates, the caveats, what was left out
and why, the warnings, the record ledger and the provenance of the embedded data."""
from __future__ import annotations

from pathlib import Path

from ..blocks import Block
from ..data import _provenance_text, _span_text


def build(res, page) -> None:
    L, r, p, study = page.L, page.report, res.panel, res.study
    sec = page.section("data")
    items = [L("d_source", source=p.source or "-"),
             L("d_units", n=page.count(len(p.unit_codes)), units=page.units, years=_span_text(p.years))]
    if r.reference_label:
        items.append(L("d_reference", ref=r.reference_label))
    if study.covariates:
        items.append(L("d_covariates", names="; ".join(page.cov_code(c) for c in study.covariates), fill=study.fill))
    if study.path:
        items.append(f"{L('d_study')}: {Path(study.path).name}")
    sec.add(Block("list", items=items))
    if r.notes:
        sec.add(Block("list", title=L("caveats"), items=list(dict.fromkeys(r.notes))))
    if r.excluded:
        sec.add(Block("list", title=L("t_excluded"), items=list(dict.fromkeys(r.excluded))))
    if r.warnings:
        sec.add(Block("list", title=L("d_warnings"), items=list(dict.fromkeys(r.warnings))[:30]))
    if "ledger" in r.tables:
        sec.add(Block("table", title=L("t_ledger"), table="ledger", max_rows=200))
    prov = _provenance_text(study)
    if prov:
        sec.add(Block("pre", title=L("d_provenance"), text=prov))
