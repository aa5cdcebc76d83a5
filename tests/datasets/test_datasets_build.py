"""The shipped data is what tools/build_data.py makes from the sources (skipped without ../shared)."""
import re
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
        elif name == "PROVENANCE.md":
            # the page states the files' total size, which depends on the pyarrow version that wrote them
            # (the oldest supported pyarrow compresses differently); every other line must be the same
            size = re.compile(r"^Total size: [0-9,]+ KiB\.$", flags=re.M)
            built_text = size.sub("Total size", (tmp_path / name).read_text(encoding="utf-8"))
            shipped_text = size.sub("Total size", (DATA / name).read_text(encoding="utf-8"))
            assert built_text == shipped_text
        else:
            assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name
