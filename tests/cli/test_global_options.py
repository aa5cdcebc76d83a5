"""The global options (--lang, --quiet, --debug) are accepted after the command too."""
from __future__ import annotations

import pandas as pd

from brecha.cli.main import main
from brecha.i18n import set_language


def test_lang_quiet_and_debug_after_the_command(tmp_path, capsys):
    out = tmp_path / "r.csv"
    try:
        assert main(["rates", "--example", "chile", "--years", "2015", "--lang", "en", "--quiet", "--debug",
                     "-o", str(out)]) == 0
    finally:
        set_language("es")
    printed = capsys.readouterr().out
    assert "Saved:" in printed and "Guardado" not in printed
    table = pd.read_csv(out, dtype={"unit": str})
    assert len(table) == 346
    # the same numbers as with the options before the command
    before = tmp_path / "b.csv"
    try:
        assert main(["--lang", "en", "--quiet", "rates", "--example", "chile", "--years", "2015",
                     "-o", str(before)]) == 0
    finally:
        set_language("es")
    pd.testing.assert_frame_equal(table, pd.read_csv(before, dtype={"unit": str}))


def test_a_command_keeps_its_own_quiet(capsys):
    from brecha.cli.main import build_parser

    args = build_parser().parse_args(["ingest", "table", "a.csv", "--quiet", "-o", "p.csv"])
    assert args.quiet is True
    args = build_parser().parse_args(["rates", "--example", "chile"])
    assert args.quiet is False and args.debug is False and args.lang is None
