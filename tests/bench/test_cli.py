#!/usr/bin/env python3
"""dpk-bench's command line: bad input is refused before any case runs, with exit 2 and a
message naming the bad token; good input runs, lists and writes files.

usage: test_cli.py PATH/TO/dpk-bench
Prints TAP. Each case runs the real binary.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
results = []
# What a file held before a refused run; a refused run must leave it so.
KEPT = '{"before": "the refused run"}\n'


def kept_file(d, name):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(KEPT)
    return path


def assert_kept(path, why):
    with open(path) as f:
        assert f.read() == KEPT, f"{why} changed {path}"


def run(*args, timeout=120):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def case(name):
    def wrap(fn):
        results.append((name, fn))
        return fn
    return wrap


def expect_bad(args, *needles):
    rc, out, err = run(*args)
    assert rc == 2, f"exit {rc} for {args}, stderr: {err!r}"
    for n in needles:
        assert n in err, f"{n!r} not in stderr {err!r}"
    # nothing ran: no table on stdout
    assert "p50" not in out, f"a case ran for {args}: {out[:200]!r}"


@case("unknown option suggests a near one")
def _():
    expect_bad(["run", "--tme", "1"], "unknown option '--tme'", "--time")


@case("unknown pattern suggests a near name")
def _():
    expect_bad(["run", "rnig"], "no case matches 'rnig'", "ring")


@case("a mistyped command word is named")
def _():
    expect_bad(["lsit"], "no case matches 'lsit'; did you mean the command 'list'?")
    expect_bad(["comapre", "a.json", "b.json"],
               "no case matches 'comapre'; did you mean the command 'compare'?")
    # The first word explains an option of another command, too.
    expect_bad(["comapre", "a.json", "b.json", "--noise", "5"],
               "did you mean the command 'compare'?")
    # Two letters swapped, as in "lsit", are one slip: 'evn' is env's, not run's.
    expect_bad(["evn", "--lcores", "0"], "did you mean the command 'env'?")
    # Nearer a suite than a command, a glob, or after an explicit command: a pattern's
    # suggestion.
    expect_bad(["rnig"], "no case matches 'rnig' (did you mean 'ring'?)")
    for args in (["r?n"], ["run", "lsit"]):
        expect_bad(args, f"no case matches '{args[-1]}'")
        _, _, err = run(*args)
        assert "command" not in err, err


@case("a first word that is a pattern still runs")
def _():
    # 'ring' is two edits from the command 'run', near enough for a slip, but names a suite.
    rc, out, err = run("ring", "--placement", "single", "--time", "10ms", "--warmup", "2ms",
                       "--quiet")
    assert rc == 0, err
    assert "spsc_single" in out and "p50" in out, out[:300]


@case("pattern with no near name points at list")
def _():
    expect_bad(["run", "zzzzzzzzzzzzzzzz"], "no case matches", "dpk-bench list")
    # A word nothing like a name gets the list, not a guess; a slip still gets the name.
    expect_bad(["run", "xyz"], "no case matches 'xyz' (see 'dpk-bench list')")
    expect_bad(["run", "ring/spsc_singel"],
               "no case matches 'ring/spsc_singel' (did you mean 'ring/spsc_single'?)")
    expect_bad(["run", "packt"], "(did you mean 'packet'?)")


@case("bad --time values are refused")
def _():
    for bad in ["abc", "0", "-1", "1h", "5000", ""]:
        expect_bad(["run", "floor", "--time", bad], "--time")


@case("--time and --warmup have bounds a run can honour, and the message says them")
def _():
    for bad in ["0", "1e-9", "0.5ms", "61", "3600"]:
        expect_bad(["run", "floor", "--time", bad],
                   f"--time: '{bad}' is not a duration from 1 ms to 60 s per case")
    for bad in ["-1", "11", "3600", "x"]:
        expect_bad(["run", "floor", "--warmup", bad],
                   f"--warmup: '{bad}' is not a duration from 0 (no warm-up) to 10 s per case")
    _, _, err = run("run", "floor", "--time", "0")
    assert "between 0 and" not in err, err
    # No warm-up, and the shortest and longest bounds themselves, are taken.
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "r.json")
        rc, out, err = run("run", "floor/tsc_read", "--time", "1ms", "--warmup", "0",
                           "--json", j, "--quiet")
        assert rc == 0, err
        doc = json.load(open(j))
        assert doc["options"]["warmup_s"] == 0 and doc["options"]["time_s"] == 0.001
        assert doc["results"][0]["status"] == "ok", doc["results"][0]
    rc, out, _ = run("run", "--help")
    assert "from 1 ms to 60 s" in out and "from 0 (none) to 10 s" in out, out


@case("a long lcore spec's reason comes through whole")
def _():
    spec = ",".join(["0"] * 200)
    expect_bad(["env", "--lcores", spec], "lcore 0 given twice", "...")
    expect_bad(["run", "floor", "--lcores", "0@" + "9" * 300], "is not below")
    rc, _, err = run("env", "--lcores", spec)
    assert len(err) < 300, err


@case("an option given twice is refused, naming it")
def _():
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
        expect_bad(["run", "floor", "--json", a, "--json", b],
                   f"--json given twice ('{a}' and '{b}'); give it once")
        assert not os.listdir(d), os.listdir(d)
    expect_bad(["run", "floor", "--time", "1s", "--time=2s"], "--time given twice")
    expect_bad(["run", "floor", "--raw", "--raw"], "--raw given twice")
    expect_bad(["env", "--placement", "single", "--placement", "core"],
               "--placement given twice")


@case("-- ends the options: what follows is a pattern or a file")
def _():
    rc, out, err = run("run", "--", "--csv")
    assert rc == 2 and "no case matches '--csv'" in err, err
    assert "did you mean" not in err, err
    rc, out, err = run("list", "--", "floor")
    assert rc == 0 and "tsc_read" in out, err
    expect_bad(["list", "--", "--help"], "no case matches '--help'")


@case("--json - and --csv -: standard output carries the file alone")
def _():
    p = subprocess.run([BIN, "run", "floor/tsc_read", "--time", "10ms", "--json", "-"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)  # as `| jq .` would read it
    assert doc["schema"] == "dpkit-bench" and doc["results"][0]["case"] == "tsc_read"
    assert "environment" in p.stderr and "tsc_read" in p.stderr and "case runs in" in p.stderr
    p = subprocess.run([BIN, "run", "floor/tsc_read", "--time", "10ms", "--quiet", "--csv", "-",
                        "--format", "gbench", "--json", "/dev/null"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("row,suite,case,") and lines[1].startswith("case,floor,tsc_read"), \
        p.stdout
    assert "tsc_read" in p.stderr, p.stderr
    # Through a pipe, /dev/stdout is the same standard output.
    p = subprocess.run([BIN, "run", "floor/tsc_read", "--time", "10ms", "--json", "/dev/stdout"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and json.loads(p.stdout)["schema"] == "dpkit-bench", p.stdout[:200]
    expect_bad(["run", "floor", "--json", "-", "--csv", "-"], "both name standard output")
    expect_bad(["run", "floor", "--json", "-", "--csv", "/dev/stdout"],
               "both name standard output")


@case("--exclude leaves cases out of run and list; one that selects nothing is refused")
def _():
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "r.json")
        rc, out, err = run("run", "floor", "--exclude", "floor/pingpong", "--exclude",
                           "*tsc_pair", "--time", "10ms", "--warmup", "2ms", "--json", j,
                           "--quiet")
        assert rc == 0, err
        cases = {r["case"] for r in json.load(open(j))["results"]}
        assert "tsc_read" in cases and "pingpong" not in cases and "tsc_pair" not in cases, cases
    rc, out, err = run("list", "ring", "--exclude", "ring/*burst*")
    assert rc == 0 and "spsc_single" in out and "burst" not in out, out
    rc, out, err = run("list", "--exclude", "ring", "--exclude", "floor")
    assert rc == 0 and "ring:" not in out and "floor:" not in out and "pool" in out, err
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "ab.json")
        rc, out, err = run("ab", BIN, BIN, "floor", "--exclude", "floor/pingpong", "--exclude",
                           "floor/tsc_pair", "--time", "20ms", "--warmup", "2ms", "--json", j,
                           "--quiet")
        assert rc == 0, err
        assert [c["id"] for c in json.load(open(j))["cases"]] == \
            ["floor/tsc_read/placement:single"], open(j).read()[:300]
    expect_bad(["run", "floor", "--exclude", "rnig"],
               "--exclude 'rnig' matches no case (did you mean 'ring'?)")
    expect_bad(["list", "--exclude", "xyz"], "--exclude 'xyz' matches no case (see 'dpk-bench list')")
    expect_bad(["run", "floor", "--exclude", "floor"], "no case to run")


@case("a FIFO with no reader is refused before any case runs; with one it gets the results")
def _():
    import threading
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "out.json")
        os.mkfifo(fifo)
        # No reader: refused at once (a timeout here is the old hang at the run's end).
        rc, out, err = run("run", "floor/tsc_read", "--time", "10ms", "--json", fifo, timeout=30)
        assert rc == 2 and "a FIFO without a reader" in err and fifo in err, err
        assert "p50" not in out, out
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
        reader.start()
        # The reader blocks in open() until the run holds the write end.
        rc, out, err = run("run", "floor/tsc_read", "--time", "10ms", "--quiet", "--csv", fifo,
                           timeout=60)
        reader.join(30)
        assert rc == 0, err
        assert got and got[0].startswith("row,suite,case,"), got


@case("the progress line on a terminal shows the time elapsed and left")
def _():
    import pty
    import select
    master, slave = pty.openpty()
    p = subprocess.Popen([BIN, "run", "floor", "--time", "30ms", "--warmup", "5ms"],
                         stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        r, _, _ = select.select([master], [], [], 1.0)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            seen += data
        elif p.poll() is not None:
            break
    os.close(master)
    assert p.wait(timeout=60) == 0
    text = seen.decode(errors="replace")
    assert re.search(r"round \d+ of \d+ \(\d+:\d\d elapsed, about \d+:\d\d left\)", text), text[:400]
    assert re.search(r"floor: \d+ pair cases? on \w+, round \d+ of \d+ \(\d+:\d\d elapsed, "
                     r"about \d+:\d\d left\)", text), text[:800]
    # Not a terminal: no progress line at all.
    rc, out, err = run("run", "floor/tsc_read", "--time", "10ms")
    assert rc == 0 and "elapsed" not in err and "\r" not in err, err


@case("ab runs two builds through serve, the run options and patterns passed on to both")
def _():
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "ab.json")
        rc, out, err = run("ab", BIN, BIN, "floor/tsc_read", "--time", "20ms", "--warmup=2ms",
                           "--placement", "single", "--json", j, "--quiet", "--seed", "7")
        assert rc == 0, err
        doc = json.load(open(j))
        assert doc["schema"] == "dpkit-bench-ab", doc.keys()
        assert [c["id"] for c in doc["cases"]] == ["floor/tsc_read/placement:single"], doc["cases"]
        assert "floor/tsc_read" in out, out
        assert os.listdir(d) == ["ab.json"], os.listdir(d)
        # Each pair of processes gets --time / N: 30 ms is six 5-ms rounds, split among them.
        # --slow-limit 0 sets no round aside and adds none, so every round pairs however
        # slowly the machine (or a sanitizer) runs them.
        for n, pairs in [(1, [6]), (2, [3, 3]), (3, [2, 2, 2])]:
            rc, out, err = run("ab", BIN, BIN, "floor/tsc_read", "--time", "30ms",
                               "--warmup=2ms", "--placement", "single", "--json", j, "--quiet",
                               "--processes", str(n), "--slow-limit", "0")
            assert rc == 0, err
            doc = json.load(open(j))
            case = doc["cases"][0]
            assert doc["processes"] == n, doc["processes"]
            assert [g["pairs"] for g in case["processes"]] == pairs, case["processes"]
            assert len(case["round_ratios"]) == sum(pairs), case["round_ratios"]
            assert (f"each build ran as {n} processes" in out) == (n > 1), out
    expect_bad(["ab", BIN, BIN, "--processes", "0"], "--processes: '0' is not a count")
    expect_bad(["ab", BIN, BIN, "--processes", "9"], "--processes: '9' is not a count")
    expect_bad(["ab", BIN, BIN, "--time", "1ms"], "leaves each under 1 ms")
    expect_bad(["ab", BIN], "needs a second dpk-bench program: BASE NEW")
    expect_bad(["ab", BIN, BIN, "--repeat", "2"], "ab takes no --repeat")
    expect_bad(["ab", BIN, BIN, "--time", "0"], "--time: '0'")
    expect_bad(["ab", BIN, BIN, "--json", "-", "--html", "-"], "both name standard output")
    expect_bad(["ab", BIN, BIN, "--seed", "x"], "--seed: 'x'")
    expect_bad(["serve", "floor"], "serve: needs --json FILE")
    expect_bad(["serve", "--json", "x.json", "--interleave"], "serve takes no --interleave")


@case("every command's help comes from the tables; another command's option is named so")
def _():
    for cmd, opts in [("run", ["--time", "--exclude", "--json"]), ("list", ["--exclude"]),
                      ("env", ["--lcores", "--placement"]),
                      ("compare", ["--noise", "--fail-above", "--exclude"]),
                      ("spread", ["--limit", "--sets"]), ("report", ["-o, --output", "--title"]),
                      ("ab", ["--time", "--seed", "--html", "--fail-above"]),
                      ("serve", ["--json", "--time"]),
                      ("convert", ["--to", "-o, --output"])]:
        rc, out, _ = run(cmd, "--help")
        assert rc == 0 and out.startswith(f"usage: dpk-bench ") and "exit status: " in out, out
        for o in opts:
            assert o in out, (cmd, o, out)
        rc, out2, _ = run("help", cmd)
        assert rc == 0 and out2 == out, cmd
    rc, out, _ = run("env", "--help")
    assert "--time" not in out and "--json" not in out, out
    rc, out, _ = run("--help")
    for cmd in ["run", "list", "env", "compare", "spread", "report", "ab", "convert"]:
        assert f"\n  {cmd} " in out, cmd
    assert "serve" not in out.split("commands:")[1].split("\n\n")[0], out
    expect_bad(["compare", "a.json", "b.json", "--time", "1"],
               "compare takes no --time (see 'dpk-bench compare --help')")
    expect_bad(["report", "a.json", "--lcores", "0"], "report takes no --lcores")
    expect_bad(["env", "--noise", "2"], "env takes no --noise (env runs no case; see")
    expect_bad(["spread", "a.json", "--limt", "5"], "unknown option '--limt' (did you mean '--limit'?)")
    expect_bad(["help", "nosuch"], "no command 'nosuch'")


@case("--time without a value")
def _():
    expect_bad(["run", "floor", "--time"], "--time needs a value")


@case("bad --repeat")
def _():
    for bad in ["0", "x", "-2", "100000"]:
        expect_bad(["run", "floor", "--repeat", bad], "--repeat")


@case("bad --rounds and --slow-limit")
def _():
    for bad in ["0", "x", "-1", "1001", "", "4.5"]:
        expect_bad(["run", "floor", "--rounds", bad], f"--rounds: '{bad}'")
    for bad in ["x", "-5", "5x", "", "nan", "2000", "5%%", "%"]:
        expect_bad(["run", "floor", "--slow-limit", bad], f"--slow-limit: '{bad}'")


@case("--rounds and --slow-limit reach the results")
def _():
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "r.json")
        rc, _, err = run("run", "floor/tsc_read", "floor/tsc_pair", "--time", "40ms",
                         "--warmup", "4ms", "--rounds", "8", "--slow-limit", "0",
                         "--json", j, "--quiet")
        assert rc == 0, err
        doc = json.load(open(j))
        assert doc["options"]["rounds"] == 8 and doc["options"]["slow_limit"] == 0
        for r in doc["results"]:
            assert r["status"] == "ok" and r["rejected"]["slow"] == 0, r
        # The witness was timed next to every sample of the 2 x 8 slices, and nothing was
        # set aside for it; no round was added.
        w = doc["witness"]
        assert w["rounds"] == 8 and w["extra_rounds"] == 0 and w["set_aside_samples"] == 0, w
        assert w["samples"] == sum(r["samples"] for r in doc["results"]) > 0, w
        assert w["readings"] >= 16, w
        for r in doc["results"]:
            assert r["witness_slices"] == 8 and 0 <= r["witness_fast_samples"] <= r["samples"], r
        rc, _, err = run("run", "floor/tsc_read", "--time", "40ms", "--warmup", "4ms",
                         "--rounds", "8", "--slow-limit", "2.5%", "--json", j, "--quiet")
        assert rc == 0, err
        doc = json.load(open(j))
        assert abs(doc["options"]["slow_limit"] - 0.025) < 1e-12
        r = doc["results"][0]
        assert r["kept"] + sum(r["rejected"].values()) == r["samples"]


@case("the plan bounds the run time, extra rounds included")
def _():
    rc, out, err = run("run", "floor/tsc_read", "floor/tsc_pair", "--time", "20ms",
                       "--warmup", "5ms")
    assert rc == 0, err
    # Two single-lcore cases of 20 ms with 5 ms of warm-up, which a single-lcore case takes
    # twice (in its first slice, and shared out over the slices): 0.06 s; extra rounds
    # repeat the slices and their shares, 0.05 s.
    assert "2 case runs x 1: 0.06 s of warm-up and measurement, up to 0.05 s more if slow " \
        "phases" in out, out
    # The reference: in so short a run the fastest of its readings (under a thousand), or
    # the clock check's when the host was slow all through the run's 40 ms.
    assert re.search(r"speed witness: reference [0-9.]+ ticks \((the fastest of [0-9]+ "
                     r"readings|1 in 1000 from the fastest of [0-9]+ readings|the clock "
                     r"check's fastest reading: the run's own, from [0-9]+ readings, was over "
                     r"\+25% of it)\), fastest [0-9.]+, median", out), out
    rc, out, err = run("run", "floor/tsc_read", "--time", "20ms", "--warmup", "10ms",
                       "--slow-limit", "0")
    assert rc == 0, err
    assert "1 case runs x 1: 0.04 s of warm-up and measurement (set-ups" in out, out
    assert "up to" not in out, out


@case("bad --placement names the token")
def _():
    expect_bad(["run", "floor", "--placement", "single,smtt"], "unknown placement 'smtt'")


@case("--lcores the machine cannot satisfy")
def _():
    expect_bad(["run", "floor", "--lcores", "0@4000"], "--lcores")
    expect_bad(["run", "floor", "--lcores", "0-x"], "--lcores", "x")
    expect_bad(["run", "floor", "--lcores", "0,0"], "--lcores")


@case("unwritable --json and --csv paths")
def _():
    expect_bad(["run", "floor", "--json", "/nonexistent-dir/x.json"], "cannot write --json",
               "/nonexistent-dir/x.json")
    expect_bad(["run", "floor", "--csv", "/nonexistent-dir/x.csv"], "cannot write --csv")
    with tempfile.TemporaryDirectory() as d:
        expect_bad(["run", "floor", "--json", d], "cannot write --json", d)
        # The other output is checked, not opened: it keeps what it held.
        j = kept_file(d, "kept.json")
        expect_bad(["run", "floor", "--json", j, "--csv", "/nonexistent-dir/x.csv"],
                   "cannot write --csv")
        assert_kept(j, "a refused run")


@case("env refuses the options only a run uses and touches no file")
def _():
    with tempfile.TemporaryDirectory() as d:
        new, old = os.path.join(d, "e.json"), kept_file(d, "old.json")
        expect_bad(["env", "--json", new], "env takes no --json (env runs no case", "--json")
        assert not os.path.exists(new), "env --json created a file"
        expect_bad(["env", "--json", old], "--json")
        assert_kept(old, "env --json")
        expect_bad(["env", "--csv", new], "--csv")
        assert not os.path.exists(new), "env --csv created a file"
        for args in (["--raw"], ["--time", "1s"], ["--repeat", "2"], ["--quiet"]):
            expect_bad(["env", *args], args[0])
    # What env does use still works.
    rc, out, err = run("env", "--placement", "single")
    assert rc == 0, err
    assert "environment" in out


@case("--json and --csv may not name one file")
def _():
    with tempfile.TemporaryDirectory() as d:
        new = os.path.join(d, "out")
        expect_bad(["run", "floor", "--json", new, "--csv", new], "name the same file")
        assert not os.path.exists(new), "a refused run created its output"
        old = kept_file(d, "old.json")
        expect_bad(["run", "floor", "--json", old, "--csv", os.path.join(d, ".", "old.json")],
                   "name the same file")
        assert_kept(old, "a refused run")
        # A new file by two names, one of them through "./".
        expect_bad(["run", "floor", "--json", new, "--csv", os.path.join(d, ".", "out")],
                   "name the same file")
        assert not os.path.exists(new), "a refused run created its output"
    # Devices are not files one output would overwrite.
    rc, out, err = run("run", "floor/tsc_read", "--time", "10ms", "--quiet", "--json",
                       "/dev/null", "--csv", "/dev/null")
    assert rc == 0, err


@case("an interrupted run leaves the previous results as they were")
def _():
    import signal
    with tempfile.TemporaryDirectory() as d:
        old, csv = kept_file(d, "old.json"), kept_file(d, "old.csv")
        p = subprocess.Popen([BIN, "run", "ring", "--placement", "single", "--json", old,
                              "--csv", csv],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        # Interrupt it once the cases have begun: the ring suite's header is out.
        for line in p.stdout:
            if line.startswith("ring:"):
                break
        assert p.poll() is None, "the run ended before it could be interrupted"
        p.send_signal(signal.SIGTERM)
        p.stdout.close()
        assert p.wait(timeout=60) == -signal.SIGTERM, p.returncode
        assert_kept(old, "an interrupted run")
        assert_kept(csv, "an interrupted run")
        assert sorted(os.listdir(d)) == ["old.csv", "old.json"], os.listdir(d)


@case("outputs are written in place: links followed, modes kept, stdout appended to")
def _():
    with tempfile.TemporaryDirectory() as d:
        target = kept_file(d, "target.json")
        os.chmod(target, 0o640)
        link = os.path.join(d, "link.json")
        os.symlink("target.json", link)
        new = os.path.join(d, "new.csv")
        dangling = os.path.join(d, "next.json")
        os.symlink("later.json", dangling)
        old_mask = os.umask(0o027)
        try:
            rc, out, err = run("run", "floor/tsc_read", "--time", "10ms", "--quiet",
                               "--json", link, "--csv", new)
            assert rc == 0, err
            rc, out, err = run("run", "floor/tsc_read", "--time", "10ms", "--quiet",
                               "--json", dangling)
            assert rc == 0, err
        finally:
            os.umask(old_mask)
        assert os.path.islink(link), "the link was replaced by a file"
        with open(target) as f:
            assert json.load(f)["schema"] == "dpkit-bench"
        assert os.stat(target).st_mode & 0o777 == 0o640, oct(os.stat(target).st_mode)
        assert os.stat(new).st_mode & 0o777 == 0o640, oct(os.stat(new).st_mode)
        assert os.path.islink(dangling), "the dangling link was replaced by a file"
        with open(os.path.join(d, "later.json")) as f:
            assert json.load(f)["schema"] == "dpkit-bench"
        # --json /dev/stdout with stdout sent to a file: what the file held, then the JSON
        # alone; the table goes to stderr.
        log = os.path.join(d, "log")
        with open(log, "w") as f:
            f.write("before\n")
        with open(log, "a") as f:
            p = subprocess.run([BIN, "run", "floor/tsc_read", "--time", "10ms", "--json",
                                "/dev/stdout"], stdout=f, stderr=subprocess.PIPE, text=True,
                               timeout=120)
        assert p.returncode == 0, p.stderr
        assert "tsc_read" in p.stderr and "p50" in p.stderr, p.stderr[:300]
        with open(log) as f:
            text = f.read()
        assert text.startswith("before\n"), text[:100]
        assert json.loads(text[len("before\n"):])["schema"] == "dpkit-bench", text[:300]
        # A path that names the file stdout is redirected to is stdout too.
        with open(log, "w") as f:
            p = subprocess.run([BIN, "run", "floor/tsc_read", "--time", "10ms", "--csv", log],
                               stdout=f, stderr=subprocess.PIPE, text=True, timeout=120)
        assert p.returncode == 0 and "tsc_read" in p.stderr, p.stderr
        with open(log) as f:
            assert f.read().startswith("row,suite,case,")


@case("list refuses options and touches no file")
def _():
    with tempfile.TemporaryDirectory() as d:
        new = os.path.join(d, "l.json")
        expect_bad(["list", "--json", new], "list takes no --json (list runs no case", "--json")
        assert not os.path.exists(new), "list --json created a file"
        for args in (["--time", "1s"], ["--placement", "core"], ["--quiet"]):
            expect_bad(["list", "ring", *args], args[0])
    rc, out, err = run("list", "ring")
    assert rc == 0 and "spsc_single" in out, err


@case("an empty plan changes no file")
def _():
    with tempfile.TemporaryDirectory() as d:
        j, c = kept_file(d, "r.json"), os.path.join(d, "r.csv")
        # A single-lcore case on a pair placement selects nothing to run.
        expect_bad(["run", "floor/tsc_read", "--placement", "smt", "--json", j, "--csv", c],
                   "no case to run on the chosen placements")
        assert_kept(j, "an empty plan")
        assert not os.path.exists(c), "an empty plan created the --csv file"


@case("flag given a value")
def _():
    expect_bad(["run", "floor", "--raw=yes"], "--raw takes no value")


@case("help and version exit 0")
def _():
    rc, out, _ = run("--help")
    assert rc == 0 and "usage: dpk-bench" in out
    rc, out, _ = run("--version")
    assert rc == 0 and out.startswith("dpk-bench ")


@case("list shows suites and units, and filters")
def _():
    rc, out, _ = run("list")
    assert rc == 0
    assert "floor" in out and "ring" in out and "per element" in out
    rc, out, _ = run("list", "ring/spsc_single")
    assert rc == 0 and "spsc_single" in out and "pingpong" not in out


@case("env prints verdicts")
def _():
    rc, out, _ = run("env")
    assert rc == 0, out
    for word in ["environment", "clock", "counter", "lcores"]:
        assert word in out, word
    assert any(v in out for v in ["ok", "degraded", "unknown"])


@case("a run writes JSON and CSV that parse")
def _():
    with tempfile.TemporaryDirectory() as d:
        j, c = os.path.join(d, "r.json"), os.path.join(d, "r.csv")
        rc, out, err = run("run", "floor/tsc_read", "--time", "20ms", "--warmup", "5ms",
                           "--json", j, "--csv", c, "--raw", "--quiet")
        assert rc == 0, err
        doc = json.load(open(j))
        assert doc["schema"] == "dpkit-bench" and doc["schema_version"] == 1
        r = doc["results"][0]
        assert r["suite"] == "floor" and r["case"] == "tsc_read" and r["status"] == "ok"
        assert len(r["raw_ticks"]) == r["kept"] > 0
        lines = open(c).read().splitlines()
        head = lines[0].split(",")
        assert head[0] == "row" and "p50_ticks" in head
        assert lines[1].startswith("case,floor,tsc_read,")
        samples = [l for l in lines if l.startswith("sample,")]
        assert len(samples) == r["kept"]
        assert all(len(l.split(",")) == len(head) for l in lines[:3])


@case("the wide table's rejected samples are the JSON's, reason by reason")
def _():
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "r.json")
        rc, out, err = run("run", "floor/tsc_read", "floor/tsc_pair", "--time", "20ms",
                           "--warmup", "5ms", "--json", j, "--quiet", "--wide")
        assert rc == 0, err
        doc = json.load(open(j))
    tail = re.compile(r"  (\d+)(?: \((\d+) rejected: ([^)]*)\))?"
                      r"(?: \[too few samples at full speed\])?$")
    rows = {l.split()[0]: l for l in out.splitlines() if l.startswith("  tsc_")}
    for r in doc["results"]:
        m = tail.search(rows[r["case"]])
        assert m, rows[r["case"]]
        assert int(m[1]) == r["kept"], (m[0], r["kept"])
        listed = [x.split(" ") for x in m[3].split(", ")] if m[3] else []
        # Only the reasons that took any, in the JSON's order, which is the CSV's.
        want = [[str(n), k] for k, n in r["rejected"].items() if n]
        assert listed == want, (m[0], r["rejected"])
        assert int(m[2] or 0) == sum(r["rejected"].values()), m[0]


@case("the table fits 160 columns; its samples column is the JSON's kept of taken")
def _():
    with tempfile.TemporaryDirectory() as d:
        j = os.path.join(d, "r.json")
        rc, out, err = run("run", "floor", "ring/spsc_bulk", "ring/mpmc_pair_bulk",
                           "service/app_iter_stats_1in128", "--time", "10ms", "--warmup",
                           "2ms", "--json", j)
        assert rc == 0, err
        doc = json.load(open(j))
    wide = [l for l in out.splitlines() if len(l) > 160]
    assert not wide, wide
    tail = re.compile(r"  (\d+)(?: of (\d+))?$")
    for r in doc["results"]:
        if r["status"] != "ok":
            continue
        label = " ".join([r["case"]] + [f"{k}={v}" for k, v in r["params"].items()])
        row = next(l for l in out.splitlines()
                   if l.startswith("  " + label + " ") and f" {r['placement']} " in l)
        m = tail.search(row)
        assert m and int(m[1]) == r["kept"], (row, r["kept"])
        assert int(m[2] or m[1]) == r["samples"], (row, r["samples"])


@case("oversub takes the cases that ask for it, and every pair case once it is named")
def _():
    def oversub_cases(*extra):
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "r.json")
            rc, _, err = run("run", "service/app_iter_two_lcores", "floor/pingpong", "--time",
                             "10ms", "--warmup", "2ms", "--json", j, "--quiet", *extra)
            assert rc == 0, err
            doc = json.load(open(j))
        return sorted((r["case"], r["params"].get("mt_safe")) for r in doc["results"]
                      if r["placement"] == "oversub")
    assert oversub_cases() == [("app_iter_two_lcores", 0)], oversub_cases()
    assert oversub_cases("--placement", "core,oversub") == [
        ("app_iter_two_lcores", 0), ("app_iter_two_lcores", 1), ("pingpong", None)]
    assert oversub_cases("--placement", "core") == []


@case("a case label past 36 characters widens its suite's column, header and rows alike")
def _():
    rc, out, err = run("run", "service/tsc_pair", "service/app_iter_stats_1in128", "--time",
                       "20ms", "--warmup", "5ms", "--placement", "single", "--quiet")
    assert rc == 0, err
    lines = out.splitlines()
    head = next(l for l in lines if l.startswith("  case "))
    rows = [l for l in lines if l.startswith(("  tsc_pair ", "  app_iter_stats_1in128 "))]
    assert len(rows) == 5, out
    # The longest label, "app_iter_stats_1in128 mt_safe=1 work=64", is 39 characters.
    assert head.index(" place ") == 2 + 39, head
    for r in rows:
        assert r.index(" single ") == head.index(" place "), (head, r)
        assert r.index(" per call ") == head.index(" unit "), (head, r)
        # The samples column follows the row's last two spaces, as in the header.
        assert r.rindex("  ") == head.rindex("  "), (head, r)


def main():
    print("TAP version 13")
    print(f"1..{len(results)}")
    failed = 0
    for i, (name, fn) in enumerate(results, 1):
        try:
            fn()
            print(f"ok {i} - {name}")
        except Exception as e:  # noqa: BLE001 - report every failure as TAP
            failed += 1
            print(f"not ok {i} - {name}")
            for line in str(e).splitlines():
                print(f"# {line}")
    print(f"# {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
