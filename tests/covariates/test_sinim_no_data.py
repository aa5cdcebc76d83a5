"""SINIM 2006-2012 writes 99 in every field of a municipality's health area when it has no data (every Aysén
commune: primary care there is run by the health service). Read as a number it was a health spending of
M$ 99 per head, which entered the national panel models; it is missing now, and a 99 beside real amounts is
kept as a value. Checked against the raw file in ../shared/data, read here on its own."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from brecha import covariates, datasets

RAW = Path(__file__).resolve().parents[3] / "shared" / "data" / "sinim_comunas_2006_2012_via_bentancor_clarke.csv"


@pytest.fixture(scope="module")
def panel_data():
    return datasets.chile().data


def test_aysen_has_no_health_spending_2006_2012(panel_data):
    aysen = panel_data[panel_data["unit"].astype(str).str.startswith("11") & panel_data["year"].between(2006, 2012)]
    assert len(aysen) == 70  # 10 communes x 7 years
    assert aysen["health_spending_pc"].isna().all()


def test_a_99_beside_real_amounts_is_a_value(panel_data):
    row = panel_data[(panel_data["unit"] == "05603") & (panel_data["year"] == 2011)]
    assert row["health_spending_pc"].tolist() == [99.0]
    row = panel_data[(panel_data["unit"] == "13101") & (panel_data["year"] == 2008)]
    assert row["health_spending_pc"].tolist() == [49.0]


@pytest.mark.skipif(not RAW.exists(), reason="needs ../shared/data (the raw SINIM file)")
def test_missing_rows_are_the_raw_files_all_99_rows():
    raw = pd.read_csv(RAW)
    health = [c for c in raw.columns if c.startswith("salud")]
    values = raw[health].apply(pd.to_numeric, errors="coerce")
    all_99 = values.eq(99).all(axis=1)
    assert int(all_99.sum()) == 144
    assert sorted(raw.loc[all_99, "codigo"].astype(str).str.zfill(5).str[:2].unique()) == \
        ["02", "04", "05", "06", "10", "11", "12", "13"]
    ours = covariates._sinim_health_per_head()
    missing_now = int(ours["value"].isna().sum())
    missing_as_text = int(pd.to_numeric(raw["saludtotalpc"], errors="coerce").isna().sum())
    assert missing_now == missing_as_text + 144
    # every other value is the raw file's number
    kept = ours.dropna(subset=["value"])
    assert np.isfinite(kept["value"]).all() and len(kept) == len(raw) - missing_now
