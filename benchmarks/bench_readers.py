"""Reading the user's own panel files: Chile (5,520 rows) and Brazil (111,400 rows) written to disk as CSV
(comma and semicolon with decimal commas), then read back by ``read_panel`` (every cell checked: decimal
convention, codes, missing tokens, the Panel's checks) and by ``brecha panel FILE`` as a whole process.

``pandas.read_csv`` of the same file is printed as the floor (it checks none of this). No bar is set by an
issue for the reader alone; issue 19 asks for speed at every size, and this is the first step of every
command on a user's file. Before the vectorised number parsing (number_formats' Arrow path), Brazil's CSV
took about 10 s of CPU in ``read_panel``.
"""
from __future__ import annotations

import tempfile
import time
import warnings
from pathlib import Path

NO_BAR = True  # measured and printed; no issue sets a bar for it alone

from measure import brecha_command, command_line, run_command, step


def _files(folder: Path) -> dict[str, Path]:
    from brecha import datasets

    out = {}
    for name in ("chile", "brazil"):
        panel = getattr(datasets, name)()
        data = panel.data
        comma = folder / f"{name}.csv"
        data.to_csv(comma, index=False)
        semicolon = folder / f"{name}_es.csv"
        data.to_csv(semicolon, index=False, sep=";", decimal=",")
        out[name] = comma
        out[f"{name} (';' and decimal commas)"] = semicolon
    return out


def main() -> None:
    warnings.simplefilter("ignore")
    import pandas as pd

    from brecha.panel import read_panel

    with tempfile.TemporaryDirectory() as tmp:
        files = _files(Path(tmp))
        for label, path in files.items():
            start = time.process_time()
            pd.read_csv(path, sep=None if "_es" in path.name else ",", engine="python" if "_es" in path.name
                        else "c", dtype={"unit": str})
            floor = time.process_time() - start
            with step(f"read_panel {label}", show=False) as m:
                panel = read_panel(path)
            print(f"   read_panel {label:<44} {m.line()}  ({len(panel.data):,} rows; "
                  f"pandas.read_csv {floor:.2f} s CPU)")
        for label in ("chile", "brazil"):
            r = run_command(brecha_command("-q", "panel", str(files[label])))
            print(f"   brecha panel {label}.csv (whole process)                    {command_line(r)}")
