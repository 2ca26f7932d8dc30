#!/usr/bin/env python3
"""dpk-bench peers --json: the results file with the tables' rows under "peers".

usage: check_peers.py DPK-BENCH CHECK_RESULTS.py WORKDIR
Runs a short peers selection with --json FILE and with --json -, and checks that the file
is a results file (check_results.py, and compare reads it), that every row names two
results of the file and carries their medians, that each verdict follows from its interval
and the noise threshold, that the summary counts the rows, and that a --json path that
cannot be written is refused before any case runs. Then as two processes (--processes 2):
each row's figures and ratio the geometric means of the processes', its interval the span
of theirs, a verdict only where every process gave it; bad --processes values refused;
an interrupt stops both, writes nothing and leaves no scratch files. Prints TAP; exits 77
when the program has no peer suite built in.
"""
import glob
import json
import math
import os
import signal
import subprocess
import sys
import time

from tap import case, main as tap_main

SELECTION = ["ring/spsc_single", "ring/spsc_pair_bulk", "pool/get_put", "distributor/burst_e2e"]
SHORT = ["--time", "10ms", "--warmup", "5ms", "--quiet", "--placement", "single,core",
         "--processes", "1"]
MERGED = ["--time", "20ms", "--warmup", "5ms", "--quiet", "--placement", "single,core",
          "--processes", "2"]
VERDICTS = {"dpkit_faster", "dpkit_slower", "within_noise", "no_verdict"}
HOWS = {"paired", "as run", "unpaired"}


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=600, **kw)


def expected_verdict(row, noise):
    lo, hi = row["ci95_lo"], row["ci95_hi"]
    if lo is None or hi is None:
        return "no_verdict"
    if lo > 1 + noise:
        return "dpkit_faster"
    if hi < 1 - noise:
        return "dpkit_slower"
    return "within_noise"


def check_rows(doc):
    """Every row against the results it names; the verdicts; the summary."""
    peers = doc["peers"]
    noise = peers["noise"]
    by_key = {}
    for r in doc["results"]:
        by_key.setdefault((r["suite"], r["case"], r["placement"]), []).append(r)
    tally = dict.fromkeys(VERDICTS, 0)
    nrows = 0
    for b in peers["blocks"]:
        assert b["pairs"], f"block {b['block']} without rows"
        for row in b["pairs"]:
            where = f"{b['block']}/{row['case']} {row['params']} {row['placement']}"
            assert row["dpkit"]["suite"] == b["block"], where
            assert row["peer"]["suite"] != b["block"], where
            for side in ("dpkit", "peer"):
                s = row[side]
                cands = by_key.get((s["suite"], row["case"], row["placement"]), [])
                assert cands, f"{where}: no {side} result {s['suite']}/{row['case']}"
                assert any(c["status"] == s["status"] for c in cands), (where, side)
                if s["status"] == "ok":
                    assert any(c.get("ticks", {}).get("p50") == s["p50"] for c in cands), \
                        f"{where}: {side} median {s['p50']} is no result's"
                else:
                    assert s["p50"] is None, where
            assert row["verdict"] in VERDICTS, where
            if row["ratio"] is None:
                assert row["verdict"] == "no_verdict" and row["how"] is None, where
                assert row["note"], f"{where}: no ratio and no reason"
            else:
                assert row["how"] in HOWS, where
                assert row["ratio"] > 0 and math.isfinite(row["ratio"]), where
                if row["how"] == "unpaired":
                    want = row["peer"]["p50"] / row["dpkit"]["p50"]
                    assert abs(row["ratio"] - want) <= 1e-9 * want, (where, row["ratio"], want)
                else:
                    # paired: the peer's own result carries the ratio, to its twin, in
                    # cycles on one lcore where both had them and in ticks on two
                    peer = by_key[(row["peer"]["suite"], row["case"], row["placement"])]
                    il = [c["interleaved"] for c in peer if "interleaved" in c]
                    assert any(i["reference"] == f"{b['block']}/{row['case']}" and
                               abs(i["ratio_p50"] - row["ratio"]) <= 1e-9 * row["ratio"] and
                               i["as_run"] == (row["how"] == "as run") for i in il), (where, il)
                    if row["placement"] != "single":
                        assert all(i["unit"] == "ticks" for i in il), (where, il)
                if row["ci95_lo"] is not None:
                    assert row["ci95_lo"] <= row["ratio"] <= row["ci95_hi"], where
                else:
                    assert row["note"], f"{where}: no interval and no reason"
                assert row["verdict"] == expected_verdict(row, noise), where
            tally[row["verdict"]] += 1
            nrows += 1
    assert nrows > 0, "no rows"
    assert peers["summary"] == tally, (peers["summary"], tally)
    return nrows


G = {}


@case("peers --json FILE runs and prints its tables")
def written():
    p = G["first"]
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    assert "dpkit's ring against its peers" in p.stdout, p.stdout[-2000:]
    G["doc"] = json.load(open(G["out"]))


@case("the file is a results file (check_results.py)")
def schema():
    c = run([sys.executable, G["check"], G["out"], "ring", "pool"])
    assert c.returncode == 0, c.stdout[-3000:]


@case("every row names two results and follows from its interval")
def rows():
    check_rows(G["doc"])


@case("the environment names the peers' library versions")
def library_named():
    doc = G["doc"]
    libs = [e for e in doc["environment"] if e["key"] == "libraries"]
    peer_suites = {r["peer"]["suite"] for b in doc["peers"]["blocks"] for r in b["pairs"]}
    assert libs, "no environment item naming the libraries timed"
    if any(s.startswith("dpdk_") for s in peer_suites):
        assert "DPDK " in libs[0]["value"], libs
    if "ck_ring" in peer_suites:
        assert "ck " in libs[0]["value"], libs


@case("compare reads the file")
def compared():
    c = run([G["bench"], "compare", G["out"], G["out"]])
    assert c.returncode == 0, c.stderr[-2000:]
    assert "0 faster, 0 slower" in c.stdout, c.stdout[-2000:]


@case("--json - puts the file alone on standard output")
def to_stdout():
    q = run([G["bench"], "peers", "ring/spsc_single", *SHORT, "--json", "-"])
    assert q.returncode == 0, q.stderr[-2000:]
    d = json.loads(q.stdout)
    assert d["peers"]["blocks"], d["peers"]
    assert "against its peers" in q.stderr, q.stderr[-2000:]


@case("an unwritable --json is refused before any case runs")
def refused():
    bad = os.path.join(G["work"], "no-such-dir", "x.json")
    q = run([G["bench"], "peers", "ring/spsc_single", *SHORT, "--json", bad])
    assert q.returncode == 2, q.returncode
    assert bad in q.stderr, q.stderr
    assert "against its peers" not in q.stdout, "cases ran before the refusal"
    assert not os.path.exists(os.path.dirname(bad))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def check_merged_row(row, noise, where):
    """A merged row against the two processes' figures it lists."""
    procs = row["processes"]
    assert len(procs) == 2, (where, procs)
    for side, key in (("dpkit", "dpkit_p50"), ("peer", "peer_p50")):
        v = [p[key] for p in procs]
        if all(x is not None for x in v):
            assert close(row[side]["p50"], geomean(v)), (where, side, row[side], v)
        else:
            assert row[side]["p50"] is None, (where, side)
    ratios = [p["ratio"] for p in procs]
    if all(r is not None for r in ratios):
        assert close(row["ratio"], geomean(ratios)), (where, row["ratio"], ratios)
    else:
        assert row["ratio"] is None and row["verdict"] == "no_verdict", where
    los = [p["ci95_lo"] for p in procs]
    his = [p["ci95_hi"] for p in procs]
    if row["ratio"] is not None and None not in los and None not in his:
        assert close(row["ci95_lo"], min(los)) and close(row["ci95_hi"], max(his)), where
    else:
        assert row["ci95_lo"] is None and row["ci95_hi"] is None, where
        assert row["note"], f"{where}: no interval and no reason"
    assert row["verdict"] == expected_verdict(row, noise), where
    for p in procs:
        if p["ci95_lo"] is not None:
            assert p["verdict"] == expected_verdict(p, noise), (where, p)
    judged = [p for p in procs if p["verdict"] in ("dpkit_faster", "dpkit_slower")]
    if row["verdict"] in ("dpkit_faster", "dpkit_slower"):
        assert all(p["verdict"] == row["verdict"] for p in procs), (where, procs)
    elif judged and row["ci95_lo"] is not None:
        assert "of 2 processes" in (row["note"] or ""), (where, row["note"])


@case("--processes 2: every row merges its two processes' figures")
def merged():
    p = G["merged"]
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    assert "2 processes, one after the other" in p.stdout, p.stdout[-2000:]
    doc = json.load(open(G["out2"]))
    c = run([sys.executable, G["check"], G["out2"], "ring", "pool"])
    assert c.returncode == 0, c.stdout[-3000:]
    assert "--processes 2" in doc["command"] and "dpk-peers-" not in doc["command"], \
        doc["command"]
    peers = doc["peers"]
    assert peers["processes"] == 2, peers.get("processes")
    tally = dict.fromkeys(VERDICTS, 0)
    rows = [r for b in peers["blocks"] for r in b["pairs"]]
    assert any(r["ratio"] is not None for r in rows), "no merged row has a ratio"
    for b in peers["blocks"]:
        for row in b["pairs"]:
            check_merged_row(row, peers["noise"], f"{b['block']}/{row['case']} {row['params']} "
                             f"{row['placement']} {row['peer']['suite']}")
            tally[row["verdict"]] += 1
    assert sum(tally.values()) > 0 and peers["summary"] == tally, (peers["summary"], tally)


@case("--processes: a count out of range, or a share of --time under 1 ms, is refused")
def processes_refused():
    for val, want in (("0", "'0'"), ("9", "'9'"), ("two", "'two'")):
        q = run([G["bench"], "peers", "ring/spsc_single", "--processes", val])
        assert q.returncode == 2, (val, q.returncode)
        assert "--processes" in q.stderr and want in q.stderr, (val, q.stderr)
    q = run([G["bench"], "peers", "ring/spsc_single", "--time", "1ms", "--processes", "2"])
    assert q.returncode == 2 and "under 1 ms" in q.stderr, (q.returncode, q.stderr)


def start_long(out, **kw):
    """peers as two processes, long enough (a second a case) to be stopped midway."""
    return subprocess.Popen([G["bench"], "peers", "ring/spsc_single", "ring/spsc_bulk",
                             "--time", "1s", "--placement", "single", "--quiet",
                             "--processes", "2", "--json", out],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def first_child(p):
    """The pid of the first process peers @p started, once it runs; None if none did."""
    for _ in range(300):
        time.sleep(0.05)
        try:
            with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
                kids = f.read().split()
        except OSError:
            return None
        if kids:
            return int(kids[0])
    return None


def alive(pid):
    """Whether @pid is a process that has not ended (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def scratch():
    return set(glob.glob("/tmp/dpk-peers-*"))


@case("an interrupt stops both processes, writes nothing and leaves no scratch files")
def interrupted():
    out = os.path.join(G["work"], "interrupted.json")
    before = scratch()
    p = start_long(out, start_new_session=True)
    kid = first_child(p)
    assert kid, "peers started no process"
    time.sleep(1)
    os.killpg(p.pid, signal.SIGINT)
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        raise AssertionError("peers did not stop on an interrupt")
    assert p.returncode == 130, (p.returncode, err[-2000:])
    assert not os.path.exists(out), "a file was written"
    assert scratch() <= before, scratch() - before
    assert not alive(kid), f"process {kid} of the run still runs"


@case("a process that dies: the reason, exit 2, nothing written, no scratch files")
def child_killed():
    out = os.path.join(G["work"], "killed.json")
    before = scratch()
    p = start_long(out)
    kid = first_child(p)
    assert kid, "peers started no process"
    os.kill(kid, signal.SIGKILL)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 2, (p.returncode, err[-2000:])
    assert "process 1 of 2 was killed by signal 9" in err, err[-2000:]
    assert "nothing written" in err, err[-2000:]
    assert not os.path.exists(out), "a file was written"
    assert scratch() <= before, scratch() - before


if __name__ == "__main__":
    G["bench"], G["check"], G["work"] = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(G["work"], exist_ok=True)
    G["out"] = os.path.join(G["work"], "peers.json")
    if os.path.exists(G["out"]):
        os.unlink(G["out"])
    G["out2"] = os.path.join(G["work"], "peers2.json")
    for f in (G["out2"], os.path.join(G["work"], "interrupted.json"),
              os.path.join(G["work"], "killed.json")):
        if os.path.exists(f):
            os.unlink(f)
    G["first"] = run([G["bench"], "peers", *SELECTION, *SHORT, "--json", G["out"]])
    if G["first"].returncode == 2 and "no peer case" in G["first"].stderr:
        print("1..0 # SKIP no peer suite is built into this dpk-bench")
        sys.exit(77)
    G["merged"] = run([G["bench"], "peers", *SELECTION, *MERGED, "--json", G["out2"]])
    tap_main()
