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
