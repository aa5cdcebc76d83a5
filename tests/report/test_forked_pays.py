"""When the report works in forked children (brecha.report.forked.pays; docs/performance.md): BRECHA_JOBS asks
for them or forbids them; without it, only when another core was idle while the command ran."""
import os

import pytest

from brecha import cores
from brecha.report import forked

pytestmark = pytest.mark.skipif(not forked.parallel_possible(), reason="no fork on this platform")


def test_jobs_come_from_brecha_jobs_and_children_start_only_when_a_core_is_idle(monkeypatch):
    monkeypatch.setenv("BRECHA_JOBS", "3")
    assert forked.default_jobs() == 3 and forked.pays(3)
    monkeypatch.setenv("BRECHA_JOBS", "1")
    assert forked.default_jobs() == 1 and not forked.pays(1)
    monkeypatch.delenv("BRECHA_JOBS")
    monkeypatch.setattr(cores, "_quota", lambda: None)  # no container's CPU quota (tests/test_cores.py)
    assert forked.default_jobs() == len(os.sched_getaffinity(0))
    monkeypatch.setattr(cores, "spare_cores", lambda: 0.93)
    assert forked.pays(2)  # the other core was free while the command ran (brecha.cores)
    monkeypatch.setattr(cores, "spare_cores", lambda: 0.12)
    assert not forked.pays(2)  # another job held it: the children would only queue
    with forked.session(jobs=2) as children:  # so everything is done in the report's own process
        assert children is None and forked.current() is None
    monkeypatch.setattr(cores, "spare_cores", lambda: None)  # not measurable: the load average decides
    monkeypatch.setattr(os, "getloadavg", lambda: (0.4, 0.0, 0.0))
    assert forked.pays(2)  # one of two cores idle
    with forked.session(jobs=2) as children:
        assert children is not None and forked.current() is children
    assert forked.current() is None
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 0.0, 0.0))
    assert not forked.pays(2)
