#!/usr/bin/env python3
"""dpk-bench compare and report from the command line: verdicts and exit codes on the
synthetic fixtures (tests/fixtures/results), and one message with exit 2, never a crash,
for every kind of bad input.

usage: test_compare_cli.py PATH/TO/dpk-bench FIXTURE_DIR
Prints TAP.
"""
import json
import os
import shutil
import subprocess
import tempfile

from results_cli import BIN, FIX, expect_bad, f, row, run, with_cycles, with_witness
from tap import case, main


@case("known shifts: verdicts, gate at 5% fails on the +10% case (exit 1)")
def _():
    rc, out, err = run("compare", f("base.json"), f("new.json"), "--fail-above", "5")
    assert rc == 1, (rc, err)
    assert row(out, "synth/shift10").rstrip().endswith("slower  FAIL"), row(out, "synth/shift10")
    assert "within noise" in row(out, "synth/shift1")
    assert "within noise" in row(out, "synth/same")
    assert "within noise" in row(out, "synth/noisy")
    assert "faster" in row(out, "synth/faster10")
    assert "geometric mean" in out and "1 faster, 1 slower, 5 within noise" in out
    assert "only in base (1)" in out and "synth/gone" in out
    assert "only in new (1)" in out and "synth/added" in out
    assert "not compared (1)" in out and "failed in new" in out
    assert "gate: FAILED, 1 case slower by more than 5.0%" in out


@case("no gate: exit 0 whatever the verdicts; a wide gate passes")
def _():
    rc, out, _ = run("compare", f("base.json"), f("new.json"))
    assert rc == 0 and "gate" not in out
    rc, out, _ = run("compare", f("base.json"), f("new.json"), "--fail-above=15%")
    assert rc == 0 and "gate: passed" in out


@case("--noise 0.5 and no between-run term make the +1% case slower; --fail-above 0.5 gates it")
def _():
    rc, out, _ = run("compare", f("base.json"), f("new.json"), "--noise", "0.5",
                     "--fail-above", "0.5", "--pattern", "synth/shift1", "--run-sigma", "0")
    assert rc == 1
    assert "slower" in row(out, "synth/shift1")
    assert "synth/shift10" not in out


@case("--pattern limits the gate to matching cases")
def _():
    rc, out, _ = run("compare", f("base.json"), f("new.json"), "--fail-above", "5",
                     "--pattern", "synth/same", "--pattern", "*/placement:core")
    assert rc == 0, out
    assert "synth/same" in out and "synth/pair" in out and "oversub" not in out


@case("without raw samples the rounds decide; without rounds no verdict, and no gate")
def _():
    rc, out, _ = run("compare", f("base_noraw.json"), f("new_noraw.json"), "--fail-above", "5")
    assert rc == 1
    r = row(out, "synth/shift10")
    assert "rounds      slower  FAIL" in r, r
    # A dpk-bench from before rounds: one run a side judges nothing, and says why.
    rc, out, _ = run("compare", f("old_base.json"), f("old_new.json"), "--fail-above", "5")
    assert rc == 0, out
    assert "one run     no verdict" in row(out, "synth/shift10"), row(out, "synth/shift10")
    assert "not judged: one run a side without rounds" in out, out
    assert "no verdict: one run a side without rounds or repeats" in out, out


@case("--json writes the comparison, with the exit status")
def _():
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "cmp.json")
        rc, _, _ = run("compare", f("base.json"), f("new.json"), "--fail-above", "5", "--json", j)
        assert rc == 1
        doc = json.load(open(j))
        assert doc["schema"] == "dpkit-bench-compare" and doc["schema_version"] == 1
        assert doc["exit_status"] == 1 and doc["gate_failures"] == 1
        v = {c["case"]: c["verdict"] for c in doc["cases"] if c["placement"] == "single"}
        assert v == {"same": "within noise", "shift1": "within noise", "shift10": "slower",
                     "faster10": "faster", "noisy": "within noise"}, v
        c = [c for c in doc["cases"] if c["case"] == "shift10"][0]
        assert c["method"] == "round-medians" and c["measured_in"] == "cycles", c
        assert c["base"]["rounds"] == 40 and c["p_value"] < 1e-6, c
        m = [c for c in doc["cases"] if c["case"] == "moved"][0]
        assert m["method"] == "placement-changed" and m["verdict"] == "no verdict", m
        assert c["ratio_ci95_lo"] < c["ratio"] < c["ratio_ci95_hi"]


@case("environment differences warn on stderr and in the output")
def _():
    rc, out, err = run("compare", f("base.json"), f("env_other.json"))
    assert rc == 0
    for what in ["CPU model", "TSC frequency", "compiler flags", "build type", "lcores"]:
        assert what in err, (what, err)
        assert what in out, (what, out)


@case("libraries timed: a difference warns, a file without the item does not")
def _():
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, libs in (("base.json", "DPDK 22.11.11, ck 0.7.1"),
                           ("new.json", "DPDK 23.11.0, ck 0.7.1")):
            doc = json.load(open(f(name)))
            doc["environment"].append({"key": "libraries", "label": "Libraries timed",
                                       "value": libs, "verdict": "info", "detail": ""})
            paths.append(os.path.join(d, name))
            json.dump(doc, open(paths[-1], "w"))
        rc, out, err = run("compare", *paths)
        assert rc == 0, err
        assert 'different libraries timed: base "DPDK 22.11.11, ck 0.7.1", new "DPDK 23.11.0' \
            in err, err
        rc, out, err = run("compare", paths[0], f("new.json"))
        assert rc == 0 and "libraries" not in err, err


@case("output is reproducible (fixed bootstrap seed)")
def _():
    a = run("compare", f("base.json"), f("new.json"))[1]
    b = run("compare", f("base.json"), f("new.json"))[1]
    assert a == b


@case("bad files: one message naming the file and the problem, exit 2")
def _():
    bad = os.path.join(FIX, "bad")
    expect_bad(["compare", os.path.join(bad, "truncated.json"), f("new.json")],
               "truncated.json: line", "truncated?")
    expect_bad(["compare", f("base.json"), os.path.join(bad, "syntax.json")],
               "syntax.json: line 4, column 3: expected ',' or '}'")
    expect_bad(["compare", os.path.join(bad, "schema_name.json"), f("new.json")],
               "not a dpk-bench results file")
    expect_bad(["compare", os.path.join(bad, "schema_version.json"), f("new.json")],
               "schema_version 2 is not supported")
    expect_bad(["compare", os.path.join(bad, "gbench.json"), f("new.json")], "Google Benchmark")
    expect_bad(["compare", os.path.join(bad, "empty.json"), f("new.json")], "empty")
    expect_bad(["compare", os.path.join(bad, "not_object.json"), f("new.json")],
               "expected an object")
    expect_bad(["compare", os.path.join(bad, "bad_field.json"), f("new.json")],
               "results[2].ticks.p50: expected a number")
    expect_bad(["compare", os.path.join(bad, "missing_case.json"), f("new.json")],
               "results[1].case: missing")
    expect_bad(["compare", os.path.join(bad, "binary.json"), f("new.json")], "byte 0x7f")
    expect_bad(["compare", os.path.join(bad, "nope.json"), f("new.json")],
               "nope.json: cannot open: No such file")
    expect_bad(["compare", bad, f("new.json")], "directory")
    expect_bad(["compare", f("base.json"), f("disjoint.json")], "no case in common")


@case("bad options: one message, exit 2")
def _():
    expect_bad(["compare"], "needs two results files")
    expect_bad(["compare", f("base.json")], "needs a second results file")
    expect_bad(["compare", f("base.json"), f("new.json"), f("new.json")], "too many files")
    expect_bad(["compare", f("base.json"), f("new.json"), "--noise", "abc"], "--noise: 'abc'")
    expect_bad(["compare", f("base.json"), f("new.json"), "--noise", "-1"], "--noise")
    expect_bad(["compare", f("base.json"), f("new.json"), "--noise", "150"], "--noise")
    expect_bad(["compare", f("base.json"), f("new.json"), "--fail-above", "5x"],
               "--fail-above: '5x'")
    expect_bad(["compare", f("base.json"), f("new.json"), "--fail-above"],
               "--fail-above needs a value")
    expect_bad(["compare", f("base.json"), f("new.json"), "--fial-above", "5"],
               "unknown option '--fial-above'", "--fail-above")
    expect_bad(["compare", f("base.json"), f("new.json"), "--pattern", "nosuch*"],
               "'nosuch*' selects no case")
    expect_bad(["compare", f("base.json"), f("new.json"), "--json", "/nonexistent-dir/x.json"],
               "cannot write --json")
    expect_bad(["compare", f("base.json"), f("new.json"), "--help=yes"], "takes no value")


@case("40 mutated files (fixed seed): exit 0, 1 or 2, never a crash")
def _():
    import random
    rng = random.Random(20261130)
    data = open(f("base_noraw.json"), "rb").read()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.json")
        for i in range(40):
            b = bytearray(data)
            kind = i % 4
            if kind == 0:  # truncate anywhere
                b = b[:rng.randrange(len(b))]
            elif kind == 1:  # flip bytes
                for _ in range(8):
                    b[rng.randrange(len(b))] = rng.randrange(256)
            elif kind == 2:  # delete a span
                a = rng.randrange(len(b))
                del b[a:a + rng.randrange(1, 200)]
            else:  # replace a number by a string, null or a huge value
                txt = b.decode()
                spots = [m for m in range(len(txt) - 1) if txt[m] == ":" and txt[m + 2].isdigit()]
                m = rng.choice(spots)
                txt = txt[:m + 2] + rng.choice(['"x"', "null", "1e308", "-1", "[]"]) + txt[m + 2:]
                b = bytearray(txt.encode())
            open(path, "wb").write(bytes(b))
            rc, _, err = run("compare", path, f("new_noraw.json"))
            assert rc in (0, 1, 2), (i, rc, err)
            if rc == 2:
                assert len(err.strip().splitlines()) == 1, (i, err)


@case("compare --help and the main usage mention the commands")
def _():
    rc, out, _ = run("compare", "--help")
    assert rc == 0 and "--fail-above" in out and "exit status" in out
    rc, out, _ = run("--help")
    assert rc == 0 and "compare" in out and "report" in out and "--format" in out


@case("report: writes a page; bad input exits 2")
def _():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.html")
        rc, _, err = run("report", f("base.json"), f("new.json"), "-o", out)
        assert rc == 0, err
        page = open(out).read()
        assert page.startswith("<!DOCTYPE html>") and "</html>" in page
        for needle in ["Comparison", "Environment", "Suite synth", "<svg", "within noise",
                       "slower"]:
            assert needle in page, needle
        assert "http://" not in page and "https://" not in page, "the page loads something"
        rc, _, _ = run("report", f("base_noraw.json"), "-o", out)
        assert rc == 0
        assert "raw samples were not recorded" in open(out).read()
        rc, _, err = run("report", f("base.json"), f("disjoint.json"), "-o", out)
        assert rc == 0 and "no comparison" in err
    expect_bad(["report", f("base.json")], "needs -o FILE")
    expect_bad(["report", "-o", "x.html"], "needs a results file")
    expect_bad(["report", f("base.json"), f("new.json"), f("new.json"), "-o", "x.html"],
               "too many files")
    expect_bad(["report", os.path.join(FIX, "bad", "truncated.json"), "-o", "/tmp/x.html"],
               "truncated")
    expect_bad(["report", f("base.json"), "-o", "/nonexistent-dir/r.html"], "cannot write")
    expect_bad(["report", f("base.json"), "-o", "/tmp/x.html", "--pattern", "zz*"],
               "selects no case")


@case("compare --unit cycles: ratios of the medians in core cycles; others skipped")
def _():
    with tempfile.TemporaryDirectory() as d:
        a = with_cycles(d, "a.json", "base.json", lambda cid, t: 100.0)
        b = with_cycles(d, "b.json", "new.json", lambda cid, t: 100.0)
        # In ticks (no between-run term) the known shifts fail a 5% gate; in cycles nothing
        # moved.
        rc, out, _ = run("compare", a, b, "--fail-above", "5", "--unit", "ticks",
                         "--run-sigma", "0")
        assert rc == 1, out
        j = os.path.join(d, "c.json")
        rc, out, err = run("compare", a, b, "--fail-above", "5", "--unit", "cycles", "--json", j)
        assert rc == 0, (rc, out, err)
        doc = json.load(open(j))
        assert doc["options"]["unit"] == "cycles", doc["options"]
        assert doc["cases"] and all(c["measured_in"] == "cycles" and
                                    abs(c["base"]["p50"] - 100.0) < 0.5 and
                                    abs(c["ratio"] - 1.0) < 1e-9
                                    for c in doc["cases"]), doc["cases"]
        assert all(c["placement"] == "single" for c in doc["cases"]), doc["cases"]
        assert any("no figures in cycles" in s["reason"] for s in doc["not_compared"]), \
            doc["not_compared"]
        # The rounds decide, in cycles.
        assert all(c["method"] == "round-medians" for c in doc["cases"]), doc["cases"]
        # 5% slower in every round is found and gated.
        a = with_cycles(d, "a.json", "base.json", lambda cid, t: 100.0, raw=True)
        b = with_cycles(d, "b.json", "new.json", lambda cid, t: 105.0, raw=True)
        rc, out, _ = run("compare", a, b, "--unit", "cycles", "--fail-above", "2", "--json", j)
        assert rc == 1, out
        doc = json.load(open(j))
        assert all(c["base"]["raw"] and c["new"]["raw"] and c["method"] == "round-medians"
                   and c["verdict"] == "slower" and abs(c["ratio"] - 1.05) < 1e-6
                   for c in doc["cases"]), doc["cases"]
        expect_bad(["compare", a, b, "--unit", "Hz"], "--unit: 'Hz'")
        # Three repeats a side: judged on the repeats' medians in cycles. A result without
        # cycles in one repeat leaves its case out, naming the side and the repeat.
        one = "synth/same/n:32/placement:single"
        a = with_cycles(d, "a.json", "base.json", lambda cid, t: 100.0, repeats=3)
        b = with_cycles(d, "b.json", "new.json", lambda cid, t: 100.0, repeats=3,
                        drop=(one, 2))
        rc, out, err = run("compare", a, b, "--unit", "cycles", "--json", j)
        assert rc == 0, (rc, out, err)
        doc = json.load(open(j))
        assert doc["cases"] and all(c["method"] == "repeat-medians" and c["base"]["repeats"] == 3
                                    for c in doc["cases"]), doc["cases"]
        assert one not in [c["id"] for c in doc["cases"]], doc["cases"]
        assert {"id": one, "reason": "no figures in cycles in new (repeat 3)"} in \
            doc["not_compared"], doc["not_compared"]
        # Files whose clock checks read the multiply differently: figures in cycles carry
        # the ratio, and compare says so in cycles only; 2% apart or less is one core.
        def mul(path, m):
            doc = json.load(open(path))
            doc["clock"]["mul_cycles"] = m
            json.dump(doc, open(path, "w"))
        a = with_cycles(d, "a.json", "base.json", lambda cid, t: 100.0)
        b = with_cycles(d, "b.json", "new.json", lambda cid, t: 100.0)
        mul(a, 3.0)
        mul(b, 3.15)
        rc, out, err = run("compare", a, b, "--unit", "cycles")
        assert rc == 0, (rc, out, err)
        assert "core-clock multiply differs: base 3.00 cycles, new 3.15 (x1.050)" in out, out
        rc, out, _ = run("compare", a, b)
        assert "core-clock multiply" not in out, out
        mul(b, 3.05)
        rc, out, _ = run("compare", a, b, "--unit", "cycles")
        assert rc == 0 and "core-clock multiply" not in out, out
        # Nothing to compare in cycles is an error, never a passed gate.
        expect_bad(["compare", f("old_base.json"), f("old_new.json"), "--unit", "cycles",
                    "--fail-above", "5"], "no case has figures in cycles in both files")
        # A malformed cycles block, core clock or raw sample is named.
        for field, value, needle in [("cycles", "x", ".cycles: expected an object"),
                                     ("core_mhz", "x", ".core_mhz: expected a number"),
                                     ("raw_cycles", [1.0, "x"], ".raw_cycles[1]: expected a number")]:
            doc = json.load(open(a))
            r = next(r for r in doc["results"] if "cycles" in r)
            r[field] = value
            bad = os.path.join(d, "bad.json")
            json.dump(doc, open(bad, "w"))
            expect_bad(["compare", bad, b, "--unit", "cycles"], "bad.json", needle)


@case("spread and compare: a file whose speed witness read slow is named")
def _():
    # Files from before the witness: nothing said about it.
    rc, out, _ = run("spread", f("base.json"), f("new.json"), "--limit", "999")
    assert rc == 0 and "speed witness" not in out, out
    with tempfile.TemporaryDirectory() as d:
        a = with_witness(d, "a.json", "base.json", 10.0)
        b = with_witness(d, "b.json", "new.json", 16.0)
        c = with_witness(d, "c.json", "new.json", 11.5)
        rc, out, err = run("spread", a, b, "--limit", "999")
        assert rc == 0, (rc, err)
        assert "reference reading of each file (ticks): 10.00 16.00" in out, out
        assert f"{b}: witness x1.60 of the fastest file's, and its figures" in out, out
        assert a + ":" not in out, out
        # 15% apart: within the witness's limit, no warning.
        rc, out, _ = run("spread", a, c, "--limit", "999")
        assert rc == 0 and "10.00 11.50" in out and "slower" not in out, out
        rc, out, err = run("compare", a, b)
        assert "speed witness differs: reference reading base 10.00 ticks, new 16.00 (x1.60)" \
            in out + err, out + err
        assert "slower during the new run" in out + err, out + err
        rc, out, err = run("compare", b, a)
        assert "slower during the base run" in out + err, out + err
        rc, out, err = run("compare", a, c)
        assert "speed witness" not in out + err, out + err
        # Judged the same way both ways round: 12.6 against 10 is over the limit.
        e = with_witness(d, "e.json", "base.json", 12.6)
        rc, out, err = run("compare", e, a)
        assert "new 10.00 (x0.79)" in out + err, out + err
        # Cases with no fast sample: their medians marked, the file named, compare warns.
        g = with_witness(d, "g.json", "new.json", 10.0, no_fast=["shift10"], one_repeat=True)
        h = with_witness(d, "h.json", "new.json", 10.0, one_repeat=True)
        rc, out, err = run("spread", h, g, "--limit", "999")
        assert f"{g}: 1 of the medians above come mostly from slow samples (marked !)" in out, out
        marked = [l for l in out.splitlines() if l.endswith("%") and "!" in l]
        assert len(marked) == 1 and "synth/shift10/" in marked[0], out
        assert h + ":" not in out, out
        rc, out, err = run("compare", a, g)
        assert "new: 1 case runs kept mostly samples the speed witness found slow" in out + err, \
            out + err
        # A file without witness_slow_only: no fast sample is read as the same verdict.
        old = json.load(open(g))
        for r in old["results"]:
            r.pop("witness_slow_only", None)
        g2 = os.path.join(d, "g2.json")
        json.dump(old, open(g2, "w"))
        rc, out, err = run("spread", h, g2, "--limit", "999")
        assert f"{g2}: 1 of the medians above come mostly from slow samples (marked !)" in out, out
        # A file from before the witness shows as "-".
        rc, out, _ = run("spread", a, f("new.json"), "--limit", "999")
        assert "reference reading of each file (ticks): 10.00 -" in out, out
        assert "the fastest reading" not in out, out
        # A witness with another number of untimed pairs before a timing (a file without
        # warm_pairs had one) times something else: no reading of it is compared.
        for warm in (1, None):
            w = json.load(open(b))
            if warm is None:
                del w["witness"]["warm_pairs"]
            else:
                w["witness"]["warm_pairs"] = warm
            wp = os.path.join(d, "warm.json")
            json.dump(w, open(wp, "w"))
            rc, out, err = run("spread", a, wp, "--limit", "999")
            assert "reference reading of each file (ticks): 10.00 -" in out, out
            rc, out, err = run("compare", a, wp)
            assert "speed witness differs" not in out + err, out + err
        # A file from before the reference: its fastest reading, marked, and compare says
        # the two readings are not of one kind.
        o = with_witness(d, "o.json", "new.json", 16.0, old=True)
        rc, out, _ = run("spread", a, o, "--limit", "999")
        assert "reference reading of each file (ticks): 10.00 16.00*" in out, out
        assert "* the fastest reading: the file is from before the reference" in out, out
        rc, out, err = run("compare", a, o)
        assert "speed witness differs: reading (the fastest in the file from before the " \
            "reference) base 10.00 ticks, new 16.00 (x1.60)" in out + err, out + err


@case("compare: cases measured over different numbers of code layouts are named")
def _():
    # Fixtures from before the field: one layout each side, nothing said.
    rc, out, err = run("compare", f("base.json"), f("new.json"))
    assert "code layouts" not in out + err, out + err
    with tempfile.TemporaryDirectory() as d:
        def layouts(name, src, n, only=None):
            doc = json.load(open(f(src)))
            for r in doc["results"]:
                if r["status"] == "ok" and (only is None or r["case"] == only):
                    r["code_layouts"] = n
            path = os.path.join(d, name)
            json.dump(doc, open(path, "w"))
            return path
        four = layouts("four.json", "new.json", 4)
        four_one = layouts("four_one.json", "new.json", 4, only="shift10")
        rc, out, err = run("compare", f("base.json"), four)
        assert "different numbers of code layouts (synth/" in out + err, out + err
        assert ": 1 in base, 4 in new)" in out + err, out + err
        rc, out, err = run("compare", f("base.json"), four_one)
        assert "1 case measured over different numbers of code layouts " \
            "(synth/shift10/" in out + err, out + err
        # Four a side is the same method.
        rc, out, err = run("compare", layouts("four_b.json", "base.json", 4), four)
        assert "code layouts" not in out + err, out + err


@case("compare: a store-bypass mitigation on one side only is named, its forms are not")
def _():
    with tempfile.TemporaryDirectory() as d:
        def ssb(name, value):
            doc = json.load(open(f("new.json")))
            items = [it for it in doc["environment"] if it["key"] != "ssb"]
            if value is not None:
                # As dpk-bench writes it: every mitigated form degraded, the rest ok.
                items.append({"key": "ssb", "label": "Speculative store bypass", "value": value,
                              "verdict": "degraded" if "mitigated" in value else "ok",
                              "detail": ""})
            doc["environment"] = items
            path = os.path.join(d, name)
            json.dump(doc, open(path, "w"))
            return path
        said = "speculative store bypass mitigated in one run only"
        rc, out, err = run("compare", f("base.json"), ssb("m.json", "thread force mitigated"))
        assert said + ': base "thread vulnerable", new "thread force mitigated"' in out, out
        for value in ["vulnerable", "not vulnerable", None]:
            rc, out, err = run("compare", f("base.json"), ssb("o.json", value))
            assert "store bypass" not in out + err, (value, out + err)
        rc, out, err = run("compare", ssb("a.json", "thread mitigated"),
                           ssb("b.json", "globally mitigated"))
        assert "store bypass" not in out + err, out + err


@case("inputs that are not regular files are refused at once, naming the file and why")
def _():
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "f.json")
        os.mkfifo(fifo)
        base, new = f("base.json"), f("new.json")
        out = os.path.join(d, "r.html")
        # Either side, every command that reads files; a timeout is the old hang.
        for args in (["spread", fifo, base], ["spread", base, fifo], ["compare", fifo, new],
                     ["compare", base, fifo], ["report", fifo, "-o", out],
                     ["report", base, fifo, "-o", out]):
            rc, _, err = run(*args, timeout=20)
            assert rc == 2 and f"{fifo}: cannot read: it is a FIFO" in err, (args, err)
        assert not os.path.exists(out), "a refused report wrote its page"
        expect_bad(["compare", base, "/dev/zero"],
                   "/dev/zero: cannot read: it is a character device")
        # A file past the bound is refused from its size, without being read.
        big = os.path.join(d, "big.json")
        with open(big, "wb") as fh:
            fh.truncate(1 << 30)
        import time
        t0 = time.monotonic()
        rc, _, err = run("compare", big, new, timeout=20)
        assert rc == 2 and "big.json: too large: 1024 MiB, over the 256 MiB" in err, err
        assert time.monotonic() - t0 < 10, "the large file was read"


@case("an output that names an input is refused, and the input kept")
def _():
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
        shutil.copy(f("base.json"), a)
        shutil.copy(f("new.json"), b)
        before = open(a, "rb").read()
        expect_bad(["compare", a, b, "--json", a],
                   f"--json '{a}' names the input {a}, which it would overwrite")
        expect_bad(["compare", a, b, "--json", os.path.join(d, ".", "b.json")],
                   "names the input")
        expect_bad(["report", a, "-o", a], f"-o '{a}' names the input {a}")
        expect_bad(["report", a, b, "--output", b], "names the input")
        expect_bad(["convert", a, "--to", "dpkit", "-o", a], "names the input")
        link = os.path.join(d, "link.json")
        os.symlink("a.json", link)
        expect_bad(["compare", a, b, "--json", link], "names the input")
        assert open(a, "rb").read() == before
        assert json.load(open(b))["schema"] == "dpkit-bench"


@case("compare --json -: standard output carries the comparison alone")
def _():
    p = subprocess.run([BIN, "compare", f("base.json"), f("new.json"), "--json", "-"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["schema"] == "dpkit-bench-compare"
    assert "geometric mean" in p.stderr, p.stderr


@case("--exclude leaves cases out of compare, spread and report")
def _():
    rc, out, err = run("compare", f("base.json"), f("new.json"), "--exclude", "synth/shift10",
                       "--fail-above", "5")
    assert rc == 0 and "shift10" not in out and "synth/shift1 " in out, (rc, out, err)
    rc, out, err = run("spread", f("base.json"), f("new.json"), "--exclude", "synth/shift*",
                       "--exclude", "*/placement:oversub", "--limit", "999")
    assert rc == 0 and "shift" not in out and "oversub" not in out, out
    assert "synth/pair/esize:8/n:32/placement:core" in out, out
    with tempfile.TemporaryDirectory() as d:
        page = os.path.join(d, "r.html")
        rc, _, err = run("report", f("base.json"), f("new.json"), "-o", page, "--exclude",
                         "synth/noisy")
        assert rc == 0, err
        text = open(page).read()
        assert "shift10" in text and "synth/noisy" not in text and "noisy" not in text
    expect_bad(["compare", f("base.json"), f("new.json"), "--exclude", "synth/shfit10"],
               "--exclude 'synth/shfit10' matches no case in the files (did you mean "
               "'synth/shift10'?)")
    expect_bad(["spread", f("base.json"), "--exclude", "zzz*"],
               "--exclude 'zzz*' matches no case in the files")


@case("-- ends the options of a command that reads files")
def _():
    with tempfile.TemporaryDirectory() as d:
        dash = os.path.join(d, "-base.json")
        shutil.copy(f("base.json"), dash)
        os.chdir(d)
        try:
            rc, out, err = run("compare", "--", "-base.json", f("new.json"))
            assert rc == 0 and "geometric mean" in out, err
            expect_bad(["compare", "-base.json", f("new.json")], "unknown option '-base.json'")
        finally:
            os.chdir("/")


if __name__ == "__main__":
    main()
