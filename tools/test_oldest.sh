#!/usr/bin/env bash
# Build a virtual environment with the OLDEST dependency versions pyproject.toml allows
# (constraints/oldest.txt) and run the test suite in it.
#
#   bash tools/test_oldest.sh            # venv in /tmp/oldest, then the whole suite
#   bash tools/test_oldest.sh tests/panel  # only some tests (any pytest arguments)
#   OLDEST_VENV=/path/to/venv bash tools/test_oldest.sh
#
# The project is installed as a user gets it (`pip install ".[test]"`, not editable), so the tests run against
# the installed package. Runs from the repository root; exits with pytest's status.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${OLDEST_VENV:-/tmp/oldest}"
python="${PYTHON:-python3}"

rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -c constraints/oldest.txt ".[test]"
echo "oldest set:" >&2
"$venv/bin/python" -m pip list --format=freeze 2>/dev/null \
  | grep -iE '^(numpy|pandas|scipy|pyarrow|polars|statsmodels|linearmodels|openpyxl|matplotlib|rich|jinja2|threadpoolctl|orjson|libpysal|esda|pytest|selenium|hypothesis)==' >&2

# Import brecha from the installed copy, not from src/ (the tests add nothing to sys.path themselves).
"$venv/bin/python" -m pytest -p no:cacheprovider "${@:-tests}"
