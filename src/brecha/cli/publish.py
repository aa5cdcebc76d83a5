"""``--suppress K`` (with ``--round BASE`` and ``--zeros show|hide``): the one publication mechanism of the
commands (not a command itself).

A command declares the options with :func:`add_suppress_argument` (``cli.common`` re-exports it; one line
per command); :func:`publish` then runs where the command's tables are written (``cli.common.write_output``
and ``cli.rates.write_result``), so every table written by such a command goes out protected
(:mod:`brecha.publication_tables`). The reliability column (``unstable`` below 20 deaths) is added to every
written table with a death count, with or without ``--suppress``.
"""
from __future__ import annotations

import argparse

from ..i18n import Catalog

MSG = Catalog({
    "suppress_help": ("publicar protegido: ocultar los conteos de 1 a K defunciones y lo que los revelaría "
                      "(tasas, IC, RR, ...), más las celdas que los dejarían deducir de los totales de región y "
                      "país, que se agregan a la tabla (columna flag)",
                      "publish safely: hide counts of 1 to K deaths and whatever would reveal them (rates, CIs, "
                      "RR, ...), plus the cells that would let them be derived from the region and country "
                      "totals, which are added to the table (column flag)"),
    "round_help": ("redondear los conteos de defunciones publicados a esta base (p. ej. 5)",
                   "round the published death counts to this base (e.g. 5)"),
    "zeros_help": ("con --suppress: show publica los ceros (por defecto), hide los oculta también",
                   "with --suppress: show publishes zeros (default), hide hides them too"),
    "hidden": ("Publicación protegida (K = {k}): {primary} {primary:celda oculta|celdas ocultas} por conteo pequeño, "
               "{secondary} más para que no {primary:se pueda deducir|se puedan deducir} de los totales",
               "Protected publication (K = {k}): {primary} {primary:cell|cells} hidden for a small count, {secondary} "
               "more so that {primary:it|they} cannot be derived from the totals"),
    "extremes": ("--suppress: las medidas que son la tasa de una o dos unidades (D, R, percentiles, distancia a la "
                 "mejor unidad, FAP/RAP) se ocultan (flag suppressed_secondary): con sus nacimientos darían su conteo",
                 "--suppress: the measures that are one or two units' rates (D, R, percentiles, distance to the best "
                 "unit, PAF/PAR) are hidden (flag suppressed_secondary): with their births they would give the "
                 "count back"),
    "no_counts": ("--suppress: esta tabla no publica conteos ni tasas por unidad; se escribe tal cual",
                  "--suppress: this table publishes no counts or rates per unit; it is written as it is"),
})


def add_suppress_argument(parser: argparse.ArgumentParser) -> None:
    """--suppress K, --round BASE, --zeros show|hide (checked by :func:`brecha.publication.make_policy`)."""
    parser.add_argument("--suppress", type=int, metavar="K", help=MSG("suppress_help"))
    parser.add_argument("--round", type=int, metavar="BASE", help=MSG("round_help"))
    parser.add_argument("--zeros", choices=["show", "hide"], default="show", help=MSG("zeros_help"))
    parser.set_defaults(publication=True)


def policy(args):
    """The command line's :class:`brecha.publication.Policy` (None when the command has no such options)."""
    if not getattr(args, "publication", False):
        return None
    from ..publication import make_policy

    return make_policy(getattr(args, "suppress", None), getattr(args, "round", None),
                       getattr(args, "zeros", "show"))


def publish(table, args, *, say: bool = True):
    """The table as the command may write it: protected under the command line's policy, with the
    reliability column; done once per table (``attrs["published"]``)."""
    if table is None or table.attrs.get("published"):
        return table
    from ..publication_tables import add_reliability, protect

    rule = policy(args)
    if rule is not None and rule.active:
        protected = protect(table, rule, getattr(args, "publication_panel", None))
        if say and "events" in table.columns and rule.suppress is not None:
            keys = [c for c in ("unit", "period", "outcome") if c in protected.columns]
            cells = protected.drop_duplicates(keys)  # one cell per unit and period (disparity: 3 rows each)
            flags = cells["flag"].astype(object).fillna("").astype(str).str.split(";")
            print(MSG("hidden", k=rule.suppress, primary=int(flags.map(lambda f: "suppressed" in f).sum()),
                      secondary=int(flags.map(lambda f: "suppressed_secondary" in f).sum())))
        elif say and rule.suppress is not None:
            notes = list(protected.attrs.get("notes", ()))
            protected.attrs["notes"] = [*notes, MSG("no_counts")]
    else:
        protected = add_reliability(table)
    if rule is not None and rule.suppress is not None:
        protected = _hide_unit_extremes(protected, args)
    protected.attrs["published"] = True
    return protected


def _hide_unit_extremes(table, args):
    """``inequality`` between units (no --groups, no --covariate): the measures of :data:`ONE_UNIT_MEASURES`
    hidden (flag ``suppressed_secondary``); the measures that combine every unit are published."""
    if getattr(args, "command", None) != "inequality" or getattr(args, "groups", None) \
            or getattr(args, "covariate", None) or "measure" not in table.columns or "unit" in table.columns:
        return table
    from ..publication import ONE_UNIT_MEASURES

    out = table.copy()
    hide = out["measure"].astype(str).isin(ONE_UNIT_MEASURES).to_numpy()
    if not hide.any():
        return table
    for col in ("estimate", "lower", "upper", "se"):
        if col in out.columns:
            out[col] = out[col].mask(hide)
    own = out["flag"].astype(object).fillna("").astype(str) if "flag" in out.columns else None
    out["flag"] = [("suppressed_secondary" if h else (own.iloc[i] if own is not None else ""))
                   for i, h in enumerate(hide)]
    out.attrs = dict(table.attrs)
    out.attrs["notes"] = [n for n in table.attrs.get("notes", ()) if n != MSG("no_counts")] + [MSG("extremes")]
    return out


def remember_panel(args, panel) -> None:
    """Keep the command's Panel for the totals the protected tables are published with."""
    if getattr(args, "publication", False):
        args.publication_panel = panel
