"""brecha.distributions equals scipy.stats (the reference) for the tails and quantiles the models, report and
inequality commands use, and does not import scipy.stats."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from brecha import distributions as D

X = np.array([-3.0, -0.5, 0.0, 1e-12, 0.3, 1.0, 1.959963984540054, 2.5, 7.0, 38.0, 1e3])
DF = [1, 2, 3.5, 9, 30, 321, 1858, 1e6]
Q = np.array([1e-10, 0.001, 0.025, 0.05, 0.5, 0.95, 0.975, 0.999, 1 - 1e-10])


def test_normal_tail_and_quantile_equal_scipy_stats():
    np.testing.assert_array_equal(D.normal_sf(X), stats.norm.sf(X))
    np.testing.assert_array_equal(D.normal_quantile(Q), stats.norm.ppf(Q))
    assert D.normal_quantile(0.975) == pytest.approx(1.959963984540054, rel=1e-15)


@pytest.mark.parametrize("df", DF)
def test_t_tail_and_quantile_equal_scipy_stats(df):
    np.testing.assert_allclose(D.t_sf(X, df), stats.t.sf(X, df), rtol=1e-15, atol=0)
    np.testing.assert_allclose(D.t_quantile(Q, df), stats.t.ppf(Q, df), rtol=1e-13, atol=0)


@pytest.mark.parametrize("df", DF)
def test_chi2_and_f_tails_equal_scipy_stats(df):
    np.testing.assert_allclose(D.chi2_sf(X, df), stats.chi2.sf(X, df), rtol=1e-15, atol=0)
    for dfd in (1, 5, 1858, 1e5):
        np.testing.assert_allclose(D.f_sf(X, df, dfd), stats.f.sf(X, df, dfd), rtol=1e-13, atol=0)


def test_known_values():
    # textbook critical values: t(0.975; 10) = 2.228139, chi2 with 3 df beyond 7.814728 = 0.05, F(3, 20) 3.098391
    assert D.t_quantile(0.975, 10) == pytest.approx(2.228138851986, rel=1e-10)
    assert D.chi2_sf(7.814727903251178, 3) == pytest.approx(0.05, rel=1e-12)
    assert D.f_sf(3.098391212, 3, 20) == pytest.approx(0.05, rel=1e-8)
    assert float(D.chi2_sf(-1.0, 2)) == 1.0 and isinstance(D.chi2_sf(1.0, 2), float | np.floating)


def test_importing_it_does_not_import_scipy_stats():
    code = "import sys, brecha.distributions; print('scipy.stats' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
