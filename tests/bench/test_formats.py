#!/usr/bin/env python3
"""dpk-bench's machine formats: --format=gbench passes the Google Benchmark schema check
and Google Benchmark's own tools/compare.py reads two such files; --csv stays consistent
with the JSON (one row per result, one per kept sample with --raw).

usage: test_formats.py PATH/TO/dpk-bench PATH/TO/check_gbench.py
compare.py is looked for in $GBENCH_COMPARE, then /usr/share/benchmark/compare.py (Debian
package libbenchmark-tools); it needs scipy (python3-scipy). Without either, that case is
skipped with the reason. Prints TAP.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

BIN, CHECK = sys.argv[1], sys.argv[2]
RUN = ["run", "floor", "--placement", "single,core", "--time", "20ms", "--warmup", "5ms",
       "--quiet"]
results = []
tmp = tempfile.TemporaryDirectory()


def run(*args, check=True):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)
    # Exit 1 means a case broke an invariant (on this shared machine a pair case may make
    # no progress in 20 ms); the files are still written and must still be right.
    if check:
        assert p.returncode in (0, 1), f"exit {p.returncode} for {args}: {p.stderr}"
    return p


def case(name):
    def wrap(fn):
        results.append((name, fn))
        return fn
    return wrap


class Skip(Exception):
    pass


_gb = {}


def gbench_files():
    if not _gb:
        for side in ("a", "b"):
            path = os.path.join(tmp.name, f"{side}.json")
            run(*RUN, "--format=gbench", "--json", path)
            _gb[side] = path
    return _gb["a"], _gb["b"]


@case("--format=gbench passes the Google Benchmark schema check")
def _():
    a, b = gbench_files()
    for path in (a, b):
        p = subprocess.run([sys.executable, CHECK, "--dpkit", path], capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stdout
    doc = json.load(open(a))
    names = {x["run_name"] for x in doc["benchmarks"]}
    assert "floor/tsc_read/placement:single" in names, names
    pp = [x for x in doc["benchmarks"] if x["run_name"] == "floor/pingpong/placement:core"]
    if pp:
        assert pp[0]["threads"] == 2, pp[:1]
    else:
        assert "floor/pingpong/placement:core" in doc["context"]["dpkit_not_run"]
    assert "dpkit_env_cpu_model" in doc["context"]


@case("the schema checker accepts Google Benchmark's own file and rejects a broken one")
def _():
    ref = os.path.join(os.path.dirname(os.path.abspath(CHECK)), "..", "fixtures", "results",
                       "gbench_1.7.1.json")
    p = subprocess.run([sys.executable, CHECK, ref], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout
    doc = json.load(open(ref))
    del doc["benchmarks"][0]["real_time"]
    broken = os.path.join(tmp.name, "broken.json")
    json.dump(doc, open(broken, "w"))
    p = subprocess.run([sys.executable, CHECK, broken], capture_output=True, text=True)
    assert p.returncode == 1 and "real_time" in p.stdout, p.stdout


@case("--format errors are refused before anything runs")
def _():
    p = run("run", "floor", "--format", "xml", "--json", "x.json", check=False)
    assert p.returncode == 2 and "unknown format 'xml'" in p.stderr, p.stderr
    p = run("run", "floor", "--format=gbench", check=False)
    assert p.returncode == 2 and "--json" in p.stderr, p.stderr


def find_compare():
    for c in [os.environ.get("GBENCH_COMPARE"), "/usr/share/benchmark/compare.py"]:
        if c and os.path.exists(c):
            return c
    raise Skip("Google Benchmark's compare.py not found (Debian: apt-get install "
               "libbenchmark-tools, or set GBENCH_COMPARE)")


def python_with_scipy():
    for py in [sys.executable, "/usr/bin/python3"]:
        if py and os.path.exists(py) and subprocess.run(
                [py, "-c", "import scipy.stats"], capture_output=True).returncode == 0:
            return py
    raise Skip("no Python with scipy for compare.py (Debian: apt-get install python3-scipy)")


@case("Google Benchmark's compare.py reads two --format=gbench files")
def _():
    cmp_py = find_compare()
    py = python_with_scipy()
    a, b = gbench_files()
    dump = os.path.join(tmp.name, "diff.json")
    p = subprocess.run([py, cmp_py, "--no-color", "-a", "-d", dump, "benchmarks", a, b],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout
    for needle in ["floor/tsc_read/placement:single_median",
                   "floor/tsc_read/placement:single_pvalue", "OVERALL_GEOMEAN"]:
        assert needle in out, f"{needle!r} not in compare.py output:\n{out}"
    diff = json.load(open(dump))
    tsc = [d for d in diff if d["name"] == "floor/tsc_read/placement:single"]
    assert tsc and tsc[0]["utest"], "compare.py ran no U test"
    assert 0 <= tsc[0]["utest"]["time_pvalue"] <= 1
    assert tsc[0]["utest"]["have_optimal_repetitions"]


@case("--csv: a row per result and per kept sample, consistent with the JSON")
def _():
    j, c = os.path.join(tmp.name, "r.json"), os.path.join(tmp.name, "r.csv")
    run(*RUN, "--repeat", "2", "--raw", "--json", j, "--csv", c)
    doc = json.load(open(j))
    rows = list(csv.reader(open(c)))
    head = rows[0]
    assert all(len(r) == len(head) for r in rows), "rows of different widths"
    col = {k: i for i, k in enumerate(head)}
    cases = [r for r in rows[1:] if r[0] == "case"]
    samples = [r for r in rows[1:] if r[0] == "sample"]
    assert len(cases) == len(doc["results"]), (len(cases), len(doc["results"]))
    for r, res in zip(cases, doc["results"]):
        assert (r[col["suite"]], r[col["case"]], r[col["placement"]], int(r[col["repeat"]])) == \
            (res["suite"], res["case"], res["placement"], res["repeat"])
        assert r[col["status"]] == res["status"]
        if res["status"] != "ok":
            continue
        assert int(r[col["kept"]]) == res["kept"]
        if "witness_slices" in res:
            assert (int(r[col["witness_slices"]]), int(r[col["witness_fast_samples"]]),
                    r[col["witness_slow_only"]] == "1", int(r[col["witness_kept_rounds"]])) == \
                (res["witness_slices"], res["witness_fast_samples"],
                 res["witness_slow_only"], res["witness_kept_rounds"]), res["case"]
        else:
            assert r[col["witness_slices"]] == r[col["witness_fast_samples"]] == \
                r[col["witness_slow_only"]] == r[col["witness_kept_rounds"]] == "", r
        assert abs(float(r[col["p50_ticks"]]) - res["ticks"]["p50"]) < 1e-3 + 1e-6 * res["ticks"]["p50"]
        if "cycles" in res:
            assert abs(float(r[col["p50_cycles"]]) - res["cycles"]["p50"]) < \
                1e-3 + 1e-6 * res["cycles"]["p50"], res["case"]
            assert abs(float(r[col["core_mhz"]]) - res["core_mhz"]) < 0.06, res["case"]
        else:
            assert r[col["p50_cycles"]] == r[col["core_mhz"]] == "", r
        mine = [s for s in samples if (s[col["suite"]], s[col["case"]], s[col["placement"]],
                                       int(s[col["repeat"]])) ==
                (res["suite"], res["case"], res["placement"], res["repeat"])]
        assert len(mine) == res["kept"] == len(res["raw_ticks"]), res["case"]
        assert [int(s[col["sample_index"]]) for s in mine] == list(range(len(mine)))
        # The same samples, in the same order as raw_ticks, which keeps 6 significant
        # digits: up to half a unit of the sixth apart (5e-6 of the value).
        got = [float(s[col["sample_ticks"]]) for s in mine]
        want = res["raw_ticks"]
        off = [(i, x, y) for i, (x, y) in enumerate(zip(got, want))
               if abs(x - y) > 1e-3 + 5.1e-6 * abs(y)]
        assert not off, f"{res['case']}: CSV and JSON samples differ at {off[:3]}"
    # Without --raw there are no sample rows.
    run(*RUN, "--csv", c)
    assert not [r for r in csv.reader(open(c)) if r and r[0] == "sample"]
    rows = list(csv.reader(open(c)))
    assert all(len(r) == len(rows[0]) for r in rows), "rows of different widths"


def main():
    print("TAP version 13")
    print(f"1..{len(results)}")
    failed = 0
    for i, (name, fn) in enumerate(results, 1):
        try:
            fn()
            print(f"ok {i} - {name}")
        except Skip as s:
            print(f"ok {i} - {name} # SKIP {s}")
        except Exception as e:  # noqa: BLE001 - report every failure as TAP
            failed += 1
            print(f"not ok {i} - {name}")
            for line in str(e).splitlines():
                print(f"# {line}")
    print(f"# {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
