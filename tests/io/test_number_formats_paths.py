"""The two ways number_formats reads a text column give the same result: Arrow's vectorised kernels (ASCII
columns, RE2 patterns) and Python's ``re`` cell by cell (the reference, and the path of non-ASCII columns).

Hypothesis draws columns of number-like text in both conventions (grouped thousands with each separator,
signs, exponents, codes with leading zeros, missing-value tokens, blanks, words); every attribute the
parser uses, each reading, and the parsed table (or the error's message and rows) must be equal.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brecha import number_formats as nf
from brecha.errors import InputError

PROPERTY = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=7)


@st.composite
def grouped(draw):
    sep = draw(st.sampled_from([",", ".", " ", "\u00a0"]))
    head = draw(st.sampled_from("123456789")) + draw(st.text(alphabet="0123456789", max_size=2))
    groups = draw(st.lists(st.text(alphabet="0123456789", min_size=3, max_size=3), min_size=1, max_size=3))
    # now and then a group of 2 or 4 digits, or a second separator: text that must not fit
    if draw(st.booleans()) and draw(st.booleans()):
        groups[-1] = groups[-1][: draw(st.sampled_from([2, 4]))] if len(groups[-1]) > 2 else groups[-1] + "5"
    if draw(st.booleans()) and draw(st.booleans()):
        return head + sep + groups[0] + draw(st.sampled_from([",", "."])) + "".join(groups[1:] or ["000"])
    return head + "".join(sep + g for g in groups)


@st.composite
def cell(draw):
    kind = draw(st.sampled_from(["int", "decimal", "grouped", "grouped_decimal", "lead", "exp", "na", "word",
                                 "blank", "code"]))
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    if kind == "int":
        text = sign + draw(DIGITS)
    elif kind == "decimal":
        text = sign + draw(DIGITS) + draw(st.sampled_from([".", ","])) + draw(DIGITS)
    elif kind == "grouped":
        text = sign + draw(grouped())
    elif kind == "grouped_decimal":
        text = sign + draw(grouped()) + draw(st.sampled_from([".", ","])) + draw(DIGITS)
    elif kind == "lead":
        text = sign + draw(st.sampled_from([".", ","])) + draw(DIGITS)
    elif kind == "exp":
        text = draw(DIGITS) + draw(st.sampled_from(["e", "E"])) + draw(st.sampled_from(["", "-", "+"])) + "3"
    elif kind == "na":
        text = draw(st.sampled_from(sorted(nf.NA_TOKENS)))
    elif kind == "word":
        text = draw(st.sampled_from(["abc", "n.d.", "1,2,3", "1..2", "--1", "1e", ".", ","]))
    elif kind == "code":
        text = "0" + draw(DIGITS)
    else:
        text = ""
    pad = draw(st.sampled_from(["", " ", "\t", "  "]))
    return pad + text + draw(st.sampled_from(["", " ", "\t"]))


def _columns(draw_kind):
    return st.lists(draw_kind, min_size=1, max_size=12)


def _same_column(cells: list[str]) -> None:
    series = pd.Series(cells + [None], dtype=object)
    rows = np.arange(len(series)) + 2
    fast, slow = nf._Column(series, rows), nf._Column(series, rows, vectorised=False)
    assert (fast.arrow is not None) == all(c.isascii() for c in cells)  # which path was taken
    np.testing.assert_array_equal(fast.positions, slow.positions)
    np.testing.assert_array_equal(fast.rows, slow.rows)
    assert fast.text.tolist() == slow.text.tolist()
    for d in nf.DECIMALS:
        np.testing.assert_array_equal(fast.fits[d], slow.fits[d])
    assert (fast.numeric, fast.code) == (slow.numeric, slow.code)
    if fast.numeric:
        assert fast.decided() == slow.decided()
        a, b = fast.readings(), slow.readings()
        for d in nf.DECIMALS:
            np.testing.assert_array_equal(a[d].to_numpy(), b[d].to_numpy())
        for d in nf.DECIMALS:
            assert fast.written_whole(d) == slow.written_whole(d)


@PROPERTY
@given(_columns(cell()))
def test_vectorised_and_re_paths_classify_and_read_every_column_alike(cells):
    _same_column(cells)


def _parse(table: pd.DataFrame, vectorised: bool, monkeypatch) -> tuple:
    original = nf._Column.__init__

    def init(self, series, rows, vectorised_=vectorised):
        original(self, series, rows, vectorised=vectorised_)

    monkeypatch.setattr(nf._Column, "__init__", init)
    try:
        out = nf.parse_numbers(table, file="t.csv", separator=";")
        return "ok", out, out.attrs.get("decimal")
    except InputError as exc:
        return "error", str(exc), list(exc.rows or [])
    finally:
        monkeypatch.setattr(nf._Column, "__init__", original)


@PROPERTY
@given(st.lists(_columns(cell()), min_size=1, max_size=3), st.data())
def test_parse_numbers_gives_the_same_table_or_error_on_both_paths(columns, data):
    n = min(len(c) for c in columns)
    names = data.draw(st.permutations(["births", "poverty", "rate"]))[: len(columns)]
    table = pd.DataFrame({name: pd.Series(c[:n], dtype=object) for name, c in zip(names, columns)})
    with pytest.MonkeyPatch.context() as mp:
        fast = _parse(table, True, mp)
        slow = _parse(table, False, mp)
    assert fast[0] == slow[0]
    if fast[0] == "ok":
        pd.testing.assert_frame_equal(fast[1], slow[1])
        assert fast[2] == slow[2]
    else:
        assert fast[1:] == slow[1:]


def test_arrow_patterns_match_exactly_what_the_re_patterns_match():
    cases = ["1,234", "1,234,567", "1 234 567", "1\u00a0234", "1,234 567", "12,34", "1234,567", "01,234",
             "1.234,5", "-1.234,5", "+.5", ",5", "1e5", "1E+05", "1.5e-3", "\u22121.5", "1,2345", ""]
    arrow = nf.pa.array(cases)
    for d in nf.DECIMALS:
        fast = nf.pc.match_substring_regex(arrow, nf.ARROW_PATTERNS[d]).to_pylist()
        slow = [bool(nf.PATTERNS[d].fullmatch(c)) for c in cases]
        assert fast == slow, d
    # the known readings: grouped thousands with one separator only
    assert [bool(nf.PATTERNS["."].fullmatch(c)) for c in ("1,234 567", "1,234,567")] == [False, True]


def test_non_ascii_columns_take_the_re_path_and_read_their_minus_sign():
    series = pd.Series(["\u22121.5", "2.25", "1\u00a0234.5"], dtype=object)
    col = nf._Column(series, np.arange(3) + 2)
    assert col.arrow is None
    assert col.readings()["."].tolist() == [-1.5, 2.25, 1234.5]
