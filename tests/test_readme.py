"""The README's two set-up commands stay true: CI runs exactly the README's test command."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands(text: str) -> list[str]:
    return re.findall(r"```bash\n(python3 -m venv[^\n]*)\n```", text)


def test_ci_runs_the_readme_test_command():
    commands = _commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(commands) == 2, commands
    main_job, tests = commands
    assert "brecha report" in main_job
    assert "pytest" in tests
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci


def test_readme_commands_name_existing_cli_commands():
    from brecha.cli.main import COMMANDS

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    used = set(re.findall(r"^brecha (\w+)", text, flags=re.M))
    assert used <= set(COMMANDS), used - set(COMMANDS)
