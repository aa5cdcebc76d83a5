"""Issue 11, measured: every case of the mistake catalogue (tests/e2e/mistakes.py), run as a new user would.

Each case writes the user's files to a fresh folder, types the ``brecha`` commands there (in-process through
``brecha.cli.main.main``, a few through a real process or a terminal) and is judged on what the issue demands:
a clear error (exit 2, one ``Error:`` naming the file or option, what to do), a correct result (numbers
checked against the intended totals or against ``--example chile``), or a warning naming the problem; and in
every case no traceback, the user's files unchanged, nothing half-written left behind.

    python -m pytest -q -p no:cacheprovider tests/e2e -k "names or locale"
    python tests/e2e/mistakes.py            # the same cases as a table per class
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mistake_harness import execute  # noqa: E402
from mistakes import all_cases  # noqa: E402

CASES = all_cases()


def test_the_catalogue_covers_every_class_of_the_issue():
    from collections import Counter

    per_class = Counter(c.cls for c in CASES)
    assert len(CASES) >= 200
    assert sorted(per_class) == list(range(1, 11)), per_class
    assert {c.expect for c in CASES} >= {"error", "ok", "warn", "interrupt", "internal"}
    assert sum(c.lang == "es" for c in CASES) >= 15
    assert sum(c.subprocess or c.tty or c.sigint_after is not None for c in CASES) >= 5


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_user_mistake(case, tmp_path, capfd):
    verdict = execute(case, tmp_path / "work")
    leaked = capfd.readouterr()
    assert "Traceback (most recent call last)" not in leaked.err, f"{case.id}: a traceback reached the terminal"
    assert verdict.passed, f"{case.title}\n{verdict.summary()}\nstderr: {verdict.run.stderr[-1500:]}"
