"""Fixtures shared by the tests of the streamed outputs (tests/cli/test_streamed_*.py)."""
from __future__ import annotations

import pytest

import brecha.i18n
from brecha.datasets import chile


@pytest.fixture()
def restore_language(monkeypatch):
    """The message language as it was before the test, whatever the test sets."""
    monkeypatch.setitem(brecha.i18n._current, "lang", brecha.i18n.get_language())


@pytest.fixture(scope="module")
def two_regions_file(tmp_path_factory):
    """Two Chilean regions (Aysén and Araucanía, 42 communes) written to disk: the path a user takes."""
    path = tmp_path_factory.mktemp("panel") / "panel.parquet"
    chile().subset(region=["11", "09"]).to_file(path)
    return path


@pytest.fixture()
def small_pieces(monkeypatch):
    """Pieces of 7 unit-periods (disparity) and 50 rows (rates): many pieces, one ending mid-unit."""
    from brecha.cli import disparity as cli_disparity, rates as cli_rates

    monkeypatch.setattr(cli_disparity, "BLOCK_ROWS", 7)
    monkeypatch.setattr(cli_rates, "BLOCK_ROWS", 50)
