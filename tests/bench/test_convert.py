#!/usr/bin/env python3
"""dpk-bench convert: a results file as Google Benchmark JSON (the schema check and, where it
is installed, Google Benchmark's own tools/compare.py), as a run's CSV, as Markdown (results,
and a comparison of two files or of a compare --json file), and as a normalised dpkit copy;
and one message with exit 2 for bad input.

usage: test_convert.py PATH/TO/dpk-bench PATH/TO/check_gbench.py FIXTURE_DIR
Prints TAP.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

BIN, CHECK, FIX = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
results = []
tmp = tempfile.TemporaryDirectory()


def f(name):
    return os.path.join(FIX, name)


def run(*args):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)
    assert p.returncode >= 0, f"killed by signal {-p.returncode}: {args}\n{p.stderr}"
    return p.returncode, p.stdout, p.stderr


def case(name):
    def wrap(fn):
        results.append((name, fn))
        return fn
    return wrap


class Skip(Exception):
    pass


def expect_bad(args, *needles):
    rc, out, err = run(*args)
    assert rc == 2, f"exit {rc} for {args}, stderr: {err!r}"
    assert len(err.strip().splitlines()) == 1, f"expected one message for {args}: {err!r}"
    for n in needles:
        assert n in err, f"{n!r} not in stderr {err!r}"
    assert out == "", f"output for {args}: {out[:200]!r}"


def gbench(src, name):
    path = os.path.join(tmp.name, name)
    rc, _, err = run("convert", src, "--to", "gbench", "-o", path)
    assert rc == 0, err
    return path


def ids(path):
    """The ids of the ok results of a results file, as dpk-bench names a case."""
    out = []
    for r in json.load(open(path))["results"]:
        if r["status"] == "ok":
            params = "".join(f"/{k}:{v}" for k, v in r["params"].items())
            out.append(f"{r['suite']}/{r['case']}{params}/placement:{r['placement']}")
    return out


@case("--to gbench passes the Google Benchmark schema check, a benchmark per case")
def _():
    for src in ("base.json", "new.json", "base_noraw.json"):
        path = gbench(f(src), src)
        p = subprocess.run([sys.executable, CHECK, "--dpkit", path], capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stdout
        doc = json.load(open(path))
        names = [b["run_name"] for b in doc["benchmarks"] if b["run_type"] == "aggregate"
                 and b["aggregate_name"] == "median"]
        assert names == list(dict.fromkeys(ids(f(src)))), (names, ids(f(src)))
        assert "synth/broken" in doc["context"]["dpkit_not_run"] or src != "new.json"
        assert doc["context"]["dpkit_converted_from"] == f(src)
    # Repeats pool: base.json has synth/pair on core twice, 300 kept samples each.
    doc = json.load(open(gbench(f("base.json"), "b.json")))
    pair = [b for b in doc["benchmarks"] if b["run_name"] == "synth/pair/esize:8/n:32/placement:core"]
    assert [b["aggregate_name"] for b in pair if b["run_type"] == "aggregate"] == \
        ["mean", "median", "stddev", "cv"], pair
    assert pair[-1]["iterations"] == 600, pair[-1]
    # Without raw samples, one iteration at each repeat's median.
    doc = json.load(open(gbench(f("base_noraw.json"), "n.json")))
    same = [b for b in doc["benchmarks"] if b["run_name"] == "synth/same/n:32/placement:single"
            and b["run_type"] == "iteration"]
    src = [r for r in json.load(open(f("base_noraw.json")))["results"] if r["case"] == "same"]
    assert len(same) == 1 and abs(same[0]["real_time"] - src[0]["ns"]["p50"]) < 1e-6, same


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


@case("Google Benchmark's compare.py reads two converted files")
def _():
    cmp_py = find_compare()
    py = python_with_scipy()
    a, b = gbench(f("base.json"), "a.json"), gbench(f("new.json"), "b.json")
    p = subprocess.run([py, cmp_py, "--no-color", "-a", "benchmarks", a, b],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    for needle in ["synth/shift10/n:32/placement:single_median",
                   "synth/shift10/n:32/placement:single_pvalue", "OVERALL_GEOMEAN"]:
        assert needle in p.stdout, f"{needle!r} not in compare.py output:\n{p.stdout}"


@case("--to csv is the run's own CSV, row for row")
def _():
    j, c = os.path.join(tmp.name, "r.json"), os.path.join(tmp.name, "r.csv")
    rc, _, err = run("run", "floor", "--placement", "single,core", "--time", "20ms",
                     "--warmup", "5ms", "--repeat", "2", "--quiet", "--json", j, "--csv", c)
    assert rc in (0, 1), err
    rc, out, err = run("convert", j, "--to", "csv")
    assert rc == 0, err
    assert out.splitlines() == open(c).read().splitlines(), (out, open(c).read())
    # The fixtures: one row per result, of the header's width.
    rc, out, err = run("convert", f("new.json"), "--to", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert all(len(r) == len(rows[0]) for r in rows), rows
    doc = json.load(open(f("new.json")))
    assert [(r[2], r[6]) for r in rows[1:]] == [(x["case"], x["status"]) for x in doc["results"]]


@case("--to markdown: a table of the results, and of a comparison either way")
def _():
    rc, out, err = run("convert", f("base.json"), "--to", "markdown")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "| case | repeat | placement | unit | p50 (ns) | p90 | p99 | samples |", \
        lines[0]
    doc = json.load(open(f("base.json")))
    assert len(lines) == 2 + len(doc["results"]), out
    row = next(l for l in lines if l.startswith("| synth/same n=32 |"))
    same = doc["results"][0]
    assert row == f"| synth/same n=32 | 1 | single | per element | {same['ns']['p50']:.2f} | " \
        f"{same['ns']['p90']:.2f} | {same['ns']['p99']:.2f} | {same['kept']} |", row
    # Two files, and the compare --json file of the same two: one table.
    rc, two, err = run("convert", f("base.json"), f("new.json"), "--to", "md")
    assert rc == 0, err
    cj = os.path.join(tmp.name, "cmp.json")
    run("compare", f("base.json"), f("new.json"), "--json", cj)
    rc, one, err = run("convert", cj, "--to", "markdown")
    assert rc == 0, err
    table = lambda t: [l for l in t.splitlines() if l.startswith("|")]  # noqa: E731
    assert table(two) == table(one) and len(table(one)) == 2 + 8, (two, one)
    assert "| synth/shift10 n=32 | single | cycles | 140.03 | 153.93 | 1.099 | 1.080 to 1.119 | " \
        "**slower** |" in two, two
    assert "| synth/moved esize=8 n=32 | core | ticks |" in two and "**no verdict**" in two, \
        two
    assert "Geometric mean of the ratios 1.015 over 7 cases: 1 faster, 1 slower, 5 within " \
        "noise." in one, one
    rc, out, err = run("convert", cj, "--to", "md", "--pattern", "synth/shift*")
    assert rc == 0 and len(table(out)) == 4 and "Geometric" not in out, out
    rc, out, err = run("convert", f("base.json"), f("new.json"), "--to", "md", "--noise", "15")
    assert "**slower**" not in out and "**faster**" not in out, out
    assert "noise threshold 15.0%" in out, out


@case("--to dpkit: the same document, written by dpk-bench; --pattern and --exclude select")
def _():
    for src in ("base.json", "new.json", "env_other.json"):
        rc, out, err = run("convert", f(src), "--to", "dpkit")
        assert rc == 0, err
        assert json.loads(out) == json.load(open(f(src))), src
    path = os.path.join(tmp.name, "sel.json")
    rc, _, err = run("convert", f("base.json"), "--to", "dpkit", "--exclude", "synth/pair",
                     "-o", path)
    assert rc == 0, err
    got = json.load(open(path))["results"]
    assert got and all(r["case"] != "pair" for r in got), got
    rc, out, err = run("compare", path, f("new.json"))
    assert rc == 0 and "synth/pair" not in out.split("only in new")[0], out
    rc, out, err = run("convert", f("base.json"), "--to", "dpkit", "--pattern", "synth/pair")
    assert {r["case"] for r in json.loads(out)["results"]} == {"pair"}


@case("bad input: one message, exit 2, nothing written")
def _():
    expect_bad(["convert", f("base.json")], "needs --to FORMAT")
    expect_bad(["convert", "--to", "csv"], "needs a results file")
    expect_bad(["convert", f("base.json"), "--to", "xml"], "--to: unknown format 'xml'")
    expect_bad(["convert", f("base.json"), f("new.json"), "--to", "csv"],
               "--to csv takes one results file")
    expect_bad(["convert", f("base.json"), f("new.json"), f("new.json"), "--to", "md"],
               "too many files")
    expect_bad(["convert", os.path.join(FIX, "bad", "syntax.json"), "--to", "csv"],
               "syntax.json: line 4")
    expect_bad(["convert", f("base.json"), "--to", "csv", "--pattern", "zz*"],
               "--pattern 'zz*' selects no case")
    expect_bad(["convert", f("base.json"), "--to", "csv", "--exclude", "synth/smae"],
               "(did you mean 'synth/same'?)")
    expect_bad(["convert", f("base.json"), "--to", "md", "--time", "1"], "convert takes no --time")
    cj = os.path.join(tmp.name, "cmp2.json")
    run("compare", f("base.json"), f("new.json"), "--json", cj)
    expect_bad(["convert", cj, "--to", "csv"], "is a comparison (compare --json)")
    doc = json.load(open(cj))
    doc["cases"][1]["ratio"] = "x"
    json.dump(doc, open(cj, "w"))
    expect_bad(["convert", cj, "--to", "md"], "cases[1].ratio: expected a number, found a string")
    out = os.path.join(tmp.name, "none.csv")
    expect_bad(["convert", f("base.json"), "--to", "csv", "-o", "/nonexistent-dir/x.csv"],
               "cannot write -o")
    assert not os.path.exists(out)


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
