#!/usr/bin/env python3
"""What the commands that read results files refuse, and what they let through.

A figure that would mislead (a clock of 0 Hz, a negative median), a string the reader
would cut or could not show (U+0000, invalid UTF-8, a lone surrogate) and a file over the
reader's limits are refused by compare, spread, report and convert alike: exit 2, one
message naming the file and where in it, nothing written. Control characters in names
reach neither the terminal nor the page.

usage: test_results_input.py PATH/TO/dpk-bench FIXTURE_DIR
Prints TAP.
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

from tap import case, main

BIN, FIX = sys.argv[1], os.path.abspath(sys.argv[2])
GOOD = os.path.join(FIX, "base_noraw.json")
TMP = tempfile.mkdtemp(prefix="dpk_results_input_")


def run(*args, timeout=120):
    p = subprocess.run([BIN, *args], capture_output=True, timeout=timeout)
    assert p.returncode >= 0, f"killed by signal {-p.returncode}: {args}\n{p.stderr!r}"
    return p.returncode, p.stdout, p.stderr


def base():
    with open(GOOD) as f:
        return json.load(f)


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else json.dumps(data).encode())
    return path


def commands(path):
    """Every command that reads @path, each with an output it must not write."""
    out = os.path.join(TMP, "out")
    return [
        (["compare", GOOD, path, "--json", out], out),
        (["compare", path, GOOD], None),
        (["spread", GOOD, path], None),
        (["report", path, "-o", out], out),
        (["convert", path, "--to", "csv", "-o", out], out),
        (["convert", GOOD, path, "--to", "markdown", "-o", out], out),
    ]


def expect_refused(path, *needles):
    for args, out in commands(path):
        if out and os.path.exists(out):
            os.unlink(out)
        rc, stdout, err = run(*args)
        err = err.decode("utf-8", "replace")
        assert rc == 2, f"exit {rc} for {args}: {err!r}"
        lines = [l for l in err.splitlines() if l.strip()]
        assert len(lines) == 1, f"one message expected for {args}, got {err!r}"
        for n in (os.path.basename(path),) + needles:
            assert n in err, f"{n!r} not in {err!r} ({args[0]})"
        assert not stdout, f"{args[0]} printed {stdout[:200]!r}"
        assert not out or not os.path.exists(out), f"{args[0]} wrote {out}"


def mutated(name, fn):
    d = base()
    fn(d)
    return write(name, d)


def set_clock(hz):
    return lambda d: d["clock"].__setitem__("tsc_hz", hz)


@case("a clock that is no frequency is refused (0 Hz hid the warning that clocks differ)")
def _():
    for hz, why in ((0, "0 is not a frequency"), (-1, "-1 is not a frequency"),
                    (None, "found null"), ("2.6 GHz", "found a string")):
        expect_refused(mutated("hz.json", set_clock(hz)), "clock.tsc_hz", why)


@case("negative figures are refused, with their path")
def _():
    def figure(key, sub, v):
        def fn(d):
            r = d["results"][0]
            if sub:
                r[key][sub] = v
            else:
                r[key] = v
        return fn
    for key, sub, v, path in (("ticks", "p50", -5, "results[0].ticks.p50: -5 is negative"),
                              ("ticks", "min", -1, "results[0].ticks.min"),
                              ("ns", "p50", -2.5, "results[0].ns.p50"),
                              ("cycles", "p50", -1, "results[0].cycles.p50"),
                              ("samples", None, -3, "results[0].samples"),
                              ("mops", None, -1e-3, "results[0].mops"),
                              ("core_mhz", None, -3600, "results[0].core_mhz")):
        expect_refused(mutated("fig.json", figure(key, sub, v)), path)


@case("a round's figures as run must be one per round, each positive or null")
def _():
    def whole(key, v):
        def fn(d):
            r = d["results"][0]
            r["rounds"][key] = v(len(r["rounds"]["p50"]))
        return fn
    for key, v, why in (("whole_p50", lambda n: [1.0] * (n - 1), "whole_p50: 39 rounds, but 40"),
                        ("whole_p50", lambda n: [-1.0] + [1.0] * (n - 1),
                         "whole_p50[0]: expected a positive number or null"),
                        ("whole_witness", lambda n: ["fast"] * n,
                         "whole_witness[0]: expected a positive number or null"),
                        ("whole_p50_cycles", lambda n: 3, "whole_p50_cycles")):
        expect_refused(mutated("whole.json", whole(key, v)), "results[0].rounds", why)


@case("a median of 0 is a figure: compare leaves its case out, with the reason")
def _():
    def zero(d):
        d["results"][0]["ticks"]["p50"] = 0
        d["results"][0]["cycles"]["p50"] = 0
    rc, out, err = run("compare", GOOD, mutated("zero.json", zero))
    assert rc == 0, f"exit {rc}: {err!r}"
    assert b"not compared (1)" in out and b"synth/same/n:32/placement:single: no figures" in out


def with_text(name, raw):
    """base_noraw.json with the first result's description spelled @raw (bytes)."""
    text = json.dumps(base()).encode()
    old = b'"synthetic same"'
    assert old in text
    return write(name, text.replace(old, raw, 1))


@case("U+0000, invalid UTF-8 and lone surrogates are refused where they are")
def _():
    for raw, why in ((b'"AMD\\u0000EPYC"', "\\u0000 in a string"),
                     (b'"x\xffy"', "invalid UTF-8 (byte 0xff)"),
                     (b'"\xc0\xaf"', "invalid UTF-8 (byte 0xc0)"),
                     (b'"\xed\xa0\x80"', "invalid UTF-8 (byte 0xed)"),
                     (b'"a\\ud800b"', "lone surrogate \\ud800"),
                     (b'"\\udc00"', "lone surrogate \\udc00")):
        expect_refused(with_text("text.json", raw), "line 1, column", why)


def clean(data, what):
    """@data (bytes) is UTF-8 without control characters but newlines."""
    text = data.decode("utf-8")  # raises on invalid UTF-8
    bad = [hex(ord(c)) for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]
    assert not bad, f"{what} holds control characters {bad[:5]}"
    return text


@case("control characters in names reach neither the terminal nor the page")
def _():
    d = base()
    for r in d["results"]:
        if r["case"] == "same":
            r["case"] = "same\u001b[2J\nforged line\u0085"
    d["environment"][0]["value"] = "\u001b]0;title\u0007"
    path = write("ctl.json", d)
    out = os.path.join(TMP, "ctl.out")
    for args in (["compare", GOOD, path], ["spread", path, path],
                 ["convert", path, "--to", "markdown"], ["convert", path, "--to", "csv"],
                 ["report", path, GOOD, "-o", "-"]):
        rc, stdout, err = run(*args)
        assert rc in (0, 1), f"exit {rc} for {args}: {err!r}"
        text = clean(stdout, f"{args[0]}'s output")
        clean(err, f"{args[0]}'s messages")
        assert "forged line" not in text or "\ufffd" in text, f"{args[0]}: {text[:300]!r}"
    rc, _, err = run("report", path, "-o", out, "--title", b"t\x1b[1m\xff\xfe")
    assert rc == 0, err
    with open(out, "rb") as f:
        page = clean(f.read(), "the page")
    assert "t\ufffd[1m\ufffd\ufffd" in page, "the title's bytes are not replaced"


@case("a file over the reader's limits is refused while it is read")
def _():
    # A sparse file of 1 GiB: refused from its size alone.
    big = os.path.join(TMP, "big.json")
    with open(big, "wb") as f:
        f.truncate(1 << 30)
    expect_refused(big, "too large: 1024 MiB")
    os.unlink(big)
    # An array of 2^24 + 1 numbers: refused once the commas read say so (it took 3.4 GiB
    # and 12 s for 200 MB of them to be parsed whole).
    arr = os.path.join(TMP, "array.json")
    with open(arr, "wb") as f:
        f.write(b'{"schema": "dpkit-bench", "schema_version": 1, "results": [], "x": [')
        f.write(b"1," * (1 << 24))
        f.write(b"1]}")
    expect_refused(arr, "too large: more than 16777216 values")
    os.unlink(arr)


@case("a file of more results than a file may have is refused")
def _():
    d = base()
    one = d["results"][0]
    d["results"] = []
    for i in range(4097):
        r = copy.copy(one)
        r["params"] = {"n": i}
        d["results"].append(r)
    expect_refused(write("many.json", d), "results: 4097 results, more than the 4096")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
