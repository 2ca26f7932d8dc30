#!/usr/bin/env python3
"""dpk-bench spread from the command line: each case's spread over every repeat of every
file, as computed here, the limit and its exit status, the medians in core cycles, the
slices behind a median, the sets of N runs, and one message with exit 2 for bad input.

usage: test_spread_cli.py PATH/TO/dpk-bench FIXTURE_DIR
Prints TAP.
"""
import json
import os
import re
import tempfile

from results_cli import expect_bad, f, run, with_cycles, with_witness
from tap import case, main


def expected_spreads(*paths):
    """Per case id, the spread of its medians over every (file, repeat), computed here."""
    runs = {}
    for p in paths:
        for r in json.load(open(p))["results"]:
            if r["status"] != "ok":
                continue
            params = "/".join(f"{k}:{v}" for k, v in r["params"].items())
            cid = "/".join(x for x in [r["suite"], r["case"], params,
                                       "placement:" + r["placement"]] if x)
            runs.setdefault((p, r["repeat"]), {})[cid] = r["ticks"]["p50"]
    ids = set.intersection(*(set(v) for v in runs.values()))
    out = {}
    for cid in ids:
        v = [run[cid] for run in runs.values()]
        out[cid] = (max(v) - min(v)) / min(v) * 100
    return len(runs), out


def spread_rows(out):
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[-1] in ("*",) and parts[-2].endswith("%"):
            rows[parts[0]] = float(parts[-2][:-1])
        elif len(parts) >= 3 and parts[-1].endswith("%") and "/" in parts[0]:
            rows[parts[0]] = float(parts[-1][:-1])
    return rows


@case("spread: medians of every repeat of every file, as computed independently")
def _():
    nruns, want = expected_spreads(f("base.json"), f("new.json"))
    rc, out, err = run("spread", f("base.json"), f("new.json"), "--limit", "999")
    assert rc == 0, (rc, err)
    assert f"{nruns} runs" in out, out
    got = spread_rows(out)
    assert set(got) == set(want), (sorted(got), sorted(want))
    for cid, v in want.items():
        assert abs(got[cid] - v) < 0.051, (cid, got[cid], v)
    assert f"{len(want)} cases in {nruns} runs" in out, out


@case("spread: a case at or over --limit is marked and exits 1; --pattern selects")
def _():
    _, want = expected_spreads(f("base.json"), f("new.json"))
    top = max(want.values())
    rc, out, _ = run("spread", f("base.json"), f("new.json"), "--limit", f"{top / 2:.4f}")
    assert rc == 1, out
    assert any(l.endswith(" *") for l in out.splitlines()), out
    # base.json alone: two repeats of synth/pair, one of the rest (left out, and said so).
    rc, out, err = run("spread", f("base.json"), "--pattern", "*/placement:core", "--limit", "50")
    assert rc == 0, (rc, err)
    got = spread_rows(out)
    assert list(got) == ["synth/pair/esize:8/n:32/placement:core"], got
    rc, out, err = run("spread", f("base.json"), "--limit", "50")
    assert rc == 0 and "more cases did not run ok in every run" in out, (rc, out)


@case("spread: bad input exits 2 with one message")
def _():
    expect_bad(["spread"], "needs results files")
    expect_bad(["spread", f("base_noraw.json"), "--limit", "0"], "--limit: '0'")
    expect_bad(["spread", f("base.json"), "--limit", "x"], "--limit: 'x'")
    expect_bad(["spread", f("base.json"), "--limt", "5"], "unknown option '--limt'", "--limit")
    expect_bad(["spread", f("base.json"), f("bad/syntax.json")], "bad/syntax.json")
    expect_bad(["spread", f("base.json"), "--pattern", "nothing*"], "no case ran ok")
    with tempfile.TemporaryDirectory() as d:
        one = os.path.join(d, "one.json")
        doc = json.load(open(f("base.json")))
        doc["results"] = [r for r in doc["results"] if r["repeat"] == 0]
        json.dump(doc, open(one, "w"))
        expect_bad(["spread", one], "1 run found")


@case("spread --unit cycles: the medians in core cycles; cases without them left out")
def _():
    with tempfile.TemporaryDirectory() as d:
        # The same cycles in every run whatever the ticks did: no spread in cycles.
        a = with_cycles(d, "a.json", "base.json", lambda cid, t: 100.0)
        b = with_cycles(d, "b.json", "new.json", lambda cid, t: 100.0)
        _, ticks = expected_spreads(a, b)
        assert any(v > 1 for v in ticks.values()), ticks
        rc, out, err = run("spread", a, b, "--unit", "cycles", "--limit", "1")
        assert rc == 0, (rc, out, err)
        assert "(core cycles per unit)" in out, out
        got = spread_rows(out)
        single = {c for c in ticks if c.endswith("placement:single")}
        assert single and set(got) == single, (sorted(got), sorted(single))
        assert all(v == 0.0 for v in got.values()), got
        assert "have no figures in cycles (multi-lcore cases never do), in every run" in out, out
        # Ticks by default, from the same files.
        rc, out, _ = run("spread", a, b, "--limit", "999")
        assert rc == 0 and "(ticks per unit)" in out, out
        got = spread_rows(out)
        for cid, v in ticks.items():
            assert abs(got[cid] - v) < 0.051, (cid, got[cid], v)
        # Cycles 10% apart in one case: that case alone is over a 5% limit.
        c = with_cycles(d, "c.json", "new.json",
                        lambda cid, t: 110.0 if cid == sorted(single)[0] else 100.0)
        rc, out, _ = run("spread", a, c, "--unit=cycles")
        assert rc == 1, out
        got = spread_rows(out)
        assert abs(got[sorted(single)[0]] - 10.0) < 0.051, got
        assert sum(v >= 5 for v in got.values()) == 1, got
        expect_bad(["spread", a, b, "--unit", "hz"], "--unit: 'hz'",
                   "'ticks', 'cycles' or 'floor'")
        # Over the floor: only the pair case has one.
        rc, out, _ = run("spread", f("base.json"), f("new.json"), "--unit", "floor")
        assert rc == 0 and "(per unit over the case's own floor)" in out, out
        assert list(spread_rows(out)) == ["synth/pair/esize:8/n:32/placement:core"], out
        assert "have no floor of their own (one-lcore cases never do)" in out, out
        expect_bad(["compare", a, b, "--unit", "hz"], "--unit: 'hz'",
                   "'auto', 'ticks', 'cycles' or 'floor'")
        expect_bad(["spread", f("base.json"), f("new.json"), "--unit", "cycles"],
                   "no case ran ok with figures in cycles")


@case("spread: under a row over the limit, the slices behind each run's median")
def _():
    _, want = expected_spreads(f("base.json"), f("new.json"))
    limit = f"{max(want.values()) / 2:.4f}"
    # Files that do not say: no such line.
    rc, out, _ = run("spread", f("base.json"), f("new.json"), "--limit", limit)
    assert rc == 1 and "slices behind" not in out, out
    with tempfile.TemporaryDirectory() as d:
        a = with_witness(d, "a.json", "base.json", 10.0, one_repeat=True, kept_rounds=3)
        b = with_witness(d, "b.json", "new.json", 10.0, one_repeat=True, kept_rounds=12)
        c = with_witness(d, "c.json", "new.json", 10.0, one_repeat=True)
        _, want = expected_spreads(a, b)
        over = {k for k, v in want.items() if v >= 1.0 and "placement:single" in k}
        assert over, want
        rc, out, err = run("spread", a, b, "--limit", "1")
        lines = out.splitlines()
        for i, line in enumerate(lines):
            parts = line.split()
            if parts and parts[0] in over:
                assert line.endswith(" *"), line
                assert lines[i + 1].split() == ["slices", "behind", "each", "median:", "3",
                                                "12"], (line, lines[i + 1])
        assert sum(l.strip().startswith("slices behind") for l in lines) == len(over), out
        # A file that does not say shows as "-".
        rc, out, err = run("spread", a, c, "--limit", "1")
        assert "slices behind each median: 3 -" in out, out


@case("spread --sets N: the sets of N runs that keep every case under the limit")
def _():
    with tempfile.TemporaryDirectory() as d:
        def runs(name, medians):
            """One file whose repeats are runs: in repeat q, synth/same has medians[q] and
            every other ok single-lcore case 50; the others are dropped."""
            doc = json.load(open(f("base.json")))
            first = [r for r in doc["results"] if r["repeat"] == 0 and r["status"] == "ok"
                     and r["placement"] == "single"]
            doc["results"] = []
            for q, m in enumerate(medians):
                for r in first:
                    r = json.loads(json.dumps(r))
                    r["repeat"] = q
                    v = m if r["case"] == "same" else 50.0
                    for k in ("min", "p50", "p90", "p99", "max", "mean", "p50_ci95_lo",
                              "p50_ci95_hi"):
                        r["ticks"][k] = v
                    r.pop("raw", None)
                    doc["results"].append(r)
            doc["options"]["raw"] = False
            path = os.path.join(d, name)
            json.dump(doc, open(path, "w"))
            return path
        five = runs("five.json", [100, 100, 100, 100, 110])
        rc, out, err = run("spread", five, "--sets", "3")
        assert rc == 1, (rc, out, err)  # over all five runs the case is at 10%
        # Of the 10 sets of 3, the 6 with the fifth run break the limit.
        assert "sets of 3 runs: every case under 5% in 4 of 10 (40%)" in out, out
        assert re.search(r"synth/same/n:32/placement:single +at or over it in 6 of the sets",
                         out), out
        rc, out, _ = run("spread", five, "--sets", "5", "--limit", "11")
        assert rc == 0 and "sets of 5 runs: every case under 11% in 1 of 1 (100%)" in out, out
        assert "at or over it in" not in out, out
        rc, out, _ = run("spread", five, "--sets=2")
        assert "in 6 of 10 (60%)" in out, out
        expect_bad(["spread", five, "--sets", "6"], "--sets 6: only 5 runs given")
        for bad in ["1", "x", "-3", "2.5", ""]:
            expect_bad(["spread", five, "--sets", bad], f"--sets: '{bad}'")
        many = runs("many.json", [100] * 40)
        expect_bad(["spread", many, "--sets", "20"], "--sets 20: 40 runs make",
                   "more than 1000000")


if __name__ == "__main__":
    main()
