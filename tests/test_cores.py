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


def cgroups(tmp_path, membership: str, files: dict) -> tuple[str, str]:
    """A fake ``/proc/self/cgroup`` and cgroup mount: ``files`` maps a path under the mount to its text."""
    proc = tmp_path / "proc_self_cgroup"
    proc.write_text(membership)
    root = tmp_path / "sys_fs_cgroup"
    root.mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return str(proc), str(root)


@pytest.mark.parametrize("membership, files, quota", [
    # cgroup v2, the container's group mounted as the root (a cgroup namespace: docker, podman, k8s)
    ("0::/\n", {"cgroup.controllers": "cpu", "cpu.max": "max 100000\n"}, None),
    ("0::/\n", {"cgroup.controllers": "cpu", "cpu.max": "200000 100000\n"}, 2.0),
    ("0::/\n", {"cgroup.controllers": "cpu", "cpu.max": "50000 100000"}, 0.5),
    # v2 seen from the host: the process's own group, and a parent's tighter limit binds it
    ("0::/user.slice/job\n", {"cgroup.controllers": "cpu", "user.slice/job/cpu.max": "300000 100000",
                              "user.slice/cpu.max": "150000 100000"}, 1.5),
    # cgroup v1 (older Docker and RHEL 7 hosts): cfs quota and period, -1 = unlimited
    ("4:memory:/x\n3:cpu,cpuacct:/\n0::/\n", {"cpu,cpuacct/cpu.cfs_quota_us": "100000\n",
                                               "cpu,cpuacct/cpu.cfs_period_us": "100000\n"}, 1.0),
    ("3:cpu,cpuacct:/\n", {"cpu,cpuacct/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/cpu.cfs_period_us": "100000"}, None),
    # v1 without a cgroup namespace: the path of /proc/self/cgroup is not under the mount, the root is the group
    ("1:cpu:/docker/0123abcd\n", {"cpu/cpu.cfs_quota_us": "250000", "cpu/cpu.cfs_period_us": "100000"}, 2.5),
    # a hybrid host (v1 controllers, v2 at unified/ without cpu.max), as this machine: unlimited
    ("1:cpu:/\n0::/\n", {"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000",
                          "unified/cgroup.controllers": ""}, None),
    ("", {}, None),  # no control group at all
])
def test_a_control_groups_cpu_quota_is_found_in_v1_and_v2(tmp_path, membership, files, quota):
    proc, root = cgroups(tmp_path, membership, files)
    assert cores._quota(proc, root) == quota
    assert cores._quota(str(tmp_path / "absent"), root) is None


@pytest.mark.parametrize("quota, want", [(None, 4), (1.0, 1), (1.5, 2), (0.5, 1), (8.0, 4)])
def test_the_usable_cores_are_the_affinity_capped_by_the_quota(monkeypatch, quota, want):
    """What the bootstraps' threads (brecha.threads.worker_count) use: a quota of 1.5 cores is two threads,
    of half a core one."""
    from brecha.threads import worker_count

    monkeypatch.setattr(cores, "_mine", lambda: {0, 1, 2, 3})
    monkeypatch.setattr(cores, "_quota", lambda: quota)
    monkeypatch.delenv("BRECHA_JOBS", raising=False)
    assert cores.usable() == want
    assert worker_count() == want and worker_count(pieces=1) == 1
    monkeypatch.setenv("BRECHA_JOBS", "3")  # the user's own number is kept, quota or not
    assert worker_count() == 3


def test_a_container_limited_to_one_core_never_has_one_to_spare(two_cores):
    """Both of the machine's cores idle but for the command, yet the control group allows one core: the
    command's own; children would only share it."""
    two_cores.setattr(cores, "_quota", lambda: 1.0)
    two_cores.setattr(cores, "_LAST", [at(2.0, 100.0, 10.0)])
    two_cores.setattr(cores, "_sample", lambda: (time.monotonic(), 102.0, 12.0))
    assert cores.spare_cores() == 0.0
