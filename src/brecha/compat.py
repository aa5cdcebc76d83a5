"""What differs between the pandas versions brecha supports (pyproject: pandas >= 2.1).

Text columns: pandas 3 has a text dtype (``"str"``) whose missing value is NaN; on pandas 2 the same alias
means "convert every value with ``str()``", which turns a missing ``None`` into the text ``'None'``. Result
columns of text with gaps (a trend class, a flag) are built with :func:`text_array`, which gives pandas 3's
``str`` and, on pandas 2, plain objects that keep ``None`` missing.
"""
from __future__ import annotations

import pandas as pd

TEXT_DTYPE = "str" if int(pd.__version__.split(".")[0]) >= 3 else object


def text_array(values):
    """A text array with missing values kept missing, on every supported pandas."""
    return pd.array(values, dtype=TEXT_DTYPE)


def isin(values, wanted):
    """``pd.Series(values).isin(wanted)`` as a numpy bool array, the same answer on every supported pandas.

    Why not ``Series.isin`` itself for text: pandas 3's Arrow-backed text column makes a pyarrow scalar of
    each wanted value in Python before handing the set to Arrow (pandas/core/arrays/string_arrow.py), about
    11 µs a value: 64 ms to keep Brazil's 111,400 municipality-years whose code is among its 5,570 codes,
    which a report does a dozen times. Here the wanted texts go to Arrow's ``is_in`` as one array (2.7 ms).
    Used for unit codes and other long lists; anything that is not Arrow-backed text on both sides (numbers,
    object columns of pandas 2, a list mixing texts with other values) is left to ``Series.isin``.

    A missing value matches a missing wanted value, as ``Series.isin`` does; the answer is never missing.
    """
    import numpy as np

    series = values if isinstance(values, pd.Series) else pd.Series(values)
    fast = _arrow_text_isin(series, wanted)
    if fast is not None:
        return fast
    return np.asarray(series.isin(wanted), dtype=bool)


def _arrow_text_isin(series: pd.Series, wanted):
    """Arrow's ``is_in`` when ``series`` is Arrow-backed text and every wanted value is text or missing;
    None otherwise."""
    dtype = series.dtype
    if getattr(dtype, "storage", None) not in ("pyarrow", "pyarrow_numpy") and \
            getattr(dtype, "pyarrow_dtype", None) is None:
        return None
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    column = pa.array(series.array)
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return None
    if isinstance(wanted, str):
        return None  # not a list: Series.isin says so
    items = pd.Series(wanted).astype(object).tolist() if hasattr(wanted, "dtype") else list(wanted)
    texts, has_missing = [], False
    for item in items:
        if isinstance(item, str):
            texts.append(item)
        elif item is None or item is pd.NA or (isinstance(item, float) and item != item):
            has_missing = True
        else:
            return None  # a number among the wanted values: pandas' own rule for it
    found = pc.is_in(column, value_set=pa.array(texts, type=column.type), skip_nulls=True)
    out = np.asarray(found.fill_null(False), dtype=bool)
    if has_missing:
        out |= np.asarray(column.is_null(), dtype=bool)
    return out
