"""Shared promises of every measure (one parametrised test per promise, over all measures)."""
import numpy as np
import pytest

from brecha.inequality import ALL_MEASURES, summary_measures
from brecha.inequality import measures as M

RNG = np.random.default_rng(7)
N = 120  # > 100 so the HEAT many-subgroup differences apply
POP = RNG.integers(200, 5000, N).astype(float)
RATE = RNG.gamma(8, 1.2, N)  # all > 0
SE = np.sqrt(RATE * POP / 1000) / POP * 1000
ORDER = RNG.permutation(N) + 1
REF = 5

# Measures that are differences (absolute) are 0 under equality; ratios are 1.
RATIO_ONE = {"r", "rii", "kunst_mackenbach", "ratio_p90p10"}
SIGNED_BY_ORDER = {"aci", "rci", "sii", "concentration_index"}


def table(rate, pop=POP, order=ORDER, se=SE, reference=REF, favourable=False, measures="all"):
    return summary_measures(rate, pop, se=se, order=order, reference=reference, favourable=favourable,
                            measures=measures).set_index("measure")


BASE = table(RATE)


def test_every_measure_is_computed_with_order_and_reference():
    assert set(BASE.index) == set(ALL_MEASURES)
    assert BASE["estimate"].notna().all()
    # every measure has an analytic SE except the percentiles, whose CI comes from the bootstrap
    smooth = [m for m in ALL_MEASURES if m not in M.PERCENTILE_MEASURES]
    assert BASE.loc[smooth, "se"].notna().all()
    pct = BASE.loc[sorted(M.PERCENTILE_MEASURES)]
    assert pct["se"].isna().all() and pct["lower"].isna().all()
    assert pct["ci_method"].str.contains("bootstrap").all()


@pytest.mark.parametrize("name", ALL_MEASURES)
def test_perfect_equality(name):
    flat = table(np.full(N, 7.5), se=np.full(N, 0.5))
    value = flat.loc[name, "estimate"]
    if name == "mean":
        assert value == pytest.approx(7.5)
    elif name in RATIO_ONE:
        assert value == pytest.approx(1.0, abs=1e-9)
    else:
        assert value == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("name", ALL_MEASURES)
def test_relative_measures_are_scale_free_and_absolute_ones_scale(name):
    scaled = table(RATE * 3.0, se=SE * 3.0)
    a, b = BASE.loc[name, "estimate"], scaled.loc[name, "estimate"]
    if name in M.RELATIVE_MEASURES:
        assert b == pytest.approx(a, rel=1e-6)
        if name not in ("paf", "rii"):  # their SEs come from the counts, which scaling changes
            assert scaled.loc[name, "se"] == pytest.approx(BASE.loc[name, "se"], rel=1e-4, nan_ok=True)
    elif name in ("bgv", "bgv_true"):
        assert b == pytest.approx(9 * a, rel=1e-9)
    elif name == "sii":
        assert b == pytest.approx(3 * a, rel=0.05)  # logit model: nearly proportional at low rates
    else:
        assert b == pytest.approx(3 * a, rel=1e-9)


@pytest.mark.parametrize("name", ALL_MEASURES)
def test_shuffling_units_changes_nothing(name):
    perm = RNG.permutation(N)
    shuffled = table(RATE[perm], pop=POP[perm], order=ORDER[perm], se=SE[perm],
                     reference=int(np.flatnonzero(perm == REF)[0]))
    for col in ("estimate", "se"):
        assert shuffled.loc[name, col] == pytest.approx(BASE.loc[name, col], rel=1e-6, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("name", sorted(M.ORDERED_MEASURES))
def test_reversing_the_order_flips_ordered_measures(name):
    rev = table(RATE, order=-ORDER)
    a, b = BASE.loc[name, "estimate"], rev.loc[name, "estimate"]
    if name in SIGNED_BY_ORDER:
        assert b == pytest.approx(-a, rel=1e-6)
    else:  # rii and kunst_mackenbach are ratios: reversing inverts them
        assert b == pytest.approx(1.0 / a, rel=1e-6)


def test_gini_equals_the_pairwise_mean_difference_definition():
    share = POP / POP.sum()
    diff = np.abs(RATE[:, None] - RATE[None, :])
    expected = (share[:, None] * share[None, :] * diff).sum() / (2 * np.sum(share * RATE))
    assert BASE.loc["gini", "estimate"] == pytest.approx(expected, rel=1e-12)


def test_many_subgroup_differences_against_numpy_percentiles():
    assert BASE.loc["d_p90p10", "estimate"] == pytest.approx(np.percentile(RATE, 90) - np.percentile(RATE, 10))
    s = np.sort(RATE)
    assert BASE.loc["d_q5q1", "estimate"] == pytest.approx(s[-24:].mean() - s[:24].mean())
    assert BASE.loc["ratio_p90p10", "estimate"] == pytest.approx(np.percentile(RATE, 90) / np.percentile(RATE, 10))


def test_kunst_mackenbach_from_weighted_least_squares():
    sm = pytest.importorskip("statsmodels.api")
    from brecha.inequality.ordered import ridit

    rank = ridit(POP, ORDER)
    fit = sm.WLS(RATE, sm.add_constant(rank), weights=POP).fit()
    a, b = fit.params
    assert BASE.loc["kunst_mackenbach", "estimate"] == pytest.approx(a / (a + b), rel=1e-9)


def test_delta_method_matches_closed_form_theil_se():
    share = POP / POP.sum()
    mu = np.sum(share * RATE)
    r = RATE / mu
    prep = np.sum(r * (1 + np.log(r)) * share)
    se = 1000 * np.sqrt(np.sum((1 + np.log(r) - prep) ** 2 * share ** 2 * SE ** 2 / mu ** 2))
    assert BASE.loc["ti", "se"] == pytest.approx(se, rel=1e-5)


def test_skipped_measures_are_reported():
    out = summary_measures(RATE, POP, se=SE)
    skipped = out.attrs["skipped"]
    assert {"aci", "rci", "sii", "rii", "mdru", "mdrw"} <= set(skipped)
    assert "rank" in skipped["sii"] or "ordered" in skipped["sii"]
    assert not ({"aci", "sii"} & set(out["measure"]))


def test_zero_rate_makes_mld_and_ratios_undefined_with_a_note():
    rate = RATE.copy()
    rate[:30] = 0.0
    out = summary_measures(rate, POP, se=SE).set_index("measure")
    assert np.isnan(out.loc["mld", "estimate"])
    assert "0" in out.loc["mld", "note"]
    assert np.isfinite(out.loc["ti", "estimate"])


def test_bad_measure_name_is_explained():
    from brecha.errors import InputError
    from brecha.i18n import get_language, set_language

    before = get_language()
    try:
        set_language("en")
        with pytest.raises(InputError, match="unknown inequality measure 'sli'.*some of: d, r, aci"):
            summary_measures(RATE, POP, measures="sli")
        set_language("es")
        with pytest.raises(InputError, match="medida de desigualdad desconocida 'sli'"):
            summary_measures(RATE, POP, measures="sli")
    finally:
        set_language(before)


def test_concentration_index_equals_rci_with_tied_ranks():
    order = np.repeat(np.arange(1, 31), 4)  # 30 blocks of 4 tied units
    t = table(RATE, order=order, measures="rci,concentration_index")
    assert t.loc["concentration_index", "estimate"] == pytest.approx(t.loc["rci", "estimate"], rel=1e-12)
    # and tied units are interchangeable: permuting rates inside a block changes nothing
    rate = RATE.copy()
    rate[:4] = rate[:4][::-1]
    pop = POP.copy()
    pop[:4] = pop[:4][::-1]
    t2 = table(rate, pop=pop, order=order, measures="rci")
    assert t2.loc["rci", "estimate"] == pytest.approx(t.loc["rci", "estimate"], rel=1e-12)


def test_every_measure_has_a_description_and_a_label_in_both_languages():
    for name in ALL_MEASURES:
        assert M.DESCRIPTION[name]
        assert M.LABELS(name, lang="es") and M.LABELS(name, lang="en")
