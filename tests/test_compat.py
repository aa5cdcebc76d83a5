"""brecha.compat.isin: the answer of ``Series.isin`` on every kind of column, faster on Arrow-backed text."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brecha.compat import _arrow_text_isin, isin

TEXT_DTYPES = ["object", "string[python]", "string[pyarrow]"] + (["str"] if pd.__version__ >= "3" else [])

cells = st.one_of(st.sampled_from(["05101", "5101", "13101", "", " ", "é", "a,b"]), st.text(max_size=4),
                  st.none())
wanted_items = st.one_of(cells, st.just(float("nan")), st.integers(-2, 2))


@settings(max_examples=150, deadline=None)
@given(values=st.lists(cells, max_size=12), wanted=st.lists(wanted_items, max_size=6),
       dtype=st.sampled_from(TEXT_DTYPES), kind=st.sampled_from(["list", "set", "series", "index", "array"]))
def test_same_answer_as_series_isin(values, wanted, dtype, kind):
    series = pd.Series(values, dtype=dtype)
    if kind == "set":
        wanted = set(w for w in wanted if not (isinstance(w, float) and w != w))
    elif kind == "series":
        wanted = pd.Series(wanted, dtype=object)
    elif kind == "index":
        wanted = pd.Index(wanted, dtype=object)
    elif kind == "array":
        wanted = np.array(wanted, dtype=object)
    got = isin(series, wanted)
    assert got.dtype == bool and got.shape == (len(series),)
    arrow = dtype in ("string[pyarrow]", "str")
    if arrow:  # Arrow text has one missing value, so the rule is simple
        assert got.tolist() == by_hand(values, wanted)
    try:
        pandas_says = np.asarray(series.isin(wanted), dtype=bool).tolist()
    except pa.ArrowException:
        assert arrow  # pandas 2.1 on Arrow text refuses a wanted list of only missing values; brecha answers
        return
    assert got.tolist() == pandas_says


def _missing(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v)


def by_hand(values, wanted) -> list[bool]:
    """The rule on Arrow text, independently: a text is in when the same text is wanted, a missing value when
    a missing value (None, NA or NaN) is wanted; numbers never equal texts."""
    texts = {w for w in wanted if isinstance(w, str)}
    missing = any(_missing(w) for w in wanted)
    return [missing if _missing(v) else v in texts for v in values]


def test_arrow_text_takes_the_fast_path_and_numbers_do_not():
    text = pd.Series(["05101", None, "13101"], dtype="string[pyarrow]")
    assert _arrow_text_isin(text, ["13101"]).tolist() == [False, False, True]
    assert _arrow_text_isin(text, ["13101", None]).tolist() == [False, True, True]  # missing matches missing
    assert _arrow_text_isin(text, [13101]) is None  # a number among the wanted: pandas' own rule
    assert _arrow_text_isin(pd.Series([1, 2]), [1]) is None
    assert _arrow_text_isin(pd.Series(["a"], dtype=object), ["a"]) is None
    assert _arrow_text_isin(text, "13101") is None  # a bare text is not a list: Series.isin refuses it
    with pytest.raises(TypeError):
        isin(text, "13101")


def test_chunked_arrow_column():
    parts = [pd.Series(["a", "b"], dtype="string[pyarrow]"), pd.Series(["c", None], dtype="string[pyarrow]")]
    series = pd.concat(parts, ignore_index=True)
    assert isin(series, {"a", "c"}).tolist() == [True, False, True, False]
    assert isin(series, pd.Series(["b"], dtype="string[pyarrow]")).tolist() == [False, True, False, False]


def test_every_municipality_of_brazil():
    """The case it is for: 5,570 codes against 20 years of rows (the same answer as Series.isin)."""
    codes = [str(1100015 + 7 * i) for i in range(5570)]
    rows = pd.Series(np.repeat(codes, 20), dtype="string[pyarrow]")
    wanted = pd.Series(codes[::3], dtype="string[pyarrow]").array
    assert np.array_equal(isin(rows, wanted), rows.isin(wanted).to_numpy(dtype=bool))
    assert int(isin(rows, wanted).sum()) == 20 * len(codes[::3])
