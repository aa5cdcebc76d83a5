"""brecha.outputs: a file is replaced whole or not at all, groups appear together, two writers never mix, and
every refusal of the disk is a message that names the path (docs/ARCHITECTURE.md, "Your files are safe")."""
import errno
import os
import signal
import subprocess
import sys
import threading

import pandas as pd
import pytest

from brecha import io, outputs
from brecha.errors import InputError
from brecha.i18n import set_language


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    outputs.forget_completed()
    yield
    set_language("es")


def table(n=3, value=1.5):
    return pd.DataFrame({"unit": [f"{i:05d}" for i in range(n)], "rate": [value * i for i in range(n)]})


def listing(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".xlsx", ".json"])
@pytest.mark.parametrize("failure", [KeyboardInterrupt(), OSError(errno.EIO, "Input/output error")])
def test_failure_mid_write_keeps_the_earlier_file_byte_identical(tmp_path, monkeypatch, suffix, failure):
    target = tmp_path / f"result{suffix}"
    io.write_table(table(), target)
    before = target.read_bytes()
    real = io._write_now

    def half_then_fail(df, path, suffix_, sheets):
        real(df.head(1), path, suffix_, sheets)  # a partial file exists on disk when the failure comes
        raise failure

    monkeypatch.setattr(io, "_write_now", half_then_fail)
    with pytest.raises((KeyboardInterrupt, InputError)) as err:
        io.write_table(table(50, 9.0), target)
    assert target.read_bytes() == before
    assert listing(tmp_path) == [target.name]  # no temporary file, no lock file
    if isinstance(failure, OSError):
        assert str(target) in str(err.value) and "Input/output error" in str(err.value)
        assert "the earlier file, if any, is unchanged" in str(err.value)


def test_a_new_file_is_absent_after_an_interrupted_write(tmp_path, monkeypatch):
    monkeypatch.setattr(io, "_write_now", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        io.write_table(table(), tmp_path / "new.csv")
    assert listing(tmp_path) == []
    assert outputs.completed() == []


@pytest.mark.parametrize("lang, words", [("en", "the disk is full"), ("es", "no queda espacio en el disco")])
def test_disk_full_is_a_message_naming_the_file(tmp_path, monkeypatch, lang, words):
    set_language(lang)
    target = tmp_path / "out.parquet"
    io.write_table(table(), target)
    before = target.read_bytes()

    def full(df, path, suffix, sheets):
        path.write_bytes(b"PAR1" + b"\0" * 100)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(io, "_write_now", full)
    with pytest.raises(InputError) as err:
        io.write_table(table(), target)
    text = str(err.value)
    assert words in text and str(target) in text and ("-o" in text)
    assert target.read_bytes() == before and listing(tmp_path) == ["out.parquet"]


def test_pyarrow_style_error_without_errno_is_read_from_its_text(tmp_path):
    exc = OSError("[Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on device")
    assert "the disk is full" in str(outputs.os_error(exc, tmp_path / "x.parquet"))


def test_read_only_folder_at_the_rename_leaves_no_trace(tmp_path, monkeypatch):
    target = tmp_path / "out.csv"
    io.write_table(table(), target)
    before = target.read_bytes()

    def refuse(src, dst):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(outputs.os, "replace", refuse)
    with pytest.raises(InputError) as err:
        io.write_table(table(9), target)
    monkeypatch.undo()
    assert "cannot write in the folder" in str(err.value) and str(tmp_path) in str(err.value)
    assert "close it" in str(err.value)  # Windows: a file open in Excel cannot be replaced
    assert target.read_bytes() == before and listing(tmp_path) == ["out.csv"]


def test_name_too_long_and_folder_and_file_in_the_path(tmp_path):
    with pytest.raises(InputError, match=r"the name is too long for the file system \(304 bytes; at most 255\)"):
        io.write_table(table(), tmp_path / ("x" * 300 + ".csv"))
    (tmp_path / "adir").mkdir()
    with pytest.raises(InputError, match="-o names an existing folder") as err:
        io.write_table(table(), tmp_path / "adir")
    assert str(tmp_path / "adir" / "results.csv") in str(err.value)
    (tmp_path / "afile").write_text("mine")
    with pytest.raises(InputError, match="is a file, not a folder") as err:
        io.write_table(table(), tmp_path / "afile" / "x.csv")
    assert str(tmp_path / "afile") in str(err.value)
    assert (tmp_path / "afile").read_text() == "mine"
    assert listing(tmp_path) == ["adir", "afile"] and listing(tmp_path / "adir") == []


def test_missing_folders_are_created_and_permissions_follow_the_umask_or_the_old_file(tmp_path):
    target = tmp_path / "a" / "b" / "out.csv"
    io.write_table(table(), target)
    umask = os.umask(0)
    os.umask(umask)
    assert (target.stat().st_mode & 0o777) == (0o666 & ~umask)
    os.chmod(target, 0o600)
    io.write_table(table(7), target)
    assert (target.stat().st_mode & 0o777) == 0o600
    assert len(pd.read_csv(target)) == 7


def test_a_group_appears_together_or_not_at_all(tmp_path):
    panel, ledger = tmp_path / "panel.csv", tmp_path / "panel.ledger.json"
    io.write_table(table(2), panel)
    before = panel.read_bytes()
    with pytest.raises(KeyboardInterrupt):
        with outputs.together():
            io.write_table(table(5), panel)
            assert panel.read_bytes() == before  # staged, not yet in place
            outputs.write_file(ledger, lambda p: (p.write_text("{"), (_ for _ in ()).throw(KeyboardInterrupt())))
    assert panel.read_bytes() == before and listing(tmp_path) == ["panel.csv"]
    with outputs.together():
        io.write_table(table(5), panel)
        outputs.write_file(ledger, lambda p: p.write_text("{}"))
    assert len(pd.read_csv(panel)) == 5 and ledger.read_text() == "{}"
    assert outputs.completed()[-2:] == [str(panel), str(ledger)]


def test_open_atomic_streams_and_commits_only_at_the_end(tmp_path):
    target = tmp_path / "deaths.csv"
    target.write_bytes(b"old\n")
    with pytest.raises(KeyboardInterrupt):
        with outputs.open_atomic(target, "wb") as handle:
            handle.write(b"new line 1\n")
            raise KeyboardInterrupt
    assert target.read_bytes() == b"old\n" and listing(tmp_path) == ["deaths.csv"]
    with outputs.open_atomic(target, "wb") as handle:
        handle.write(b"new\n")
    assert target.read_bytes() == b"new\n"


def test_ctrl_c_is_held_back_while_files_are_renamed():
    # Python's own Ctrl-C handler, also when the suite was started with SIGINT ignored (a background job)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = []
    try:
        _held_back(done)
    finally:
        signal.signal(signal.SIGINT, previous)


def _held_back(done):
    with pytest.raises(KeyboardInterrupt):
        with outputs.interrupts_held():
            os.kill(os.getpid(), signal.SIGINT)
            done.append("the block went on")
    assert done == ["the block went on"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_interrupted_line_says_what_was_kept(tmp_path):
    outputs.forget_completed()
    assert outputs.interrupted_line() == "Interrupted: nothing was written"
    assert outputs.interrupted_line() == "Interrupted: nothing was written"
    io.write_table(table(), tmp_path / "a.csv")
    assert outputs.interrupted_line() == f"Interrupted: kept complete {tmp_path / 'a.csv'}; nothing else was written"
    set_language("es")
    assert outputs.interrupted_line().startswith(f"Interrumpido: se conservan completos {tmp_path / 'a.csv'}")
    outputs.forget_completed()
    assert outputs.interrupted_line() == "Interrumpido: no se escribió nada"


def test_a_lock_held_by_a_running_process_stops_the_second_writer(tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "LOCK_WAIT_SECONDS", 0.3)
    target = tmp_path / "out.csv"
    io.write_table(table(2), target)
    before = target.read_bytes()
    with outputs.Lock(target) as lock:  # this test's own process: alive
        assert lock.path.name == ".out.csv.brecha-lock"
        with pytest.raises(InputError) as err:
            io.write_table(table(9), target)
    text = str(err.value)
    assert f"another brecha run (process {os.getpid()}" in text and "nothing was written" in text
    assert str(lock.path) in text  # what to delete when no run exists
    assert target.read_bytes() == before and listing(tmp_path) == ["out.csv"]


def test_a_stale_lock_of_a_finished_process_is_taken_over(tmp_path):
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                           text=True, check=True)
    dead = int(child.stdout)
    target = tmp_path / "out.csv"
    lock = outputs.Lock(target).path
    import json
    import socket

    lock.write_text(json.dumps({"pid": dead, "host": socket.gethostname(), "since": "2020-01-01T00:00:00"}))
    io.write_table(table(4), target)
    assert len(pd.read_csv(target)) == 4 and listing(tmp_path) == ["out.csv"]


def test_two_threads_writing_one_file_leave_one_whole_version(tmp_path):
    target = tmp_path / "out.csv"
    versions = {n: table(n, float(n)) for n in (200, 3000)}
    errors = []

    def writer(n):
        try:
            for _ in range(8):
                io.write_table(versions[n], target)
        except Exception as exc:  # noqa: BLE001 - the assertion below shows it
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in versions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    got = pd.read_csv(target, dtype={"unit": str})
    assert len(got) in versions
    pd.testing.assert_frame_equal(got, versions[len(got)])
    assert listing(tmp_path) == ["out.csv"]


def test_outputs_that_are_inputs_are_refused_however_they_are_named(tmp_path, monkeypatch):
    source = tmp_path / "data" / "panel.csv"
    source.parent.mkdir()
    source.write_text("unit,year\n")
    (tmp_path / "link.csv").symlink_to(source)
    os.link(source, tmp_path / "hard.csv")
    monkeypatch.chdir(tmp_path / "data")
    for name in ("panel.csv", "../data/panel.csv", str(tmp_path / "link.csv"), str(tmp_path / "hard.csv")):
        with pytest.raises(InputError, match="the output is the input file panel.csv; it would be lost"):
            outputs.check_file_targets([name], inputs=["panel.csv"])
    with pytest.raises(InputError, match="two outputs name the same file"):
        outputs.check_file_targets(["a.csv", "./a.csv"])
    outputs.check_file_targets(["other.csv"], inputs=["panel.csv"])
