"""``brecha run STUDY.toml [-o DIR]``: the same as ``brecha report STUDY.toml``."""
from __future__ import annotations

from ..i18n import Catalog
from .report import _arguments, run as _run_report

MSG = Catalog({"help": ("ejecutar un estudio (igual que 'brecha report ESTUDIO.toml')",
                        "run a study (the same as 'brecha report STUDY.toml')")})


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("run", help=MSG("help"), description=MSG("help"))
    _arguments(p)
    p.set_defaults(func=_run_report)
