"""What the results command-line tests share (test_compare_cli.py, test_spread_cli.py): the
dpk-bench under test and the fixtures (from the command line: PATH/TO/dpk-bench FIXTURE_DIR),
running it, a bad input's one message, a row of a table, and fixtures given figures in core
cycles or a speed witness's reading.
"""
import json
import os
import subprocess
import sys

BIN, FIX = sys.argv[1], os.path.abspath(sys.argv[2])


def f(name):
    return os.path.join(FIX, name)


def run(*args, timeout=120):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)
    # A signal (a crash) shows as a negative code: never acceptable.
    assert p.returncode >= 0, f"killed by signal {-p.returncode}: {args}\n{p.stderr}"
    return p.returncode, p.stdout, p.stderr


def expect_bad(args, *needles):
    rc, out, err = run(*args)
    assert rc == 2, f"exit {rc} for {args}, stderr: {err!r}"
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1, f"expected one message for {args}, got {err!r}"
    for n in needles:
        assert n in err, f"{n!r} not in stderr {err!r}"
    assert "ratio" not in out, f"a comparison was printed for {args}"


def row(out, name, place="single"):
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == name and place in parts:
            return line
    raise AssertionError(f"no row for {name} {place} in\n{out}")


def with_cycles(d, name, src, cycles_p50, raw=False, repeats=1, drop=None):
    """A copy of the first repeat of fixture @src whose single-lcore ok results carry figures
    in core cycles, each case's median @cycles_p50(case id, ticks median), and with @raw 64
    raw samples around it; the others carry none. @repeats copies of that repeat make as many
    repeats; @drop = (case id, repeat) takes the cycles away from that one result."""
    doc = json.load(open(f(src)))
    first = [r for r in doc["results"] if r["repeat"] == 0]
    doc["results"] = []
    for q in range(repeats):
        for r in first:
            r = json.loads(json.dumps(r))
            r["repeat"] = q
            doc["results"].append(r)
    for r in doc["results"]:
        if r["status"] == "ok" and r["placement"] == "single":
            params = "/".join(f"{k}:{v}" for k, v in r["params"].items())
            cid = "/".join(x for x in [r["suite"], r["case"], params, "placement:single"] if x)
            p50 = cycles_p50(cid, r["ticks"]["p50"])
            r["cycles"] = {k: p50 for k in ("min", "p50", "p90", "p99", "max", "mean",
                                            "p50_ci95_lo", "p50_ci95_hi")}
            r["cycles"].update(stddev=0.0, cv=0.0)
            r["core_mhz"] = 3000.0
            if "rounds" in r:  # each round's median in cycles around the case's
                r["rounds"]["p50_cycles"] = [p50 * (1 + (i % 9 - 4) * 0.001)
                                             for i in range(len(r["rounds"]["p50"]))]
            if drop == (cid, r["repeat"]):
                del r["cycles"], r["core_mhz"]
                r["rounds"].pop("p50_cycles", None)
                continue
            if raw:
                r["raw_cycles"] = [p50 * (1 + (i % 9 - 4) * 0.001) for i in range(64)]
    path = os.path.join(d, name)
    json.dump(doc, open(path, "w"))
    return path


def with_witness(d, name, src, best, no_fast=(), one_repeat=False, kept_rounds=None,
                 old=False):
    """A copy of fixture @src whose run says its speed witness's reference read @best (its
    fastest reading 10% under that), and that the cases of its first repeat named in
    @no_fast had no fast sample; @one_repeat keeps only that repeat (so every case is in
    every run of a spread); @kept_rounds, when given, is each such case's
    witness_kept_rounds; @old: a file from before the reference, whose fastest reading
    is @best."""
    doc = json.load(open(f(src)))
    if one_repeat:
        doc["results"] = [r for r in doc["results"] if r["repeat"] == 0]
    doc["witness"] = {"best_ticks": best if old else best * 0.9, "p50_ticks": best * 1.1,
                      "pairs": 64, "warm_pairs": 8, "limit": 0.25, "readings": 800,
                      "samples": 8000,
                      "slow_samples": 0, "set_aside_samples": 0, "rounds": 40,
                      "extra_rounds": 0, "slow_only_cases": len(no_fast)}
    if not old:
        doc["witness"].update({"reference_ticks": best, "reference_rank": 1000})
    for r in doc["results"]:
        if r["status"] == "ok" and r["placement"] == "single" and r["repeat"] == 0:
            r["witness_slices"] = 40
            r["witness_fast_samples"] = 0 if r["case"] in no_fast else r["samples"]
            r["witness_slow_only"] = r["case"] in no_fast
            if kept_rounds is not None:
                r["witness_kept_rounds"] = kept_rounds
    path = os.path.join(d, name)
    json.dump(doc, open(path, "w"))
    return path
