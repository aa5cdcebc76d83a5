"""``brecha spatial PANEL``: global Moran's I of the rates, and per unit LISA clusters and Getis-Ord Gi*.

``-o OUT.csv`` writes the global table (``period, outcome, measure, estimate, expected, z, p_value, method``)
to OUT.csv and the local table (``unit, period, outcome, lisa, lisa_p, lisa_q, cluster, gi_star, gi_z, gi_p``)
beside it as OUT.local.csv (same format as OUT; both or neither). See :mod:`brecha.spatial.autocorrelation`.
"""
from __future__ import annotations

from pathlib import Path

from ..i18n import Catalog
from .common import declare_outputs
from .rates import add_common, load_subset

MSG = Catalog({
    "help": ("autocorrelación espacial de las tasas: I de Moran global, clústeres LISA y Gi* de Getis-Ord",
             "spatial autocorrelation of the rates: global Moran's I, LISA clusters and Getis-Ord Gi*"),
    "neighbours_help": ("vecindad: queen (por defecto; polígonos que se tocan), rook (comparten un borde) o "
                        "knn:K (las K cabeceras más cercanas)",
                        "neighbours: queen (default; polygons that touch), rook (share an edge) or knn:K (the K "
                        "nearest seats)"),
    "permutations_help": ("permutaciones para los valores p (999 por defecto; 0 solo analítico en el global)",
                          "permutations for the p-values (default 999; 0: analytic only for the global test)"),
    "seed_help": ("semilla de las permutaciones (12345 por defecto)", "seed of the permutations (default 12345)"),
    "alpha_help": ("tasa de falsos descubrimientos para llamar clúster a una unidad (0.05 por defecto)",
                   "false discovery rate at which a unit is called a cluster (default 0.05)"),
    "clusters": ("Clústeres LISA (q ≤ {alpha}, {period}): {counts}", "LISA clusters (q ≤ {alpha}, {period}): {counts}"),
    "caveat": ("Los clústeres describen dónde hay tasas parecidas juntas; no explican por qué.",
               "Clusters describe where similar rates sit together; they do not explain why."),
    "saved_local": ("Guardado: {path} ({rows} {rows:fila|filas})", "Saved: {path} ({rows} {rows:row|rows})"),
})

GLOBAL = ["period", "outcome", "measure", "estimate", "expected", "z", "p_value", "method"]
LOCAL = ["unit", "period", "outcome", "lisa", "lisa_p", "lisa_q", "cluster", "gi_star", "gi_z", "gi_p"]


def local_path(out) -> Path:
    """OUT.csv -> OUT.local.csv (the local table beside the global one, in the same format)."""
    path = Path(out)
    return path.with_name(f"{path.stem}.local{path.suffix}")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("spatial", help=MSG("help"), description=MSG("help"))
    add_common(p)
    p.add_argument("--neighbours", default="queen", metavar="queen|rook|knn:K", help=MSG("neighbours_help"))
    p.add_argument("--permutations", type=int, default=999, help=MSG("permutations_help"))
    p.add_argument("--seed", type=int, default=12345, help=MSG("seed_help"))
    p.add_argument("--alpha", type=float, default=0.05, help=MSG("alpha_help"))
    declare_outputs(p, companions=lambda out: [local_path(out)])
    p.set_defaults(func=run)


def run(args) -> int:
    from ..io import write_table
    from ..outputs import together
    from ..spatial.autocorrelation import spatial_autocorrelation
    from .common import print_notes, prose_number, publish, write_output
    from .rates import order

    panel = load_subset(args)
    glob, local = spatial_autocorrelation(panel, outcome=args.outcome, years=args.years, pool=args.pool,
                                          neighbours=args.neighbours, permutations=args.permutations,
                                          seed=args.seed, alpha=args.alpha)
    glob, local = order(glob, GLOBAL), order(local, LOCAL)
    print_notes(glob.attrs.get("notes", ()))
    for period, part in local.groupby("period", sort=True):
        counts = part["cluster"].value_counts()
        print(MSG("clusters", alpha=prose_number(args.alpha), period=period,
                  counts=", ".join(f"{k} {v}" for k, v in counts.items())))
    print(MSG("caveat"))
    out = getattr(args, "output", None)
    if not out:
        write_output(glob, args)
        return 0
    local = publish(local, args)  # --suppress/--round: the local table holds each unit's deaths and rate
    with together():  # the global and the local tables appear together or not at all
        write_output(glob, args)
        path = write_table(local, local_path(out))
    print(MSG("saved_local", path=path, rows=len(local)))
    return 0
