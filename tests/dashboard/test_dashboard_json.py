"""The dashboard's data are written by orjson (issue 19: the Brazilian dashboard's 11 MB of numbers, 0.29 ->
0.02 s of CPU). What the page's script reads must be what the standard library's encoder wrote before: the
same values, the same text for the report's payloads, and safe inside ``<script>``."""
import json
import math

import numpy as np
import pytest

from brecha.report.dashboard import _json_for_script


def standard(value) -> str:
    """What brecha wrote before: the standard library's JSON with the same ``<script>`` escapes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


AWKWARD = {
    "numbers": [0, -0.0, 1, -1, 2.5, 0.1 + 0.2, 0.0001, 1e15, 9999999999999998.0, 123456789.125, 2**62, -2**63],
    # written with an exponent: orjson spells these its own way, and its releases differ (1e16 in 3.9, 1e+16
    # later; 0.00001 for 1e-05): the same values, other text
    "small": [1e-05, 1.2345678901234566e-07, 3e-9, -4.5e-6, 5e-324],
    "large": [1e16, 1e22, 1.5e300, 1.7976931348623157e308],
    "text": ["Ñuñoa", "O'Higgins", "a < b & c > d", "</script><script>alert(1)</script>", "\u2028\u2029", "", "\"q\""],
    "none": [None, True, False],
    "nested": {"a": {"b": [[1, 2], [3.5, None]]}, "empty": [], "tuple": (1, 2)},
}


def test_the_same_values_as_the_standard_encoder():
    text = _json_for_script(AWKWARD)
    assert json.loads(text) == json.loads(standard(AWKWARD))
    back = json.loads(text)
    for got, want in zip(back["small"] + back["large"], AWKWARD["small"] + AWKWARD["large"]):
        assert got == want and math.copysign(1, got) == math.copysign(1, want)  # spelled otherwise, not valued
    assert math.copysign(1, back["numbers"][1]) == -1.0  # -0.0 stays negative zero


def test_the_same_text_where_no_number_needs_an_exponent():
    value = {k: v for k, v in AWKWARD.items() if k not in ("small", "large")}
    assert _json_for_script(value) == standard(value)


def test_nothing_can_end_the_script_early():
    text = _json_for_script(AWKWARD)
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\\u003c/script\\u003e" in text


def test_numpy_scalars_and_keys_that_are_not_text_as_the_standard_encoder_writes_them():
    value = {"f": np.float64(0.30000000000000004), "i": np.int64(5570), "b": np.bool_(True), 2010: "year",
             "list": [np.float32(0.5), np.int16(-3)]}
    plain = {"f": 0.30000000000000004, "i": 5570, "b": True, "2010": "year", "list": [0.5, -3]}
    assert json.loads(_json_for_script(value)) == plain
    assert _json_for_script(value) == standard(plain)


def test_a_value_that_is_not_data_is_refused():
    with pytest.raises(TypeError, match="object is not JSON serializable|Type is not JSON serializable"):
        _json_for_script({"x": object()})


@pytest.mark.parametrize("example", ["chile", "argentina"])
def test_the_example_reports_dashboard_data_are_the_standard_text(example, tmp_path, monkeypatch):
    """The Chilean (polygons) and Argentine (seats, neonatal outcome) reports' dashboard data: byte for byte
    what the standard encoder wrote."""
    from brecha.report.build import build_report
    from brecha.report.dashboard import dashboard_data
    from brecha.study import example_study

    monkeypatch.setenv("BRECHA_JOBS", "1")
    report = build_report(example_study(example), tmp_path, write=False)
    data = dashboard_data(report)
    assert len(_json_for_script(data)) > 200_000
    assert _json_for_script(data) == standard(data)
