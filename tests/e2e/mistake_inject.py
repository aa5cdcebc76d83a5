"""Faults injected into a run: Ctrl-C or an internal error at a chosen point, a second run at the same time.

Each returns a context manager active during the judged command. They patch library entry points
(pandas writers and readers, openpyxl, json, ``Path.write_bytes`` of the report's figure files) or trace
calls into a brecha module, so they keep working whatever way the code under test chooses to write
(temporary file, handle, path).
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock


def _half_write(target, data) -> None:
    """Write the first half of ``data`` to a path or an open handle: what a killed writer leaves."""
    part = data[: max(1, len(data) // 2)]
    if isinstance(target, (str, os.PathLike)):
        mode = "wb" if isinstance(part, bytes) else "w"
        with open(target, mode) as handle:
            handle.write(part)
    elif hasattr(target, "write"):
        try:
            target.write(part)
        except TypeError:
            target.write(part.encode() if isinstance(part, str) else part.decode())


def _truncate(path) -> None:
    if isinstance(path, (str, os.PathLike)) and Path(path).exists():
        size = Path(path).stat().st_size
        with open(path, "r+b") as handle:
            handle.truncate(size // 2)


def during_write(kind: str, call: int = 1, exc=KeyboardInterrupt):
    """``exc`` raised while writing the ``call``-th file of a kind (csv, parquet, xlsx, json, figure: a report's
    figure file), after half of it is on disk."""
    import openpyxl.workbook.workbook
    import pandas as pd

    count = [0]

    def due() -> bool:
        count[0] += 1
        return count[0] >= call

    if kind == "csv":
        original = pd.DataFrame.to_csv

        def fake(self, path_or_buf=None, *args, **kwargs):
            if path_or_buf is None or not due():
                return original(self, path_or_buf, *args, **kwargs)
            _half_write(path_or_buf, original(self, None, *args, **kwargs))
            raise exc()

        import brecha.csv_text

        piece_original = brecha.csv_text.write_piece

        def fake_piece(df, handle, header):  # brecha's own CSV writer (every -o FILE.csv, the report's tables)
            if not due():
                return piece_original(df, handle, header)
            _half_write(handle, original(df, None, index=False, header=header))
            raise exc()

        from contextlib import ExitStack

        stack = ExitStack()
        stack.enter_context(mock.patch.object(pd.DataFrame, "to_csv", fake))
        stack.enter_context(mock.patch.object(brecha.csv_text, "write_piece", fake_piece))
        return stack
    if kind == "parquet":
        original = pd.DataFrame.to_parquet

        def fake(self, path=None, *args, **kwargs):
            result = original(self, path, *args, **kwargs)
            if path is None or not due():
                return result
            _truncate(path)
            raise exc()

        import contextlib

        import pyarrow.parquet as pq

        piece_original = pq.ParquetWriter.write_table

        def fake_piece(self, table, *args, **kwargs):  # the piece-by-piece writer (brecha.cli.streamed)
            piece_original(self, table, *args, **kwargs)
            if due():
                raise exc()

        @contextlib.contextmanager
        def both():
            with mock.patch.object(pd.DataFrame, "to_parquet", fake), \
                    mock.patch.object(pq.ParquetWriter, "write_table", fake_piece):
                yield

        return both()
    if kind == "xlsx":
        original = openpyxl.workbook.workbook.Workbook.save

        def fake(self, filename):
            original(self, filename)
            if due():
                _truncate(filename)
                raise exc()
        return mock.patch.object(openpyxl.workbook.workbook.Workbook, "save", fake)
    if kind == "json":
        import contextlib  # a name of this function (the parquet branch imports it too)

        import brecha.io as brecha_io

        original = json.dump
        original_records = brecha_io.json_records

        def fake(obj, fp, *args, **kwargs):
            if not due():
                return original(obj, fp, *args, **kwargs)
            _half_write(fp, json.dumps(obj, *args, **{k: v for k, v in kwargs.items() if k != "cls"}))
            raise exc()

        def fake_records(part):  # the streamed writer (cli.streamed.write_json) makes its records piece by piece
            if not due():
                return original_records(part)
            raise exc()

        @contextlib.contextmanager
        def both_json():
            with mock.patch.object(json, "dump", fake), mock.patch.object(brecha_io, "json_records", fake_records):
                yield

        return both_json()
    if kind == "figure":  # a figure file of the report (SVG text brecha made; written with Path.write_bytes)
        original_bytes = Path.write_bytes

        def fake_bytes(self, data):
            if Path(self).suffix.lower() not in (".svg", ".png") or not due():
                return original_bytes(self, data)
            _half_write(self, data)
            raise exc()
        return mock.patch.object(Path, "write_bytes", fake_bytes)
    raise ValueError(kind)


@contextlib.contextmanager
def inside(module_suffix: str, exc=KeyboardInterrupt, call: int = 1):
    """``exc`` raised at the ``call``-th function call made inside a brecha module (e.g.
    "brecha/models/linear.py"): an interruption or a bug in the middle of the work."""
    suffix = module_suffix.replace("/", os.sep)
    count = [0]

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.endswith(suffix):
            count[0] += 1
            if count[0] >= call:
                sys.settrace(None)
                raise exc("injected fault")
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)


@contextlib.contextmanager
def another_run(argv: list[str], delay: float = 0.3):
    """A second ``brecha`` process started in the same folder just before the judged run (and awaited)."""
    from mistake_harness import brecha_command

    proc = subprocess.Popen(brecha_command() + list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    time.sleep(delay)
    try:
        yield proc
    finally:
        proc.communicate(timeout=600)
