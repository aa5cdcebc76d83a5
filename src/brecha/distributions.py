"""Tail probabilities and quantiles of the normal, Student t, chi-squared and F distributions.

They come from ``scipy.special`` (``ndtr``, ``ndtri``, ``stdtr``, ``stdtrit``, ``chdtrc``, ``fdtrc``), the
functions ``scipy.stats`` itself evaluates for these distributions. Importing ``scipy.stats`` costs about
1.3 s of CPU (it builds every distribution object and its documentation), more than a whole small command;
the commands that need only a p-value or a critical value import this module instead. Each function equals
its ``scipy.stats`` counterpart to the last bit (tests/test_distributions.py).
"""
from __future__ import annotations

import numpy as np
from scipy import special


def normal_sf(x):
    """P(Z > x) for a standard normal Z (``scipy.stats.norm.sf``)."""
    return special.ndtr(-np.asarray(x, dtype=float))


def normal_quantile(q):
    """The q-quantile of the standard normal (``scipy.stats.norm.ppf``)."""
    return special.ndtri(q)


def t_sf(x, df):
    """P(T > x) for Student's t with ``df`` degrees of freedom (``scipy.stats.t.sf``)."""
    return special.stdtr(df, -np.asarray(x, dtype=float))


def t_quantile(q, df):
    """The q-quantile of Student's t with ``df`` degrees of freedom (``scipy.stats.t.ppf``)."""
    return special.stdtrit(df, q)


def chi2_sf(x, df):
    """P(X > x) for chi-squared with ``df`` degrees of freedom (``scipy.stats.chi2.sf``; 1 below 0)."""
    x = np.asarray(x, dtype=float)
    return np.where(x < 0, 1.0, special.chdtrc(df, np.maximum(x, 0.0)))[()]


def f_sf(x, dfn, dfd):
    """P(F > x) for Fisher's F with (``dfn``, ``dfd``) degrees of freedom (``scipy.stats.f.sf``; 1 below 0)."""
    x = np.asarray(x, dtype=float)
    return np.where(x < 0, 1.0, special.fdtrc(dfn, dfd, np.maximum(x, 0.0)))[()]
