"""Publishing safely: the policy (K, rounding base, zeros rule), primary and secondary suppression of
small death counts, rounding, and the reliability flag of rates.

The statistics are always computed on the full data; only what is *written* is protected
(:mod:`brecha.publication_tables` applies this module to a result table).

Primary suppression
    Every published death count in 1..K is hidden (K = ``suppress``; sdcTable's default is 3, many
    ministries use 5, CDC WONDER 10). With ``zeros="hide"`` counts of 0 are hidden too; with ``"show"``
    (default) they are published, as most national rules allow.

Secondary suppression (the complementary cells)
    A table is a tree of sums per stratum (period and outcome): each unit's count adds up to its region's
    (``region:CODE``), the regions' to the country's (``TOTAL``). A hidden cell must not be derivable from
    the published cells and totals. For such a tree it is enough (every hidden cell then has an interval
    of positive width over the non-negative tables that agree with what is published; the tests check it
    by linear programming, ``scipy.optimize.linprog``) that in every group (a total and its members):

    A. the number of hidden cells is 0 or at least 2, and
    B. when a group has hidden cells, its hidden members add up to at least K (more than 0 is what rule A
       needs for an interval of positive width; K is the width REFERENCE W.6 asks for), as far as the
       group's published positive members allow.

    Rule for choosing the complementary cell of a group breaking A or B (deterministic; it hides as little
    as possible): among the group's published members, the *smallest* count that brings the hidden
    members' sum to at least K; when no member reaches it, the largest positive count; a zero only when nothing else is
    left (and never for rule B); ties go to the first code in order. When a hidden total has no published
    member to pair with, the total's own group goes up a level. The groups are repaired all at once, pass
    after pass, until none breaks a rule (the hidden set only grows, so this ends).

    Hand-written because the generic tools that do this (R's sdcTable, tau-Argus) are not Python
    packages and know nothing of rates; the rule above is the classic "at least two suppressions per
    row" condition of one-dimensional hierarchical tables (Hundepool et al. 2012, *Statistical Disclosure
    Control*, ch. 4.4), with the smallest-sufficient choice of complement.

Rounding (optional)
    Published death counts are rounded to the nearest multiple of ``round`` (e.g. 5; halves up) and flagged
    ``rounded`` where the value changed. Rounding is a presentation convention, not a protection here: rates
    and intervals stay computed on the exact counts.

Reliability (always, with or without suppression)
    A rate on fewer than 20 events is marked ``unstable`` (NCHS: its relative standard error, 1/sqrt(D), is
    above 22 %; National Center for Health Statistics, *Health, United States*, technical notes).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import InputError
from .i18n import Catalog

UNSTABLE_BELOW = 20  # NCHS: fewer than 20 events -> relative standard error above 22 %
ZERO_RULES = ("show", "hide")
# inequality measures that are one or two units' rates when each unit is a subgroup (the range D, the ratio R,
# percentiles, the distance to the best unit, PAF/PAR against it): a unit's rate gives its count back with its
# births, so under suppression they are hidden
ONE_UNIT_MEASURES = frozenset({"d", "r", "ratio_p90p10", "d_p80p20", "d_p90p10", "d_p95p5", "mdbu", "mdbw", "paf",
                               "par"})
TOTAL = "TOTAL"

MSG = Catalog({
    "bad_k": ("el umbral de supresión debe ser un entero de 1 a 99, no {value}",
              "the suppression threshold must be a whole number from 1 to 99, not {value}"),
    "bad_k_hint": ("p. ej. 5 oculta los conteos de 1 a 5 defunciones", "e.g. 5 hides counts of 1 to 5 deaths"),
    "bad_round": ("la base de redondeo debe ser un entero de 2 a 100, no {value}",
                  "the rounding base must be a whole number from 2 to 100, not {value}"),
    "bad_round_hint": ("p. ej. round = 5; sin redondeo omita la opción", "e.g. round = 5; leave it out for none"),
    "bad_zeros": ("la regla de ceros debe ser \"show\" o \"hide\", no {value}",
                  "the zeros rule must be \"show\" or \"hide\", not {value}"),
    "note_suppress": ("Publicación protegida: los conteos de 1 a {k} {k:defunción|defunciones} están ocultos (supresión primaria, "
                      "flag 'suppressed'), y con ellos su tasa, IC y toda cifra derivada que los revelaría (RR, RA, "
                      "tasa suavizada); {zeros}. Otras celdas se ocultan para que ningún valor oculto se pueda "
                      "deducir de los publicados y de los totales de región y país (supresión secundaria, flag "
                      "'suppressed_secondary'; regla: en cada total y sus miembros, 0 o al menos 2 celdas ocultas "
                      "que sumen más de 0, eligiendo el menor conteo que lleva la suma oculta a {k} o más). Las "
                      "estadísticas se calculan con los datos completos: solo lo que se escribe está protegido.",
                      "Protected publication: counts of 1 to {k} {k:death|deaths} are hidden (primary suppression, "
                      "flag "
                      "'suppressed'), and with them their rate, CI and every derived number that would reveal them "
                      "(RR, AR, smoothed rate); {zeros}. Further cells are hidden so that no hidden value can be "
                      "derived from the published ones and the region and country totals (secondary suppression, "
                      "flag 'suppressed_secondary'; rule: within each total and its members, 0 or at least 2 hidden "
                      "cells adding up to more than 0, choosing the smallest count that brings the hidden sum to "
                      "{k} or more). The statistics are computed on the full data: only what is written is "
                      "protected."),
    "zeros_show": ("los ceros se publican", "zeros are published"),
    "zeros_hide": ("los ceros también se ocultan", "zeros are hidden too"),
    "note_round": ("Conteos de defunciones publicados redondeados al múltiplo de {base} más cercano (flag 'rounded' "
                   "donde cambió el valor); tasas e IC se calculan con los conteos exactos.",
                   "Published death counts rounded to the nearest multiple of {base} (flag 'rounded' where the value "
                   "changed); rates and CIs are computed on the exact counts."),
    "note_unstable": ("Columna reliability = 'unstable': tasa con menos de {n} defunciones (regla del NCHS: error "
                      "estándar relativo sobre 22 %); léala con cautela.",
                      "Column reliability = 'unstable': a rate on fewer than {n} deaths (NCHS rule: relative "
                      "standard error above 22 %); read it with caution."),
    "legend_hidden": ("oculto (conteo pequeño)", "hidden (small count)"),
    "not_table": ("se esperaba una tabla [publication] con suppress, round y zeros",
                  "expected a [publication] table with suppress, round and zeros"),
})


@dataclass(frozen=True)
class Policy:
    """How tables are published: ``suppress`` = K (None: nothing hidden), ``round`` = base (None: exact
    counts), ``zeros`` = "show" | "hide"."""

    suppress: int | None = None
    round: int | None = None
    zeros: str = "show"

    @property
    def active(self) -> bool:
        return self.suppress is not None or self.round is not None


def make_policy(suppress=None, round=None, zeros="show", source: str | None = None) -> Policy:  # noqa: A002
    """A checked :class:`Policy`; wrong values raise an InputError naming the argument (``suppress``,
    ``round``, ``zeros``) and, for a study file, the file."""
    def whole(value, low, high, key, hint, argument):
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, np.integer, str)) or \
                not str(value).strip().isdigit() or not low <= int(value) <= high:
            raise InputError(MSG(key, value=value), file=source, hint=MSG(hint), argument=argument)
        return int(value)

    k = whole(suppress, 1, 99, "bad_k", "bad_k_hint", "suppress")
    base = whole(round, 2, 100, "bad_round", "bad_round_hint", "round")
    if zeros not in ZERO_RULES:
        raise InputError(MSG("bad_zeros", value=zeros), file=source, argument="zeros")
    return Policy(k, base, zeros)


def reliability(events) -> np.ndarray:
    """'unstable' where a rate rests on fewer than 20 events (NCHS), '' otherwise (and where no count)."""
    values = pd.to_numeric(pd.Series(events), errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    return np.where(values < UNSTABLE_BELOW, "unstable", "").astype(object)


def round_counts(values, base: int | None) -> np.ndarray:
    """Counts rounded to the nearest multiple of ``base`` (halves up: 7 -> 5, 8 -> 10 with base 5)."""
    values = np.asarray(values, dtype="float64")
    if not base:
        return values
    return base * np.floor(values / base + 0.5)


def suppress_cells(cells: pd.DataFrame, k: int, zeros: str = "show") -> np.ndarray:
    """Primary and secondary suppression of a forest of sums (the module docstring's rules A and B).

    ``cells``: one row per published count with ``stratum`` (tables that are not added together: period,
    outcome), ``node`` (the cell's key within the stratum: a unit, ``region:CODE``, ``TOTAL``), ``parent``
    (the node it adds up to, '' for none) and ``value`` (the count; missing = not part of any sum). The
    rows are taken in their order for ties. Returns the status of each row: '' (published),
    ``suppressed`` or ``suppressed_secondary``.
    """
    n = len(cells)
    value = pd.to_numeric(cells["value"], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    valid = ~np.isnan(value)
    hidden = np.zeros(n, dtype=np.int8)  # 0 published, 1 primary, 2 secondary
    primary = valid & (value >= 1) & (value <= k)
    if zeros == "hide":
        primary |= valid & (value == 0)
    hidden[primary] = 1
    stratum = cells["stratum"].astype(str).to_numpy()
    keys = pd.MultiIndex.from_arrays([stratum, cells["node"].astype(str).to_numpy()])
    wanted = pd.MultiIndex.from_arrays([stratum, cells["parent"].fillna("").astype(str).to_numpy()])
    parent = keys.get_indexer(wanted)  # -1: no parent (a root, or a member without a published total)
    parent[~valid] = -1
    member = parent >= 0
    kids = np.flatnonzero(member)
    order = np.arange(n)
    while True:
        is_hidden = hidden > 0
        count = np.bincount(parent[kids], weights=is_hidden[kids], minlength=n) + is_hidden
        hidden_sum = np.bincount(parent[kids], weights=np.where(is_hidden[kids], value[kids], 0.0), minlength=n)
        published_positive = np.bincount(parent[kids], weights=(~is_hidden[kids]) & (value[kids] > 0), minlength=n)
        n_members = np.bincount(parent[kids], minlength=n)
        group = valid & (n_members > 0)
        rule_a = group & (count == 1)
        rule_b = group & (count >= 2) & (hidden_sum < k) & (published_positive > 0)
        broken = rule_a | rule_b
        if not broken.any():
            return np.select([hidden == 1, hidden == 2], ["suppressed", "suppressed_secondary"], "").astype(object)
        cand = kids[broken[parent[kids]] & ~is_hidden[kids]]
        g = parent[cand]
        v = value[cand]
        need = np.maximum(k - hidden_sum[g], 1)
        cls = np.where(v >= need, 0, np.where(v > 0, 1, 2))
        allowed = ~(rule_b[g] & (v <= 0))
        pick = pd.DataFrame({"g": g, "cls": cls, "key": np.where(cls == 0, v, -v), "order": order[cand],
                             "cell": cand})[allowed]
        pick = pick.sort_values(["g", "cls", "key", "order"], kind="stable").drop_duplicates("g")
        hidden[pick["cell"].to_numpy()] = 2
        # a group breaking rule A with no published member left: its one hidden cell is a member whose
        # total (and so itself) is known from the others -> the total is hidden, its own group goes up
        lonely = np.setdiff1d(np.flatnonzero(rule_a), pick["g"].to_numpy())
        lonely = lonely[hidden[lonely] == 0]
        if not len(pick) and not len(lonely):  # nothing left to hide in the broken groups
            return np.select([hidden == 1, hidden == 2], ["suppressed", "suppressed_secondary"], "").astype(object)
        hidden[lonely] = 2


def notes(policy: Policy, lang: str | None = None) -> list[str]:
    """The notes a protected table carries (what was hidden and why, rounding)."""
    out = []
    if policy.suppress is not None:
        out.append(MSG("note_suppress", lang=lang, k=policy.suppress,
                       zeros=MSG("zeros_hide" if policy.zeros == "hide" else "zeros_show", lang=lang)))
    if policy.round:
        out.append(MSG("note_round", lang=lang, base=policy.round))
    return out


def unstable_note(lang: str | None = None) -> str:
    return MSG("note_unstable", lang=lang, n=UNSTABLE_BELOW)


def parse_publication(check, table) -> dict:
    """A study's ``[publication]`` table (``suppress = 5``, ``round = 5``, ``zeros = "show"|"hide"``), read
    with the study's checker (every problem named by its TOML key). Returns the keys given, checked."""
    if not isinstance(table, dict):
        check.fail("publication", MSG("not_table"))
        return {}
    check.known(table, ("suppress", "round", "zeros"), "publication.")
    out = {}
    for key, kind, allowed in (("suppress", "int", (1, 99)), ("round", "int", (2, 100)), ("zeros", "str", ZERO_RULES)):
        if key in table:  # each field checked on its own: one run lists every problem
            value = check.guard(check.typed, f"publication.{key}", table[key], kind, allowed)
            if value is not None:
                out[key] = value
    return out


def study_policy(study) -> Policy | None:
    """The :class:`Policy` of a parsed study's ``[publication]`` table (None when it has none)."""
    settings = getattr(study, "publication", None) or {}
    if not settings:
        return None
    return make_policy(settings.get("suppress"), settings.get("round"), settings.get("zeros", "show"))
