"""Settings for the whole suite."""
import pytest


@pytest.fixture(autouse=True)
def _one_job(monkeypatch):
    """Every test runs serially unless it sets BRECHA_JOBS itself: the report works in forked children
    only when a core is idle (brecha.report.forked.pays), which would make a test's path depend on the
    machine's load. The threaded and forked paths have tests of their own (tests/inequality/test_threads.py,
    tests/inequality/test_decompose_speed.py, tests/report/test_ahead.py) that set BRECHA_JOBS."""
    monkeypatch.setenv("BRECHA_JOBS", "1")
