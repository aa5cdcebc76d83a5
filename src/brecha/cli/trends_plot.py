"""``brecha trends --method joinpoint --plot FILE.svg|FILE.png``: the joinpoint figure a paper can use (observed
rates, fitted segments, joinpoints, each segment's APC): one chart for one series, small multiples for up to
30 (e.g. ``--level region``). Heavy modules are imported inside the functions (start-up speed)."""
from __future__ import annotations

from ..i18n import Catalog

MSG = Catalog({
    "plot_help": ("joinpoint: figura (.svg o .png) con tasas observadas, segmentos, joinpoints y VPA; una serie "
                  "o hasta 30 (p. ej. --level region)",
                  "joinpoint: figure (.svg or .png) with observed rates, segments, joinpoints and APCs; one series "
                  "or up to 30 (e.g. --level region)"),
    "bad_plot": ("la figura debe ser .svg o .png, no '{suffix}'", "the figure must be .svg or .png, not '{suffix}'"),
    "bad_plot_hint": ("nombre la figura {stem}.svg (vectorial, para publicar) o {stem}.png",
                      "name the figure {stem}.svg (vector, for publishing) or {stem}.png"),
    "too_many": ("{n} series: la figura admite hasta 30", "{n} series: the figure takes up to 30"),
    "too_many_hint": ("use --level province|region|country o --region", "use --level province|region|country or "
                      "--region"),
    "no_poisson": ("--plot dibuja el ajuste de mínimos cuadrados: no con --family poisson",
                   "--plot draws the least-squares fit: not with --family poisson"),
    "ylabel": ("Tasa por 1.000 nacidos vivos", "Rate per 1,000 live births"),
    "apc": ("VPA", "APC"),
    "saved": ("Guardado: {path}", "Saved: {path}"),
})


def check_plot(path: str, family: str = "gaussian") -> None:
    from pathlib import Path

    from ..errors import InputError

    if family != "gaussian":
        raise InputError(MSG("no_poisson"), argument="plot")
    suffix = Path(path).suffix.lower()
    if suffix not in (".svg", ".png"):
        raise InputError(MSG("bad_plot", suffix=suffix or "-"), file=str(path), argument="plot",
                         hint=MSG("bad_plot_hint", stem=Path(path).stem or "figure"))


def write_plot(args, panel, result, fits: dict) -> None:
    """Draw to ``args.plot`` the fits the table's rows came from (``fits``: :func:`brecha.trends.trends`'s
    ``fits``), never a second fit: the figure shows the table's model whatever the options (weights, the
    permutation selection, the zero rule). The observed rates are the unit's own deaths over births."""
    import numpy as np

    from ..errors import InputError
    from ..outputs import write_file
    from ..report import figures_joinpoint as FJ
    from ..trends.apc import _event_table

    units = [u for u in result.loc[result["row"] == "aapc", "unit"].astype(str).unique() if u in fits]
    if len(units) > 30:
        raise InputError(MSG("too_many", n=len(units)), hint=MSG("too_many_hint"), argument="plot")
    table, names, _, _ = _event_table(panel, args.outcome, args.years, args.level, args.incomplete)
    unit_col = np.asarray(table["unit"]).astype(str)
    shown = {}
    for unit in units:
        keep = unit_col == unit
        x = np.asarray(table["year"])[keep].astype(float)
        e = np.asarray(table["events"])[keep].astype(float)
        b = np.asarray(table["births"])[keep].astype(float)
        ok = np.isfinite(e) & np.isfinite(b) & (b > 0)
        order = np.argsort(x[ok])
        shown[unit] = {**fits[unit], "observed_year": x[ok][order], "rate": (1000 * e / b)[ok][order]}
    fits = shown

    def fmt(v):
        text = f"{v:.1f}"
        from ..i18n import get_language

        return text.replace(".", ",") if get_language() == "es" else text

    fmt_name = args.plot.rsplit(".", 1)[-1].lower()
    if len(fits) == 1:
        figure = FJ.joinpoint_chart("plot", next(iter(fits.values())), ylabel=MSG("ylabel"), apc_label=MSG("apc"),
                                    fmt=fmt, fmt_out=fmt_name, alpha=args.alpha)
    else:
        labels = {u: names.get(u, u) or u for u in fits}
        figure = FJ.joinpoint_multiples("plot", fits, labels=labels, apc_label=MSG("apc"), fmt=fmt, fmt_out=fmt_name,
                                        alpha=args.alpha)

    def write(temp):
        with open(temp, "wb") as handle:
            handle.write(figure.data)

    path = write_file(args.plot, write)
    print(MSG("saved", path=path))
