"""``brecha report [STUDY.toml] [-o DIR] [--example chile|brazil]``: run a study and write its report.

With no study it runs the default Chilean example (all communes, 2000-2015). Writes DIR/index.html
(self-contained, works offline), DIR/brecha.xlsx (every table), DIR/tables/*.csv and DIR/figures/*.
"""
from __future__ import annotations

import time
from pathlib import Path

from ..i18n import Catalog, get_language

MSG = Catalog({
    "help": ("ejecutar un estudio y escribir su informe (HTML, Excel, CSV, figuras)",
             "run a study and write its report (HTML, Excel, CSV, figures)"),
    "study_help": ("archivo de estudio (.toml); sin él se usa el ejemplo chileno",
                   "study file (.toml); without it the Chilean example runs"),
    "example_help": ("estudio de ejemplo incluido: chile (por defecto), chile-best, chile-santiago, brazil, "
                     "argentina, araucania",
                     "shipped example study: chile (default), chile-best, chile-santiago, brazil, argentina, "
                     "araucania"),
    "out_help": ("carpeta de salida (por defecto: informe-brecha)", "output folder (default: brecha-report)"),
    "files_help": ("archivos que se escriben, separados por comas: page (index.html y figuras), workbook "
                   "(brecha.xlsx), tables (tables/*.csv), dashboard (dashboard.html); por defecto los del "
                   "estudio ([output] files), o todos",
                   "files to write, comma-separated: page (index.html and figures), workbook (brecha.xlsx), "
                   "tables (tables/*.csv), dashboard (dashboard.html); default: the study's ([output] files), "
                   "or all"),
    "both": ("indique un archivo de estudio o --example, no ambos", "give a study file or --example, not both"),
    "running": ("Estudio: {title}", "Study: {title}"),
    "done": ("Informe listo en {seconds} s:", "Report ready in {seconds} s:"),
    "html": ("  informe:  {path}", "  report:   {path}"),
    "excel": ("  Excel:    {path} ({n} tablas)", "  Excel:    {path} ({n} tables)"),
    "dashboard": ("  tablero:  {path}", "  dashboard: {path}"),
    "tables": ("  tablas:   {path}{sep}*.csv", "  tables:   {path}{sep}*.csv"),
    "figures": ("  figuras:  {path}{sep} ({n})", "  figures:  {path}{sep} ({n})"),
    "excluded": ("Excluido o no disponible:", "Excluded or not available:"),
    "nothing_excluded": ("Nada excluido.", "Nothing excluded."),
    "caveats": ("Advertencias:", "Caveats:"),
    "headline": ("Hallazgos principales:", "Headline findings:"),
    "worst": ("mayor mortalidad", "highest mortality"),
    "best": ("menor mortalidad", "lowest mortality"),
    "others": ("otros resultados", "other outcomes"),
})


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("report", help=MSG("help"), description=MSG("help"))
    _arguments(p)
    p.set_defaults(func=run)


def _arguments(p) -> None:
    p.add_argument("study", nargs="?", metavar="STUDY.toml", help=MSG("study_help"))
    p.add_argument("-o", "--output", metavar="DIR", help=MSG("out_help"))
    p.add_argument("--example", choices=["chile", "chile-best", "chile-santiago", "brazil", "argentina", "araucania"],
                   help=MSG("example_help"))
    p.add_argument("--files", metavar="LIST", help=MSG("files_help"))
    p.set_defaults(output_kind="folder")  # -o is a folder (checked as one before the work: cli.common)


def run(args) -> int:
    from ..errors import InputError
    from ..report.folder import check_folder_target
    from ..progress import note
    from ..study import example_study, read_study, run_study

    t0 = time.perf_counter()
    if args.study and args.example:
        raise InputError(MSG("both"))
    study = read_study(args.study) if args.study else example_study(args.example or "chile")
    if getattr(args, "files", None) is not None:  # the command's choice wins over the study's [output] files
        from ..report_files import with_files

        study = with_files(study, args.files)
    lang = _cli_language(args, study)
    out = Path(args.output or ("informe-brecha" if lang == "es" else "brecha-report"))
    check_folder_target(out, _study_inputs(study))  # before the work: nothing the user owns gets overwritten
    print(MSG("running", lang=lang, title=study.title_in(lang) or (args.study or "")), flush=True)
    # steps that took more than a second go with the live bar to stderr, on a terminal only (brecha.progress);
    # stdout keeps the study line and the summary, so `brecha report > log.txt` holds only results
    report = run_study(study, out, lang=lang, progress=lambda m: note(f"  … {m}"))
    print_summary(report, time.perf_counter() - t0, lang)
    return 0


def _study_inputs(study) -> list:
    """The files a study reads (the study file, its panel or DEIS files, and their ledgers and notes)."""
    from ..ingest.ledger import Ledger
    from ..panel_notes import notes_path

    data = study.data or {}
    files = [study.path, data.get("panel"), *(data.get("deis") or {}).get("deaths", []),
             *(data.get("deis") or {}).get("births", [])]
    return [p for f in files if f for p in (Path(f), *Ledger.paths_beside(f), notes_path(f))]


def _cli_language(args, study) -> str:
    """--lang wins; then the study's language; then the process default (BRECHA_LANG or Spanish)."""
    if getattr(args, "lang", None):
        return args.lang
    return study.language or get_language()


def print_headline(report, lang: str) -> None:
    """The report's first screen, as text: national rate, how unequal, whether the gap closes, worst/best."""
    import html
    import re

    h = report.headline or {}
    parts = [h[key] for key in ("national", "gap", "trend") if isinstance(h.get(key), dict)]
    if not parts:
        return
    print(MSG("headline", lang=lang))

    def plain(text) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", str(text)))

    for block in parts:
        value = " ".join(str(block[k]) for k in ("value", "detail") if block.get(k))
        print(f"  * {plain(block.get('title', ''))}: {plain(value)}")
        if block.get("text"):
            print(f"    {plain(block['text'])}")
    for key in ("worst", "best"):
        rows = h.get(key) or []
        if rows:
            listed = "; ".join(f"{plain(r['name'])} {r['smoothed']} ({r['interval']})" for r in rows)
            print(f"  * {MSG(key, lang=lang)}: {listed}")
    others = h.get("others") or []
    if others:  # the study's further outcomes, one line each
        print(f"  * {MSG('others', lang=lang)}:")
        for item in others:
            print(f"    - {plain(item['text'])}")


def _number(text: str, lang: str) -> str:
    """A number written the English way ("1,234.5") in the language's way ("1.234,5" in Spanish)."""
    from ..report.html import localise

    return localise(text, lang)


def print_summary(report, seconds: float, lang: str) -> None:
    import os

    print_headline(report, lang)
    f = report.files
    print(MSG("done", lang=lang, seconds=_number(f"{seconds:.1f}", lang)))
    if f.get("html"):  # the files the study asked for (brecha.report_files)
        print(MSG("html", lang=lang, path=f["html"]))
    if f.get("excel"):
        print(MSG("excel", lang=lang, path=f["excel"], n=_number(f"{len(report.tables):,}", lang)))
    if f.get("dashboard"):
        print(MSG("dashboard", lang=lang, path=f["dashboard"]))
    if f.get("tables"):
        print(MSG("tables", lang=lang, path=f["tables"], sep=os.sep))
    if f.get("figures"):
        print(MSG("figures", lang=lang, path=f["figures"], sep=os.sep,
                  n=_number(f"{len({x.filename for x in report.figures}):,}", lang)))
    if report.excluded:
        print(MSG("excluded", lang=lang))
        for item in dict.fromkeys(report.excluded):
            print(f"  - {item}")
    else:
        print(MSG("nothing_excluded", lang=lang))
    if report.notes:
        print(MSG("caveats", lang=lang))
        for note in dict.fromkeys(report.notes):
            print(f"  - {note}")
