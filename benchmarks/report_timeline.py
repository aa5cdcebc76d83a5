"""The report's timeline with its children: when each step and each child ran, its CPU and its page faults.

    python benchmarks/report_timeline.py [--example chile] [--jobs 2] [--json] [report arguments ...]

Runs ``brecha report`` in this process (``BRECHA_JOBS=2`` unless ``--jobs`` says otherwise) and prints, from
the command's start:

- each step of the report's own process (loading, each analysis, the figures, writing): start, end, its CPU
  seconds and its minor page faults;
- each forked child (:mod:`brecha.report.forked`: the data loaded, the analyses computed ahead, the first
  tables' files, the workbook, the dashboard): its span, CPU seconds and page faults;
- the whole command: wall, the CPU of this process and of its children, and their page faults.

``--json`` prints one line instead, for ``bench_report.py``: ``{"wall", "cpu", "start", "code"}``, ``start``
being when the report's first step (loading the data) began: the serial start, which no core but the
report's own can share (Python, the imports, reading the study).

What it is for (issue 19): on two cores the report is CPU-bound once the data are loaded, so its wall time
is about the serial start plus half the rest of its CPU, and every child's page faults are CPU (about 4.6 µs
each on the development machine; docs/performance.md, parts O and P). A step or a child that stands out here
is where to look. The numbers are taken by wrapping brecha's functions here (the report's progress clock
and the forked child's entry point); nothing in brecha is changed for it.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import shutil
import sys
import tempfile
import time

START = time.perf_counter()


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--example", default="chile")
    parser.add_argument("--jobs", default="2")
    parser.add_argument("--json", action="store_true", help="one JSON line: wall, cpu, start (of the first step)")
    args, rest = parser.parse_known_args(argv)
    os.environ["BRECHA_JOBS"] = args.jobs
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as measure.as_installed: the modules from their .pyc

    import brecha.cli.main as cli
    import brecha.report.build as build
    import brecha.report.forked as forked

    lines: list[tuple[float, str]] = []
    folder = tempfile.mkdtemp(prefix="brecha-timeline-")
    log = os.path.join(folder, "children.log")

    real_child = forked._child

    def child(work, work_args, path):
        """In the child: its span, CPU and faults appended to the log just before it ends."""
        began, cpu, faults = time.perf_counter(), time.process_time(), _faults()
        name = getattr(work, "__name__", str(work))
        if work_args and hasattr(work_args[0], "key"):
            name += f" ({work_args[0].key})"
        real_exit = os._exit

        def leave(code):
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"{began - START:.3f}\t{time.perf_counter() - START:.3f}\t{time.process_time() - cpu:.3f}\t"
                        f"{_faults() - faults}\tchild  {name}\n")
            real_exit(code)

        os._exit = leave
        real_child(work, work_args, path)

    forked._child = child

    class Clock(build._Clock):
        def __call__(self, step):
            inner = super().__call__(step)

            class Timed:
                def __enter__(self_inner):
                    self_inner.at = (time.perf_counter(), time.process_time(), _faults())
                    return inner.__enter__()

                def __exit__(self_inner, *exc):
                    done = inner.__exit__(*exc)
                    began, cpu, faults = self_inner.at
                    lines.append((began - START, f"{began - START:6.3f} {time.perf_counter() - START:6.3f} "
                                                 f"{time.process_time() - cpu:6.3f} {_faults() - faults:8d}  "
                                                 f"report {step}"))
                    return done

            return Timed()

    build._Clock = Clock
    out = os.path.join(folder, "report")
    with contextlib.redirect_stdout(io.StringIO()):  # the report's own summary: not what is measured here
        code = cli.main(["--quiet", "report", "--example", args.example, "-o", out, *rest])
    wall = time.perf_counter() - START
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    if os.path.exists(log):
        with open(log, encoding="utf-8") as f:
            for row in f:
                began, ended, cpu, faults, name = row.rstrip("\n").split("\t")
                lines.append((float(began), f"{float(began):6.3f} {float(ended):6.3f} {float(cpu):6.3f} "
                                            f"{int(faults):8d}  {name}"))
    if args.json:
        import json

        first = min((at for at, _text in lines), default=None)
        print(json.dumps({"wall": wall, "cpu": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
                          "start": first, "code": code}))
        shutil.rmtree(folder, ignore_errors=True)
        return code
    print(f"report --example {args.example}, BRECHA_JOBS={args.jobs} (exit {code})")
    print(" start    end    CPU   faults  what")
    for _at, text in sorted(lines):
        print(text)
    print(f"whole command: {wall:.2f} s wall; CPU {own.ru_utime + own.ru_stime:.2f} s here + "
          f"{kids.ru_utime + kids.ru_stime:.2f} s in children; page faults {own.ru_minflt:,} here + "
          f"{kids.ru_minflt:,} in children")
    shutil.rmtree(folder, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
