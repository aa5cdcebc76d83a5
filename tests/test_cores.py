"""brecha.cores: the cores other processes left free beside the command's own, from the kernel's counters
(brecha.report.forked asks it whether children pay)."""
import os
import subprocess
import sys
import time

import pytest

from brecha import cores


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(cores, "_mine", lambda: {0, 1})
    monkeypatch.setattr(cores, "_quota", lambda: None)  # no control group's limit, whatever this machine has
    monkeypatch.setattr(cores, "_ANSWER", [None])
    return monkeypatch


def at(seconds_ago: float, idle, own):
    return (time.monotonic() - seconds_ago, idle, own)


@pytest.mark.parametrize("idle, own, spare", [
    (2.0, 2.0, 1.0),  # 2 s: the command used one core, the other was idle: a core to spare
    (0.0, 2.0, 0.0),  # another job held the other core all the time
    (1.0, 2.0, 0.5),  # ... half the time
    (0.0, 4.0, 1.0),  # the command's own children used the other core: it is still the command's to use
    (0.0, 0.2, 0.0),  # others used 1.8 of our 2 cores x 2 s: nothing beside our own core (never below 0)
])
def test_spare_cores_are_the_cores_minus_what_others_used_minus_our_own(two_cores, idle, own, spare):
    """spare = cores - (cores x elapsed - idle - own) / elapsed - 1, over 2 s of 2 cores."""
    two_cores.setattr(cores, "_LAST", [at(2.0, 100.0, 10.0)])
    two_cores.setattr(cores, "_sample", lambda: (time.monotonic(), 100.0 + idle, 10.0 + own))
    assert cores.spare_cores() == pytest.approx(spare, abs=0.01)
    assert cores._LAST[0][1] == 100.0 + idle  # the next question measures from here


def test_asked_again_at_once_gives_the_last_answer_and_none_when_unmeasurable(two_cores):
    two_cores.setattr(cores, "_LAST", [at(2.0, 100.0, 10.0)])
    two_cores.setattr(cores, "_sample", lambda: (time.monotonic(), 102.0, 12.0))
    assert cores.spare_cores() == pytest.approx(1.0, abs=0.01)
    two_cores.setattr(cores, "_sample", lambda: (time.monotonic(), 102.0, 14.0))  # 0.0 s later
    assert cores.spare_cores() == pytest.approx(1.0, abs=0.01)  # too soon to judge: the last answer
    two_cores.setattr(cores, "_LAST", [at(2.0, None, 10.0)])  # no /proc/stat
    assert cores.spare_cores() is None


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="no /proc/stat")
def test_a_real_busy_command_sees_between_none_and_all_its_other_cores_spare():
    """A real process that keeps its own core busy for 0.6 s: what it sees spare is between 0 and the cores
    it may use minus its own (plus the clock's rounding), and its own work never counts against it."""
    code = ("import time, os\nfrom brecha import cores\nt = time.monotonic()\n"
            "while time.monotonic() - t < 0.6: pass\nprint(cores.spare_cores(), len(os.sched_getaffinity(0)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    spare, mine = float(out[0]), int(out[1])
    assert 0.0 <= spare <= mine - 1 + 0.2


@pytest.mark.parametrize("text, quota", [("max 100000\n", None), ("200000 100000\n", 2.0), ("50000 100000", 0.5)])
def test_a_control_groups_quota_is_read_from_cpu_max(tmp_path, text, quota):
    path = tmp_path / "cpu.max"
    path.write_text(text)
    assert cores._quota(str(path)) == quota
    assert cores._quota(str(tmp_path / "absent")) is None


def test_a_container_limited_to_one_core_never_has_one_to_spare(two_cores):
    """Both of the machine's cores idle but for the command, yet the control group allows one core: the
    command's own; children would only share it."""
    two_cores.setattr(cores, "_quota", lambda: 1.0)
    two_cores.setattr(cores, "_LAST", [at(2.0, 100.0, 10.0)])
    two_cores.setattr(cores, "_sample", lambda: (time.monotonic(), 102.0, 12.0))
    assert cores.spare_cores() == 0.0
