"""The arrays of one models call, and the panel transforms computed once from them (issue 19).

One :class:`PanelArrays` per call holds the outcome ``y`` (N), the covariates ``X`` (N x K, float), the
integer unit and year codes of each row (rows sorted by unit, then year) and the weights, if any
(divided by their mean, as linearmodels does). From
these it computes, once, and hands to every model and test of the call:

- the unit sums and means, by ``np.bincount`` over the unit codes:
  ybar_i = sum_t y_it / T_i, xbar_i likewise (T_i = the unit's rows);
- the within (one-way fixed effects) arrays: y_it - ybar_i and x_it - xbar_i; with weights w_it, the
  weighted form of linearmodels ``PanelOLS(..., weights=w)``: sqrt(w_it) (y_it - ybar^w_i),
  ybar^w_i = sum_t w_it y_it / sum_t w_it;
- the year indicators year_<y> (every year but the first) under each transform, implicit
  (``year_indicators``: never an N x (T-1) matrix);
- the quasi-demeaned (random effects) arrays a_it - theta_i abar_i for the Swamy-Arora theta of each
  unit (``random_effects.swamy_arora``), from the same unit means.

- the two-way (unit and year) within arrays of ``fe2``: the one-way within arrays less their least-squares
  projection on the within-transformed year indicators (exact on unbalanced panels, from unit and year sums).

Why not linearmodels' ``PanelData``: it holds every variable in a (unit, year) MultiIndexed frame,
repeats the demeaning in each fit and computes between and overall R² after each fit; at 173,000 units
x 20 years the models call peaked at 2.5 GB with it (docs/performance.md). The estimates from these
arrays equal linearmodels' to about 1e-12 relative (tests/models/test_panel_arrays.py).
"""
from __future__ import annotations

import numpy as np


class PanelArrays:
    """Outcome, covariates, unit and year codes and weights of the rows a models call uses.

    >>> import numpy as np
    >>> a = PanelArrays(np.array([1., 3., 2., 6.]), np.array([[1.], [2.], [3.], [5.]]), ["x"],
    ...                 np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), [2000, 2001])
    >>> a.within()[0].tolist(), a.within()[1][:, 0].tolist()
    ([-1.0, 1.0, -2.0, 2.0], [-0.5, 0.5, -1.0, 1.0])
    """

    def __init__(self, y, X, names, units, years, year_labels, weights=None):
        self.y = np.ascontiguousarray(y, dtype=float)
        self.X = np.asarray(X, dtype=float).reshape(len(self.y), -1)
        self.names = list(names)
        self.units = np.asarray(units, dtype=np.int64)
        self.years = np.asarray(years, dtype=np.int64)
        self.year_labels = list(year_labels)
        self.weights = None
        if weights is not None:
            # rescaled to mean 1, as linearmodels does (the fit is unchanged; the weighted SSR is on this scale)
            scaled = np.asarray(weights, dtype=float) / np.max(weights)
            self.weights = scaled / scaled.mean()
        self.nobs = len(self.y)
        self.n_units = int(self.units.max()) + 1 if self.nobs else 0
        self.n_years = len(self.year_labels)
        self.t_i = np.bincount(self.units, minlength=self.n_units).astype(float)
        self.balanced = bool(np.all(self.t_i == self.t_i[0])) if self.n_units else True
        self._cache: dict = {}

    @classmethod
    def from_design(cls, design) -> "PanelArrays":
        """The arrays of a ``_design.Design`` (frame sorted by unit and year)."""
        import pandas as pd

        frame = design.frame
        units = pd.factorize(frame["unit"], sort=True)[0]
        years, labels = pd.factorize(frame["year"], sort=True)
        X = frame[list(design.covariates)].to_numpy(float) if design.covariates else np.empty((len(frame), 0))
        w = frame[design.weights].to_numpy(float) if design.weights else None
        return cls(frame[design.outcome].to_numpy(float), X, design.covariates, units, years,
                   [int(v) for v in labels], w)

    def columns(self, names) -> np.ndarray:
        """The covariate columns ``names`` of X (a copy, N x len(names))."""
        return self.X[:, [self.names.index(n) for n in names]]

    def unit_sums(self, a: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """sum_t a_it (times w_it when given) per unit: (n_units, k) for a 2-d ``a``, (n_units,) for 1-d."""
        if a.ndim == 1:
            return np.bincount(self.units, weights=a if weights is None else weights * a, minlength=self.n_units)
        out = np.empty((self.n_units, a.shape[1]))
        for j in range(a.shape[1]):
            col = a[:, j] if weights is None else weights * a[:, j]
            out[:, j] = np.bincount(self.units, weights=col, minlength=self.n_units)
        return out

    def unit_means(self, a: np.ndarray) -> np.ndarray:
        """abar_i = sum_t a_it / T_i per unit (unweighted)."""
        sums = self.unit_sums(a)
        return sums / (self.t_i if sums.ndim == 1 else self.t_i[:, None])

    @property
    def y_bar(self) -> np.ndarray:
        if "y_bar" not in self._cache:
            self._cache["y_bar"] = self.unit_means(self.y)
        return self._cache["y_bar"]

    @property
    def X_bar(self) -> np.ndarray:
        if "X_bar" not in self._cache:
            self._cache["X_bar"] = self.unit_means(self.X)
        return self._cache["X_bar"]

    def within(self, weighted: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(y, X) after the within transform: unweighted a_it - abar_i; weighted
        sqrt(w_it) (a_it - abar^w_i) with abar^w_i = sum_t w_it a_it / sum_t w_it (linearmodels'
        ``PanelData.demean("entity", weights=w)``). Computed once per call."""
        key = "within_w" if weighted else "within"
        if key not in self._cache:
            A = self._one_way(weighted)
            self._cache[key] = (A[:, 0], A[:, 1:])
        return self._cache[key]

    def _one_way(self, weighted: bool) -> np.ndarray:
        """[y, X] after the within transform (see :meth:`within`), one N x (1 + k) array filled column by
        column (no N x k temporaries)."""
        A = np.empty((self.nobs, 1 + self.X.shape[1]), order="F")
        columns = [self.y, *self.X.T]
        if weighted:
            w = self.weights
            sw = np.bincount(self.units, weights=w, minlength=self.n_units)
            root = np.sqrt(w)
            for j, col in enumerate(columns):
                mean = np.bincount(self.units, weights=w * col, minlength=self.n_units) / sw
                A[:, j] = root * (col - mean[self.units])
        else:
            means = [self.y_bar, *self.X_bar.T]
            for j, col in enumerate(columns):
                A[:, j] = col - means[j][self.units]
        return A

    def varies_within(self) -> np.ndarray:
        """For each covariate, whether x_it - xbar_i does not vanish: max |x_it - xbar_i| > 1e-10 max(|x|, 1)
        (``random_effects.within_keep``'s rule), one column at a time."""
        out = np.zeros(self.X.shape[1], bool)
        for j in range(self.X.shape[1]):
            col = self.X[:, j]
            out[j] = np.abs(col - self.X_bar[self.units, j]).max() > 1e-10 * max(np.abs(col).max(), 1.0)
        return out

    def within_two_way(self, weighted: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(y, X) after the two-way (unit and year) within transform, exactly, on unbalanced panels too:
        the one-way within arrays less their projection on the one-way within transform of the year
        indicators (Frisch-Waugh-Lovell; what linearmodels ``PanelData.demean("both")`` computes; weighted:
        all in the sqrt(w)-scaled space). The indicators are never built: the projection comes from unit and
        year sums (``year_indicators``; T x T normal equations, pseudo-inverse when a year's indicator
        vanishes)."""
        key = "within2_w" if weighted else "within2"
        if key not in self._cache:
            from .year_indicators import partial_out

            one_way = self._cache.get("within_w" if weighted else "within")
            # the one-way arrays are not kept for this (issue 19: memory) unless a one-way fit made them
            E = np.column_stack(one_way) if one_way is not None else self._one_way(weighted)
            E = partial_out(self.year_indicators("within", weighted), E)
            self._cache[key] = (E[:, 0], E[:, 1:])
        return self._cache[key]

    def year_names(self) -> list[str]:
        """The names year_<y> of the year indicators: every year but the first (the reference)."""
        return [f"year_{y}" for y in self.year_labels[1:]]

    def year_indicators(self, transform: str, weighted: bool = False, theta_unit: np.ndarray | None = None):
        """The year indicators under a fit's transform (``year_indicators.YearIndicators``, implicit):
        ``"pooled"`` (sqrt(w)-scaled when ``weighted``), ``"within"`` (unit-demeaned; weighted: linearmodels'
        weighted form) or ``"random"`` (quasi-demeaned with ``theta_unit``)."""
        from .year_indicators import YearIndicators

        w = self.weights if weighted else None
        r = None if w is None else np.sqrt(w)
        args = (self.units, self.years, self.n_units, self.n_years)
        if transform == "pooled":
            return YearIndicators(*args, r=r)
        if transform == "within":
            return YearIndicators(*args, r=r, lam=1.0, omega=w)
        if transform == "random":
            return YearIndicators(*args, lam=theta_unit)
        raise ValueError(transform)

    def quasi_demean(self, a: np.ndarray, theta_unit: np.ndarray, means: np.ndarray | None = None) -> np.ndarray:
        """a_it - theta_i abar_i (random-effects transform), ``means`` = abar_i when already known."""
        if means is None:
            means = self.unit_means(a)
        theta = theta_unit[self.units]
        if a.ndim == 1:
            return a - theta * means[self.units]
        return a - theta[:, None] * means[self.units]
