"""``brecha dashboard [STUDY.toml] [-o FILE.html] [--example chile|brazil]``: the study's offline dashboard only.

Runs the study as ``brecha report`` does and writes just its ``dashboard.html`` (one self-contained page:
:mod:`brecha.report.dashboard`), atomically, to ``-o``. ``brecha report`` writes the same page beside
``index.html``.
"""
from __future__ import annotations

from pathlib import Path

from ..i18n import Catalog
from .report import MSG as REPORT_MSG

MSG = Catalog({
    "help": ("escribir solo el tablero interactivo sin conexión (un archivo HTML) de un estudio",
             "write only a study's offline interactive dashboard (one HTML file)"),
    "study_help": ("archivo de estudio (.toml); sin él se usa el ejemplo chileno",
                   "study file (.toml); without it the Chilean example runs"),
    "out_help": ("archivo HTML de salida (por defecto: tablero-brecha.html)",
                 "output HTML file (default: brecha-dashboard.html)"),
    "not_html": ("el tablero es una página HTML y -o termina en '{suffix}'",
                 "the dashboard is an HTML page and -o ends in '{suffix}'"),
    "not_html_hint": ("use un nombre terminado en .html, p. ej. {example}",
                      "use a name ending in .html, e.g. {example}"),
    "saved": ("Guardado: {path} ({size} MB)", "Saved: {path} ({size} MB)"),
})


def add_parser(subparsers) -> None:
    from .common import declare_outputs

    p = subparsers.add_parser("dashboard", help=MSG("help"), description=MSG("help"))
    p.add_argument("study", nargs="?", metavar="STUDY.toml", help=MSG("study_help"))
    p.add_argument("-o", "--output", metavar="FILE.html", help=MSG("out_help"))
    p.add_argument("--example", choices=["chile", "chile-best", "chile-santiago", "brazil", "argentina", "araucania"],
                   help=REPORT_MSG("example_help"))  # the same examples as brecha report
    declare_outputs(p)
    p.set_defaults(func=run, output_kind="page", output_check=check_html_name)


def check_html_name(path) -> None:
    """-o must end in .html or .htm (checked before the work)."""
    from ..errors import InputError

    suffix = Path(path).suffix.lower()
    if suffix not in (".html", ".htm"):
        raise InputError(MSG("not_html", suffix=suffix), file=str(path),
                         hint=MSG("not_html_hint", example=Path(path).with_suffix(".html").name))


def run(args) -> int:
    from ..errors import InputError
    from ..outputs import check_file_targets, write_file
    from ..progress import note
    from ..report.build import build_report
    from ..report.dashboard import render_dashboard
    from ..study import example_study, read_study
    from .report import _cli_language, _study_inputs

    if args.study and args.example:
        raise InputError(REPORT_MSG("both"))
    study = read_study(args.study) if args.study else example_study(args.example or "chile")
    lang = _cli_language(args, study)
    out = Path(args.output or ("tablero-brecha.html" if lang == "es" else "brecha-dashboard.html"))
    if not args.output:  # -o was checked before the work (cli.common); the default name is checked here
        check_file_targets([out], _study_inputs(study))
        check_html_name(out)
    report = build_report(study, None, lang=lang, write=False, progress=lambda m: note(f"  … {m}"))
    page = render_dashboard(report)
    write_file(out, lambda temp: Path(temp).write_text(page, encoding="utf-8"))
    size = len(page.encode("utf-8")) / 1e6
    print(MSG("saved", lang=lang, path=out, size=f"{size:.1f}".replace(".", "," if lang == "es" else ".")))
    return 0
