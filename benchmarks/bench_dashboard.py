"""Dashboard benchmark: file size, build time and first paint in headless Chromium (issue 16).

Bars: ``dashboard.html`` <= 5 MB for the default Chilean report and <= 20 MB for the Brazilian one; first
paint <= 2 s in headless Chromium on this machine. Printed per example: the report's analyses (not part of
the dashboard, for scale), the dashboard's build (wall and CPU of :func:`render_dashboard`), its size, and
in Chromium (network blocked, median of 3 loads): first contentful paint and the moment the script has
drawn everything (``performance.mark("brecha-drawn")``), which is the number held against the 2 s bar.
The machine is shared: the load average is printed, and CPU time where it can be measured.
"""
from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

SIZE_BARS_MB = {"chile": 5.0, "brazil": 20.0}
PAINT_BAR_S = 2.0


def build(example: str) -> tuple[str, dict]:
    from brecha.report.build import build_report
    from brecha.report.dashboard import render_dashboard
    from brecha.study import example_study

    t0 = time.perf_counter()
    report = build_report(example_study(example), None, lang="en", write=False)
    analyses = time.perf_counter() - t0
    wall, cpu = time.perf_counter(), time.process_time()
    page = render_dashboard(report)
    return page, {"analyses": analyses, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                  "mb": len(page.encode("utf-8")) / 1e6}


def paint(path: Path, loads: int = 3) -> dict | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver_path = shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    if not (chromium and driver_path):
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--window-size=1280,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    fcp, drawn = [], []
    try:
        for _ in range(loads):
            driver.get(path.resolve().as_uri())
            got = driver.execute_script(
                "const p = performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint');"
                "const m = performance.getEntriesByName('brecha-drawn')[0];"
                "return [p ? p.startTime : null, m ? m.startTime : null];")
            fcp.append(got[0] or float("nan"))
            drawn.append(got[1] or float("nan"))
    finally:
        driver.quit()
    return {"fcp": statistics.median(fcp) / 1000, "drawn": statistics.median(drawn) / 1000}


def main(examples=("chile", "brazil")) -> bool:
    met = True
    for example in examples:
        load = os.getloadavg()[0]
        page, r = build(example)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "dashboard.html"
            path.write_text(page, encoding="utf-8")
            shown = paint(path)
        ok = r["mb"] <= SIZE_BARS_MB[example] and (shown is None or shown["drawn"] <= PAINT_BAR_S)
        met &= ok
        browser = ("chromium not available" if shown is None else
                   f"first contentful paint {shown['fcp']:.2f} s, drawn {shown['drawn']:.2f} s (bar {PAINT_BAR_S:.0f} s)")
        print(f"dashboard {example}: {r['mb']:.1f} MB (bar {SIZE_BARS_MB[example]:.0f} MB), build wall {r['wall']:.1f} s "
              f"cpu {r['cpu']:.1f} s (analyses before it {r['analyses']:.0f} s), {browser}, load average {load:.1f} "
              f"-> {'OK' if ok else 'OVER'}")
    return met


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv[1:] or ("chile", "brazil")) else 1)
