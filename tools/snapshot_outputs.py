"""Snapshot the outputs of the CLI and the default reports, and compare two snapshots byte for byte.

A refactoring must not change a single number: take a snapshot before, one after, and compare.

    python tools/snapshot_outputs.py snapshot /tmp/before      # about two minutes
    python tools/snapshot_outputs.py snapshot /tmp/after
    python tools/snapshot_outputs.py compare /tmp/before /tmp/after

Every command of :data:`COMMANDS` runs in English and in Spanish with its output written as CSV, and its
printed text is kept too (`NAME.stdout`). The reports (Chilean default, Santiago and Brazilian examples) are
kept whole; the comparison ignores only what a run stamps with its time (the "generated" line of the HTML,
the duration printed by `brecha report`) and the workbook's own timestamps (the .xlsx is compared sheet by
sheet as values).
"""
from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

COMMANDS = {
    "panel": "panel --example chile",
    "rates": "rates --example chile --years 2010-2015",
    "rates_region": "rates --example chile --level region --ci byar",
    "rates_pool": "rates --example chile --years 2005-2014 --pool",
    "disparity": "disparity --example chile --reference best --years 2005-2014 --pool",
    "disparity_quintile": "disparity --example chile --years 2005-2014 --pool --reference lowest-quintile:poverty",
    "disparity_region": "disparity --example chile --years 2005-2014 --pool --level region --reference best",
    "smooth": "smooth --example chile --years 2010 --prior region",
    "funnel": "funnel --example chile --years 2005-2014 --overdispersion additive",
    "inequality": "inequality --example chile --years 2010-2015",
    "inequality_rank": "inequality --example chile --rank-by poverty --groups 5 --bootstrap 200 --seed 1",
    "inequality_cov": "inequality --example chile --covariate health_spending_pc --years 2006-2012",
    "trends": "trends --example chile",
    "trends_region": "trends --example chile --level region --years 2005-2015",
    "trends_country_br": "trends --example brazil --level country --incomplete drop",
    "joinpoint": "trends --example chile --method joinpoint --level region",
    "models": "models --example chile --covariates poverty,health_spending_pc --years 2006-2012",
    "models_counts": "models --example chile --covariates poverty,health_spending_pc --models poisson,negbin,poisson_fe "
                     "--years 2006-2012",
    "brazil_rates": "rates --example brazil --years 2019",
}
REPORTS = {"report_chile": "report", "report_santiago": "report --example chile-santiago",
           "report_brazil": "report --example brazil"}
STAMPS = [re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?"), re.compile(r"\d+[.,]\d s\b"),
          re.compile(r"(en|in) \d+[.,]\d s")]


def _run(argv: list[str]) -> str:
    from brecha.cli.main import main
    from brecha.i18n import set_language

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(argv)
    set_language("es")
    return f"exit {code}\n" + out.getvalue()


def snapshot(folder: Path) -> None:
    import os

    folder.mkdir(parents=True, exist_ok=True)
    os.chdir(folder)  # outputs named relative to the snapshot, so "Saved: ..." lines compare equal
    for lang in ("en", "es"):
        for name, command in COMMANDS.items():
            target = f"{name}.{lang}.csv"
            text = _run(["--lang", lang, *command.split(), "-o", target])
            (folder / f"{name}.{lang}.stdout").write_text(text, encoding="utf-8")
            print(name, lang, flush=True)
    for name, command in REPORTS.items():
        text = _run(["--lang", "en", *command.split(), "-o", name])
        (folder / f"{name}.stdout").write_text(text, encoding="utf-8")
        print(name, flush=True)


def _normal_text(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    for stamp in STAMPS:
        text = stamp.sub("<stamp>", text)
    return text


def _same(a: Path, b: Path) -> bool:
    if a.suffix == ".xlsx":
        import pandas as pd

        sa, sb = pd.read_excel(a, sheet_name=None), pd.read_excel(b, sheet_name=None)
        return list(sa) == list(sb) and all(sa[k].equals(sb[k]) for k in sa)
    da, db = a.read_bytes(), b.read_bytes()
    if da == db:
        return True
    if a.suffix in (".html", ".stdout", ".txt", ".md", ".json", ".svg"):
        return _normal_text(da) == _normal_text(db)
    return False


def compare(before: Path, after: Path) -> int:
    files_a = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    files_b = {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    problems = [f"only before: {p}" for p in sorted(files_a - files_b)]
    problems += [f"only after: {p}" for p in sorted(files_b - files_a)]
    for rel in sorted(files_a & files_b):
        if not _same(before / rel, after / rel):
            problems.append(f"differs: {rel}")
    for line in problems:
        print(line)
    print(f"{len(files_a & files_b)} files compared, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "snapshot":
        snapshot(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        print(__doc__)
        sys.exit(2)
