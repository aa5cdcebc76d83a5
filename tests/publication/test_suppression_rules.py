"""The suppression rules on small hand-made tables (values worked by hand in each test), the policy's checks,
rounding and the reliability flag."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from brecha.errors import InputError
from brecha.publication import make_policy, reliability, round_counts, suppress_cells


def cells(rows, stratum="2015"):
    """rows: (node, parent, value)."""
    return pd.DataFrame([{"stratum": stratum, "node": n, "parent": p, "value": v} for n, p, v in rows])


def status_of(table, k, zeros="show"):
    return dict(zip(table["node"], suppress_cells(table, k, zeros)))


def test_one_small_cell_gets_the_smallest_complement_that_reaches_k():
    # region R = 2 + 7 + 30 + 0 + 4 = 43; K = 5: 2 and 4 are primary (hidden sum 6 >= 5, two cells): done
    t = cells([("a", "region:R", 2), ("b", "region:R", 7), ("c", "region:R", 30), ("d", "region:R", 0),
               ("e", "region:R", 4), ("region:R", "TOTAL", 43), ("TOTAL", "", 43)])
    s = status_of(t, 5)
    assert s == {"a": "suppressed", "e": "suppressed", "b": "", "c": "", "d": "", "region:R": "", "TOTAL": ""}
    # without e (its 4 now 0 and published): a alone -> complement: the smallest count >= K - 2 = 3: b (7)
    t.loc[t["node"] == "e", "value"] = 0
    s = status_of(t, 5)
    assert s["a"] == "suppressed" and s["b"] == "suppressed_secondary"
    assert [n for n, v in s.items() if v] == ["a", "b"]


def test_two_primaries_below_k_take_one_more_and_zeros_are_never_a_complement_for_the_sum():
    # 1 + 1 = 2 < K = 3: one more cell; candidates 0, 1.. none published >= 1 except 9 and 40 -> 9 (>= 3 - 2)
    t = cells([("a", "region:R", 1), ("b", "region:R", 1), ("z", "region:R", 0), ("c", "region:R", 9),
               ("d", "region:R", 40), ("region:R", "TOTAL", 51), ("TOTAL", "", 51)])
    s = status_of(t, 3)
    assert (s["a"], s["b"], s["c"], s["z"], s["d"]) == ("suppressed", "suppressed", "suppressed_secondary", "", "")


def test_a_small_region_hides_its_total_and_a_second_region_and_cells_below_it():
    # region S has one commune of 2 deaths: the commune and S are primary; TOTAL = R + S is published, so a
    # second region must go (R, the only other), and R's group then needs a hidden member: the smallest
    # count >= K = 5 -> r2 (6)
    t = cells([("s1", "region:S", 2), ("r1", "region:R", 20), ("r2", "region:R", 6), ("r3", "region:R", 11),
               ("region:S", "TOTAL", 2), ("region:R", "TOTAL", 37), ("TOTAL", "", 39)])
    s = status_of(t, 5)
    assert s["s1"] == "suppressed" and s["region:S"] == "suppressed"
    assert s["region:R"] == "suppressed_secondary" and s["r2"] == "suppressed_secondary"
    assert s["r1"] == s["r3"] == s["TOTAL"] == ""


def test_zeros_hidden_need_a_positive_partner():
    t = cells([("a", "region:R", 0), ("b", "region:R", 0), ("c", "region:R", 12), ("d", "region:R", 25),
               ("region:R", "TOTAL", 37), ("TOTAL", "", 37)])
    s = status_of(t, 5, zeros="hide")
    assert s["a"] == s["b"] == "suppressed" and s["c"] == "suppressed_secondary" and s["d"] == ""
    assert status_of(t, 5, zeros="show") == {n: "" for n in s}


def test_strata_are_independent_and_missing_counts_are_outside_the_sums():
    t = pd.concat([cells([("a", "region:R", 3), ("b", "region:R", 50), ("c", "region:R", np.nan),
                          ("region:R", "", 53)], "2014"),
                   cells([("a", "region:R", 30), ("b", "region:R", 50), ("region:R", "", 80)], "2015")])
    st = suppress_cells(t.reset_index(drop=True), 5)
    assert list(st) == ["suppressed", "suppressed_secondary", "", "", "", "", ""]


def test_policy_checks_name_the_argument():
    assert make_policy(5, 5, "hide").suppress == 5
    for bad in (0, -1, 100, 2.5, "x", True):
        with pytest.raises(InputError) as err:
            make_policy(bad)
        assert err.value.argument == "suppress"
    with pytest.raises(InputError) as err:
        make_policy(5, 1)
    assert err.value.argument == "round"
    with pytest.raises(InputError):
        make_policy(5, zeros="maybe")


def test_rounding_and_reliability():
    assert list(round_counts([0, 2, 3, 7, 8, 12, 13, 25], 5)) == [0, 0, 5, 5, 10, 10, 15, 25]
    assert list(round_counts([7], None)) == [7]
    assert list(reliability([0, 19, 20, 250, None])) == ["unstable", "unstable", "", "", ""]
