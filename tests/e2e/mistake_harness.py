"""Running one user-mistake case through the real CLI and judging what a user would see.

A :class:`Case` is what a new user does: files written to a fresh folder, then one or more ``brecha``
commands typed there. The run is judged on what the issue (#11) demands, never on what the code does today:

- ``error``: exit code 2; stderr has exactly one ``Error:`` line (or argparse's own ``error:`` with the usage),
  naming the file or the option (``mentions``), with something to do ("What to do"/"Qué hacer", the usage,
  or a list of candidates); no traceback; nothing written.
- ``ok``: exit code 0 and the case's numeric ``check`` holds.
- ``warn``: exit code 0, a warning that names the problem (``mentions``), and ``check`` if given.
- ``interrupt``: Ctrl-C during the run: exit code 130, one line on stderr, no traceback, nothing half-written.
- ``internal``: an unexpected internal error: nonzero exit, a short message pointing at ``--debug``, no traceback.

And for every case: no traceback anywhere, the files that were there before the run unchanged (hash before and
after), and no new file besides the declared outputs (no temporary or half-written file left behind).
"""
from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import io
import os
import re
import subprocess
import sys
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

EXPECTS = ("error", "ok", "warn", "interrupt", "internal", "debug")
CLASSES = {
    1: "panel files = examples",
    2: "names never silently moved",
    3: "locale numbers",
    4: "nothing overwritten",
    5: "interrupting is safe",
    6: "every failure a message",
    7: "implausible requests",
    8: "ingest table ledger",
    9: "progress, clean pipes",
    10: "docs match the tool",
}
# what a temporary or partial file looks like, wherever it is
TEMP_NAMES = ("*.tmp", "*.temp", "*.part", "*.partial", "*~", ".~*", "*.tmp.*", "tmp*", ".tmp*", "*.swp")
# "What to do"/"Qué hacer" is the house format; a message that lists the valid values or says what to write
# instead is a hint too (the brief: "contains What to do/Qué hacer or a hint")
HINT_MARKERS = ("what to do", "qué hacer", "usage:", "uso:", "perhaps", "quizás", "close to", "parecido a",
                "; use ", "use one of", "must be", "debe ser", "debe estar", "write ", "escriba", "choose from",
                "elija", "available", "disponibles", "; usar", "; use")


@dataclass
class Case:
    """One thing a user does wrong (or right, in an unusual way), and what brecha must do about it."""
    id: str
    cls: int
    title: str
    steps: list                       # argv lists, typed one after the other in the case folder
    expect: str                       # one of EXPECTS
    setup: Callable | None = None     # setup(folder) writes the user's files
    mentions: tuple = ()              # error: words stderr must contain (file, option); warn: the problem
    check: Callable | None = None     # ok/warn: check(folder, run) -> None when right, else what is wrong
    outputs: tuple = ()               # glob patterns (relative) of files the last step may create
    may_change: tuple = ()            # glob patterns of pre-existing files the last step may rewrite
    also_error: bool = False          # ok/warn where a clear refusal is also what the issue allows
    inject: Callable | None = None    # inject() -> context manager active during the last step
    subprocess: bool = False          # run through a real process (stdin/stdout pipes)
    tty: bool = False                 # subprocess with stderr on a pseudo-terminal
    sigint_after: float | None = None  # subprocess: SIGINT (Ctrl-C) this many seconds after its first line
    lang: str = "en"
    why: str = ""                     # where the issue is silent: the choice made, and why


@dataclass
class Run:
    rc: int | None
    stdout: str
    stderr: str
    exception: BaseException | None = None
    where: str = ""                   # deepest brecha frame of an escaped exception / printed traceback
    step: int = 0                     # index of the step judged


@dataclass
class Verdict:
    case: Case
    run: Run
    clear_error: bool = False
    correct: bool = False
    traceback: bool = False
    wrong_result: bool = False
    unclear: bool = False
    refused: bool = False
    half_written: bool = False
    input_destroyed: bool = False
    details: list = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return ((self.clear_error or self.correct) and not self.traceback and not self.half_written
                and not self.input_destroyed)

    def summary(self) -> str:
        flags = [name for name in ("traceback", "wrong_result", "unclear", "refused", "half_written",
                                   "input_destroyed") if getattr(self, name)]
        return f"{self.case.id}: {', '.join(flags) or 'pass'}; " + "; ".join(self.details)


# ------------------------------------------------------------------------------------------- running
def _snapshot(folder: Path) -> dict[str, str]:
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            try:
                out[path.relative_to(folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                out[path.relative_to(folder).as_posix()] = "unreadable"
    return out


def _brecha_frame(tb) -> str:
    frames = [f for f in traceback.extract_tb(tb) if "/brecha/" in f.filename.replace(os.sep, "/")]
    if not frames:
        return ""
    f = frames[-1]
    return f"{f.filename.split('/src/')[-1]}:{f.lineno} {f.name}"


def _printed_frame(text: str) -> str:
    found = re.findall(r'File "([^"]*brecha[^"]*)", line (\d+), in (\S+)', text)
    if not found:
        return ""
    name, line, func = found[-1]
    return f"{name.split('/src/')[-1]}:{line} {func}"


def run_in_process(argv: list[str]) -> Run:
    """``brecha.cli.main.main(argv)`` with stdout/stderr captured; an escaping exception is what the user
    would have seen as a traceback."""
    from brecha.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    exc, where, rc = None, "", None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("default")  # a fresh process shows each warning once, as here
        try:
            rc = main(list(argv))
        except SystemExit as stop:
            rc = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if stop.code not in (None, 0) and not isinstance(stop.code, int):
                print(stop.code, file=sys.stderr)
        except BaseException as caught:  # noqa: BLE001 - this is what a user sees as a traceback
            exc, where = caught, _brecha_frame(caught.__traceback__)
            rc = 130 if isinstance(caught, KeyboardInterrupt) else 1
    text = err.getvalue()
    return Run(rc, out.getvalue(), text, exc, where or _printed_frame(text))


def brecha_command() -> list[str]:
    script = Path(sys.executable).with_name("brecha")
    return [str(script)] if script.exists() else [sys.executable, "-m", "brecha.cli.main"]


def run_subprocess(argv: list[str], tty: bool = False, timeout: float = 600,
                   sigint_after: float | None = None) -> Run:
    env = dict(os.environ, PYTHONWARNINGS="default", COLUMNS="120")
    if sigint_after is not None:
        import signal

        # a foreground process: Ctrl-C's default action, also when this suite itself was started in the
        # background of a shell without job control (which starts it with SIGINT ignored, inherited by children)
        proc = subprocess.Popen(brecha_command() + list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=env, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        import time

        first = proc.stdout.readline()  # the command has started its work (imports done, first line out)
        time.sleep(sigint_after)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # what Ctrl-C does to the foreground process
        out, err = proc.communicate(timeout=timeout)
        return Run(proc.returncode, first + out, err, where=_printed_frame(err))
    if not tty:
        done = subprocess.run(brecha_command() + list(argv), capture_output=True, text=True, timeout=timeout,
                              env=env, stdin=subprocess.DEVNULL)
        return Run(done.returncode, done.stdout, done.stderr, where=_printed_frame(done.stderr))
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(brecha_command() + list(argv), stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    stdout = proc.stdout.read().decode("utf-8", "replace")
    proc.wait(timeout=timeout)
    os.close(master)
    stderr = b"".join(chunks).decode("utf-8", "replace")
    return Run(proc.returncode, stdout, stderr, where=_printed_frame(stderr))


def execute(case: Case, folder: Path) -> Verdict:
    """Set the case up in ``folder`` (empty), run its steps there, judge the last one."""
    folder.mkdir(parents=True, exist_ok=True)
    here = Path.cwd()
    os.chdir(folder)
    try:
        if case.setup:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    case.setup(folder)
            except Exception as exc:  # noqa: BLE001 - e.g. Panel.to_file failing on the user's panel
                run = Run(1, "", "", exc, _brecha_frame(exc.__traceback__))
                v = Verdict(case, run, traceback=True)
                v.details.append(f"setup raised {type(exc).__name__}: {str(exc)[:160]} at {run.where or '?'}")
                return v
        steps = [[a.replace("{dir}", str(folder)) for a in argv] for argv in case.steps]
        steps = [["--lang", case.lang, *argv] if "--lang" not in argv else argv for argv in steps]
        if not steps:  # a probe: the case only checks files (e.g. .gitignore against the README)
            v = Verdict(case, Run(0, "", ""))
            _judge_ok(case, v.run, folder, v)
            return v
        for i, argv in enumerate(steps[:-1]):  # the user's earlier commands must just work
            run = run_subprocess(argv) if case.subprocess else run_in_process(argv)
            if run.rc != 0 or run.exception is not None:
                run.step = i
                return judge(case, run, folder, {}, failed_step=i)
        before = _snapshot(folder)
        ctx = case.inject() if case.inject else contextlib.nullcontext()
        # an injected failure acts in this process: no figure drawn in forked children (brecha.report.render)
        serial = _environment(BRECHA_JOBS="1") if case.inject else contextlib.nullcontext()
        with serial, ctx:
            if case.subprocess or case.tty or case.sigint_after is not None:
                run = run_subprocess(steps[-1], tty=case.tty, sigint_after=case.sigint_after)
            else:
                run = run_in_process(steps[-1])
        run.step = len(steps) - 1
        return judge(case, run, folder, before)
    finally:
        os.chdir(here)


@contextlib.contextmanager
def _environment(**values):
    """``values`` set in os.environ for the block, the earlier values put back after it."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# ------------------------------------------------------------------------------------------- judging
def _matches(name: str, patterns) -> bool:
    return any(fnmatch.fnmatch(name, p) for p in patterns)


def _looks_temporary(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return _matches(base, TEMP_NAMES) or ".tmp" in base


def judge(case: Case, run: Run, folder: Path, before: dict, failed_step: int | None = None) -> Verdict:
    v = Verdict(case, run)
    both = run.stdout + "\n" + run.stderr
    if run.exception is not None or "Traceback (most recent call last)" in both:
        if case.expect != "debug":
            v.traceback = True
            what = (f"{type(run.exception).__name__}: {str(run.exception)[:160]}" if run.exception is not None
                    else _last_line(run.stderr))
            v.details.append(f"traceback {what} at {run.where or '?'}")
    crash = re.search(r"unexpected internal error|error interno inesperado", run.stderr)
    if crash and case.expect not in ("internal", "debug") and not v.traceback:
        # the CLI's safety net turned a crash into a sentence: better for the user, still a bug to fix
        v.traceback = True
        v.details.append(f"crash caught by the safety net: {_error_line(run)}")
    if failed_step is not None:
        if not v.traceback:
            v.refused = run.rc == 2
            v.unclear = run.rc != 2
            v.details.append(f"step {failed_step + 1} failed (rc {run.rc}): {_error_line(run)}")
        return v

    after = _snapshot(folder)
    success = run.rc == 0 and run.exception is None
    # a run that ends well may rewrite its own declared outputs; one that fails may touch nothing
    rewritable = tuple(case.may_change) + (tuple(case.outputs) if success else ())
    changed = [n for n, h in before.items() if after.get(n) != h and not _matches(n, rewritable)]
    if changed:
        v.input_destroyed = True
        v.details.append("changed or deleted: " + ", ".join(changed[:4]))
    new = [n for n in after if n not in before]
    allowed = case.outputs if success else ()
    # after a failure every new file is half-written output; after a success only temporary-looking or
    # undeclared ones (a success where an error was due is a wrong result, judged below)
    stray = [n for n in new if _looks_temporary(n) or
             (not _matches(n, allowed) and (not success or case.expect in ("ok", "warn")))]
    if stray:
        v.half_written = True
        v.details.append("left behind: " + ", ".join(stray[:4]))

    if case.expect in ("error",) or (case.also_error and run.rc == 2):
        _judge_error(case, run, v)
    elif case.expect in ("ok", "warn"):
        _judge_ok(case, run, folder, v)
    elif case.expect == "interrupt":
        lines = [l for l in run.stderr.splitlines() if l.strip()]
        if run.rc == 130 and not v.traceback and len(lines) <= 2:
            v.correct = True
        else:
            v.unclear = True
            v.details.append(f"Ctrl-C gave rc {run.rc}, {len(lines)} stderr lines")
    elif case.expect == "internal":
        short = len([l for l in run.stderr.splitlines() if l.strip()]) <= 4
        if run.rc not in (0, None) and not v.traceback and "--debug" in run.stderr and short:
            v.correct = True
        elif run.rc == 0:
            v.wrong_result = True
            v.details.append("internal error passed as success")
        else:
            v.unclear = True
            v.details.append(f"rc {run.rc}; no short message pointing at --debug: {_last_line(run.stderr)}")
    elif case.expect == "debug":
        if run.rc not in (0, None) and "Traceback" in run.stderr:
            v.correct = True
        else:
            v.unclear = True
            v.details.append(f"--debug gave rc {run.rc} and no traceback")
    return v


def _error_line(run: Run) -> str:
    for line in run.stderr.splitlines():
        if line.startswith("Error:") or ": error:" in line:
            return line[:220]
    return _last_line(run.stderr) or _last_line(run.stdout)


def _last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:220] if lines else ""


def _judge_error(case: Case, run: Run, v: Verdict) -> None:
    if run.rc == 0 and run.exception is None:
        v.wrong_result = True
        v.details.append("accepted silently (exit 0)")
        return
    if v.traceback:
        return
    err = run.stderr
    own = [l for l in err.splitlines() if l.startswith("Error:")]
    argparse_error = re.search(r"^(usage|uso): ", err, re.M) and re.search(r": error: ", err)
    lower = err.lower()
    missing = [m for m in case.mentions if m.lower() not in lower]
    problems = []
    if run.rc != 2:
        problems.append(f"exit code {run.rc}")
    if not (len(own) == 1 or (argparse_error and not own)):
        problems.append(f"{len(own)} 'Error:' lines")
    if missing:
        problems.append("does not name " + ", ".join(repr(m) for m in missing))
    # listing the valid values ("models: pooled, fe, re, ...", "regions of the panel: 09 ...") says what to do
    lists = re.search(r": [^,;:]+(?:, [^,;:]+){2,}", err) or re.search(r"(?:of the panel|del panel): ", err)
    if not any(h in lower for h in HINT_MARKERS) and not lists:
        problems.append("no 'What to do'")
    if not problems and case.check and case.expect == "error":
        found = case.check(Path.cwd(), run)
        if found:
            problems.append(found)
    if problems:
        v.unclear = True
        v.details.append("; ".join(problems) + f" — {_error_line(run)}")
    else:
        v.clear_error = True


def _judge_ok(case: Case, run: Run, folder: Path, v: Verdict) -> None:
    if run.rc != 0 or run.exception is not None:
        if not v.traceback:
            v.refused = run.rc == 2
            v.unclear = run.rc != 2
            v.details.append(f"refused (rc {run.rc}): {_error_line(run)}")
        return
    problems = []
    if case.expect == "warn":
        text = (run.stdout + "\n" + run.stderr).lower()
        missing = [m for m in case.mentions if m.lower() not in text]
        if missing or not any(w in text for w in ("warning", "aviso", "notes:", "notas:")):
            problems.append("no warning naming " + ", ".join(repr(m) for m in (missing or case.mentions)))
    if case.check:
        try:
            found = case.check(folder, run)
        except Exception as exc:  # noqa: BLE001 - an unreadable output is a wrong result
            found = f"output unreadable: {type(exc).__name__}: {str(exc)[:160]}"
        if found:
            problems.append(found)
    if problems:
        v.wrong_result = True
        v.details.extend(problems)
    else:
        v.correct = True


# ------------------------------------------------------------------------------------------- measuring
COLUMNS = ("cases", "pass", "clear error", "correct", "crash/traceback", "wrong result", "unclear msg", "refused",
           "half-written", "input destroyed")


def table(verdicts: list[Verdict]) -> str:
    rows = []
    for cls, name in CLASSES.items():
        mine = [v for v in verdicts if v.case.cls == cls]
        rows.append((f"{cls:>2} {name}", *_counts(mine)))
    rows.append(("   total", *_counts(verdicts)))
    width = max(len(r[0]) for r in rows)
    head = f"{'class':<{width}} " + " ".join(f"{c:>{max(len(c), 5)}}" for c in COLUMNS)
    lines = [head, "-" * len(head)]
    for r in rows:
        if r[0] == "   total":
            lines.append("-" * len(head))
        lines.append(f"{r[0]:<{width}} " + " ".join(f"{x:>{max(len(c), 5)}}" for x, c in zip(r[1:], COLUMNS)))
    return "\n".join(lines)


def _counts(vs: list[Verdict]) -> tuple:
    return (len(vs), sum(v.passed for v in vs), sum(v.clear_error for v in vs), sum(v.correct for v in vs),
            sum(v.traceback for v in vs), sum(v.wrong_result for v in vs), sum(v.unclear for v in vs),
            sum(v.refused for v in vs), sum(v.half_written for v in vs), sum(v.input_destroyed for v in vs))
