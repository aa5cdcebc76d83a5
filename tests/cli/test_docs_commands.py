"""Every `brecha ...` command shown in README.md and docs/*.md is accepted by the command line as written:
each option exists and each value is one of its choices (running them all takes minutes; this takes
well under a second and catches a renamed or removed option the day it happens)."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from brecha.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _shown_commands(path: Path) -> list[tuple[str, str]]:
    """(where, command) for each `brecha ...` line in the page's code blocks; continued lines joined."""
    found, block, buffer, start = [], False, "", 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip().startswith("```"):
            block = not block
            continue
        if not block:
            continue
        text = line.rstrip()
        if buffer:
            buffer += " " + text.strip()
        elif re.match(r"^\s*(\$ )?brecha\b", text):
            buffer, start = re.sub(r"^\s*\$ ", "", text).strip(), number
        else:
            continue
        if buffer.endswith("\\"):
            buffer = buffer[:-1].rstrip()
            continue
        found.append((f"{path.name}:{start}", buffer))
        buffer = ""
    return found


COMMANDS = [item for page in PAGES for item in _shown_commands(page)]


def test_the_pages_show_commands():
    assert len(COMMANDS) >= 50
    assert {where.split(":")[0] for where, _ in COMMANDS} >= {"README.md", "rates.md", "trends.md",
                                                             "inequality.md", "panel.md", "ingest-deis.md"}


@pytest.mark.parametrize("where,command", COMMANDS, ids=[where for where, _ in COMMANDS])
def test_shown_command_parses(where, command, capsys):
    argv = shlex.split(command, comments=True)[1:]
    if argv in (["--help"], ["-h"]):
        return
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        pytest.fail(f"{where}: `{command}` is refused: {capsys.readouterr().err.strip()}")
    assert getattr(args, "func", None) is not None, f"{where}: `{command}` names no command"
