#!/usr/bin/env python3
"""dpk-bench report renders in a real browser: headless Chromium loads the page, its
script runs without error (it fills the table of contents and switches scales), the DOM
holds every section, and a screenshot comes out.

usage: test_report_html.py PATH/TO/dpk-bench FIXTURE_DIR [--screenshot OUT.png]
Exits 77 (skipped) when no Chromium is installed (Debian: apt-get install chromium).
Prints TAP.
"""
import copy
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

BIN, FIX = sys.argv[1], sys.argv[2]
SHOT = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None


def browser():
    for name in ["chromium", "chromium-browser", "google-chrome", "chrome"]:
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(exe, profile, *args):
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", "--virtual-time-budget=5000", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, f"chromium exited {p.returncode}: {p.stderr[-2000:]}"
    return p.stdout


def report(out, *files):
    p = subprocess.run([BIN, "report", *files, "-o", out], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return "file://" + os.path.abspath(out)


def main():
    exe = browser()
    if not exe:
        print("1..0 # SKIP no Chromium found (Debian: apt-get install chromium)")
        return 77
    tests = []

    def t(name):
        def wrap(fn):
            tests.append((name, fn))
            return fn
        return wrap

    d = tempfile.mkdtemp(prefix="dpk_report_")
    state = {}

    @t("the two-file page runs its script and holds every section")
    def _():
        url = report(os.path.join(d, "two.html"), os.path.join(FIX, "base.json"),
                     os.path.join(FIX, "new.json"))
        dom = chromium(exe, os.path.join(d, "p1"), "--dump-dom", url)
        state["dom"] = dom
        m = re.search(r'<body[^>]*data-ready="(\d+)"', dom)
        assert m, "the script did not run (no data-ready on body)"
        assert int(m.group(1)) >= 4, m.group(0)
        err = re.search(r'<div id="js-errors"[^>]*>(.*?)</div>', dom, re.S)
        assert err and err.group(1).strip() == "", f"script errors: {err.group(1) if err else '?'}"
        toc = re.search(r'<nav id="toc">(.*?)</nav>', dom, re.S).group(1)
        for anchor in ["#comparison", "#runs", "#environment", "#suite-synth"]:
            assert f'href="{anchor}"' in toc, f"{anchor} missing from the contents: {toc}"

    @t("comparison chart and table: coloured verdicts, gate-free")
    def _():
        dom = state["dom"]
        assert dom.count("<svg") >= 1 + 2 + 10, dom.count("<svg")
        assert 'class="slower">slower' in dom and 'class="faster">faster' in dom
        assert "only in base: <code>synth/gone" in dom
        assert "not compared: <code>synth/broken" in dom
        assert "#cf222e" in dom and "#1a7f37" in dom
        # What each verdict rests on, in words above and per case in the table.
        assert "Verdicts rest on:" in dom and "<th>judged on</th>" in dom
        assert re.search(r"<td>(rounds|repeats)</td>", dom), "no case judged on rounds"

    @t("environment table and histograms from raw samples")
    def _():
        dom = state["dom"]
        assert "CPU frequency governor" in dom and "v-degraded" in dom
        assert "sample histograms (11)" in dom
        assert "raw samples were not recorded" not in dom
        # The fixtures predate the speed witness: the runs table says so.
        assert "<th>speed witness</th><td>not in this file</td>" in dom

    @t("without raw samples the page says so; a wide range starts on log scale")
    def _():
        doc = json.load(open(os.path.join(FIX, "base_noraw.json")))
        wide = copy.deepcopy(doc)
        for r in wide["results"]:
            if r["case"] == "pair" and r["status"] == "ok":
                for k in ["min", "p50", "p90", "p99", "max", "mean", "p50_ci95_lo", "p50_ci95_hi"]:
                    r["ticks"][k] *= 1000
        wide["witness"] = {"best_ticks": 11.0, "reference_ticks": 11.5, "reference_rank": 1000,
                           "p50_ticks": 12.0, "pairs": 64, "warm_pairs": 8, "limit": 0.25,
                           "readings": 8, "samples": 800, "slow_samples": 0,
                           "set_aside_samples": 0, "rounds": 4, "extra_rounds": 0,
                           "slow_only_cases": 0}
        path = os.path.join(d, "wide.json")
        json.dump(wide, open(path, "w"))
        url = report(os.path.join(d, "one.html"), path)
        dom = chromium(exe, os.path.join(d, "p2"), "--dump-dom", url)
        assert "raw samples were not recorded" in dom
        assert "reference reading 11.50 ticks</td>" in dom
        # A file from before the reference: its fastest reading, named as such.
        del wide["witness"]["reference_ticks"]
        json.dump(wide, open(path, "w"))
        url = report(os.path.join(d, "old.html"), path)
        dom = chromium(exe, os.path.join(d, "p3"), "--dump-dom", url)
        assert "fastest reading 11.00 ticks</td>" in dom
        assert re.search(r'<body[^>]*class="log"', dom), "log scale not switched on"
        assert 'id="comparison"' not in dom

    @t("--unit cycles draws the figures in core cycles and lists the results without them")
    def _():
        paths = []
        for name, p50 in (("base.json", 100.0), ("new.json", 105.0)):
            doc = json.load(open(os.path.join(FIX, name)))
            for r in doc["results"]:
                if r["status"] == "ok" and r["placement"] == "single":
                    r["cycles"] = {k: p50 for k in ("min", "p50", "p90", "p99", "max", "mean",
                                                    "p50_ci95_lo", "p50_ci95_hi")}
                    r["cycles"].update(stddev=0.0, cv=0.0)
                    r["core_mhz"] = 3000.0
                    r["cycles_kept"] = r["kept"]
                    r["raw_cycles"] = [p50 * (1 + (i % 9 - 4) * 0.001) for i in range(64)]
                    n = len(r["rounds"]["p50"])
                    r["rounds"]["p50_cycles"] = [p50 * (1 + (i % 9 - 4) * 0.001)
                                                 for i in range(n)]
            paths.append(os.path.join(d, "cyc_" + name))
            json.dump(doc, open(paths[-1], "w"))
        out = os.path.join(d, "cycles.html")
        p = subprocess.run([BIN, "report", *paths, "--unit", "cycles", "-o", out],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        dom = chromium(exe, os.path.join(d, "p4"), "--dump-dom", "file://" + out)
        err = re.search(r'<div id="js-errors"[^>]*>(.*?)</div>', dom, re.S)
        assert err and err.group(1).strip() == "", f"script errors: {err.group(1) if err else '?'}"
        assert "core cycles per unit (log scale)" in dom and "TSC ticks per unit" not in dom
        assert "p50 100 core cycles" in dom and "p50 105 core cycles" in dom, "cycles not drawn"
        assert "Ratio new/base of the median core cycles per unit" in dom
        assert "+5.0% slower" in dom, "the comparison was not in cycles"
        assert "no figures in cycles (multi-lcore, interleaved, or cycles off" in dom, \
            "a multi-lcore result was drawn"
        assert "core cycles per unit; dashed: median" in dom
        assert "<th>core-clock multiply</th><td>not in this file</td>" in dom, \
            "the runs table does not say the fixtures lack the check"
        # Ticks by default, from the same files; a file with the check names its reading.
        doc = json.load(open(paths[1]))
        doc["clock"]["mul_cycles"] = 2.98
        json.dump(doc, open(paths[1], "w"))
        url = report(os.path.join(d, "ticks.html"), *paths)
        dom = open(url[len("file://"):]).read()
        assert "TSC ticks per unit" in dom and "core cycles per unit" not in dom
        assert "<td>2.98 cycles by a chain of adds (3 assumed)</td>" in dom, dom[:200]
        # Files without figures in cycles: nothing to draw is an error.
        p = subprocess.run([BIN, "report", os.path.join(FIX, "old_base.json"), "--unit",
                            "cycles", "-o", os.path.join(d, "none.html")],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and "no case has figures in cycles in " in p.stderr, p.stderr
        assert not os.path.exists(os.path.join(d, "none.html")), "a page was written"
        # Two files, one without: named, and no page either.
        p = subprocess.run([BIN, "report", paths[0], os.path.join(FIX, "old_new.json"), "--unit",
                            "cycles", "-o", os.path.join(d, "half.html")],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and "old_new.json" in p.stderr, p.stderr
        assert not os.path.exists(os.path.join(d, "half.html")), "a page was written"

    @t("a screenshot renders")
    def _():
        url = report(os.path.join(d, "shot.html"), os.path.join(FIX, "base.json"),
                     os.path.join(FIX, "new.json"))
        png = SHOT or os.path.join(d, "report.png")
        chromium(exe, os.path.join(d, "p3"), f"--screenshot={os.path.abspath(png)}",
                 "--window-size=1280,2000", "--hide-scrollbars", url)
        data = open(png, "rb").read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
        w, h = struct.unpack(">II", data[16:24])
        assert (w, h) == (1280, 2000), (w, h)
        assert len(data) > 20000, f"suspiciously small screenshot ({len(data)} bytes)"

    print("TAP version 13")
    print(f"1..{len(tests)}")
    bad = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print(f"ok {i} - {name}")
        except Exception as e:  # noqa: BLE001 - report every failure as TAP
            bad += 1
            print(f"not ok {i} - {name}")
            for line in str(e).splitlines():
                print(f"# {line}")
    shutil.rmtree(d, ignore_errors=True)
    print(f"# {len(tests) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
