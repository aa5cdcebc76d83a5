"""The shipped data is what tools/build_data.py makes from the sources (skipped without ../shared)."""
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
DATA = ROOT / "src" / "brecha" / "data"


@pytest.mark.skipif(not SHARED.exists(), reason="shared source data not available")
def test_rebuild_gives_the_shipped_files(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "tools" / "build_data.py"), str(SHARED), "--out", str(tmp_path)],
                   check=True, capture_output=True, cwd=ROOT)
    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == sorted(p.name for p in DATA.iterdir() if p.is_file())
    for name in built:
        if name.endswith(".parquet"):
            pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / name), pd.read_parquet(DATA / name))
        else:
            assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name
