#!/usr/bin/env python3
"""Every placement's path end to end, on a machine that has only two plain CPUs.

A fake sysfs tree (DPK_SYSFS_ROOT) describes CPUs 0 and 1 as SMT siblings, as two L3
domains, or as two NUMA nodes; dpk-bench then picks that pair for smt, llc or numa, runs
the floor and a ring pair case there, and its table, JSON, compare, report and convert
take the results. Lcores beyond the CPUs (64 on two) run the all-lcore cases to the end.

usage: test_placements.py PATH/TO/dpk-bench PATH/TO/check_results.py
Prints TAP; exit 77 when CPUs 0 and 1 are not both usable.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from tap import case, main

BIN, CHECK = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="dpk_placements_")
# Short runs: the paths are under test, not the figures. On a loaded machine a pair case
# may move nothing in so short a time: "empty" is then its honest result.
QUICK = ["--time", "20ms", "--warmup", "1ms"]
RAN = ("ok", "empty")
PAIR_CASES = ["floor/pingpong", "ring/spsc_pair_bulk"]


def attr(root, rel, text):
    path = os.path.join(root, "devices", "system", rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def fake_tree(kind):
    """CPUs 0 and 1 as @kind: "smt" (one core), "llc" (two L3s, one node), "numa"."""
    root = os.path.join(TMP, kind)
    for rel in ("cpu/possible", "cpu/present", "cpu/online"):
        attr(root, rel, "0-1")
    for c in (0, 1):
        topo, l3 = f"cpu/cpu{c}/topology/", f"cpu/cpu{c}/cache/index3/"
        attr(root, topo + "physical_package_id", str(c) if kind == "numa" else "0")
        attr(root, topo + "core_id", "0" if kind == "smt" else str(c))
        attr(root, topo + "thread_siblings_list", "0-1" if kind == "smt" else str(c))
        attr(root, l3 + "level", "3")
        attr(root, l3 + "type", "Unified")
        attr(root, l3 + "id", "0" if kind == "smt" else str(c))
        attr(root, l3 + "shared_cpu_list", "0-1" if kind == "smt" else str(c))
    if kind == "numa":
        attr(root, "node/node0/cpulist", "0")
        attr(root, "node/node1/cpulist", "1")
    else:
        attr(root, "node/node0/cpulist", "0-1")
    return root


def run(args, env=None, timeout=300):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, **(env or {})})
    assert p.returncode >= 0, f"killed by signal {-p.returncode}: {args}\n{p.stderr}"
    return p.returncode, p.stdout, p.stderr


def brief(results):
    return [(r["case"], r["placement"], r["status"]) for r in results]


def check_json(path, *suites):
    p = subprocess.run([sys.executable, CHECK, path, *suites], capture_output=True, text=True)
    assert p.returncode == 0, f"{path} fails the schema check:\n{p.stdout}{p.stderr}"
    with open(path) as f:
        return json.load(f)


def placement_end_to_end(kind):
    env = {"DPK_SYSFS_ROOT": fake_tree(kind)}
    out = os.path.join(TMP, f"{kind}.json")
    rc, table, err = run(["run", *PAIR_CASES, "--placement", kind, *QUICK, "--json", out], env)
    assert rc == 0, f"run --placement {kind}: exit {rc}\n{err}"
    rows = [l for l in table.splitlines() if l.startswith("  ") and f" {kind} " in l]
    for name in ("pingpong", "spsc_pair_bulk"):
        assert any(l.split()[0] == name for l in rows), f"no {kind} row for {name}:\n{table}"
    assert "skipped" not in table, table
    doc = check_json(out)
    assert doc["options"]["placements"] == [kind], doc["options"]
    assert doc["results"] and all(r["placement"] == kind and r["status"] in RAN
                                  for r in doc["results"]), brief(doc["results"])
    # The pair is CPUs 0 and 1, one lcore on each.
    for r in doc["results"]:
        if r["status"] == "ok":
            assert sorted(l["cpu"] for l in r["lcores"]) == [0, 1], (r["case"], r["lcores"])
    # What reads results takes them: a comparison with itself, the page, the formats.
    rc, cmp, err = run(["compare", out, out], env)
    assert rc == 0 and f" {kind} " in cmp, f"compare: exit {rc}\n{err}\n{cmp}"
    page = os.path.join(TMP, f"{kind}.html")
    rc, _, err = run(["report", out, "-o", page], env)
    assert rc == 0 and os.path.getsize(page) > 0, f"report: exit {rc}\n{err}"
    for to in ("csv", "markdown", "gbench"):
        rc, conv, err = run(["convert", out, "--to", to], env)
        assert rc == 0 and kind in conv, f"convert --to {to}: exit {rc}\n{err}"


@case("smt: CPUs 0 and 1 as siblings of one core")
def _():
    placement_end_to_end("smt")


@case("llc: CPUs 0 and 1 in two L3 domains of one node")
def _():
    placement_end_to_end("llc")


@case("numa: CPUs 0 and 1 on two NUMA nodes")
def _():
    placement_end_to_end("numa")


@case("a placement the fake tree lacks is skipped with its reason")
def _():
    env = {"DPK_SYSFS_ROOT": fake_tree("llc")}
    rc, table, err = run(["run", "floor/pingpong", "--placement", "llc,smt,numa", *QUICK], env)
    assert rc == 0, err
    assert "placement smt" in table and "SMT siblings" in table, table
    assert "placement numa" in table and "different NUMA nodes" in table, table


def all_lcores(spec, roles):
    """Every case on "all" with @spec: @roles roles each, a worker per distinct CPU set."""
    out = os.path.join(TMP, "all.json")
    rc, table, err = run(["run", "--placement", "all", "--lcores", spec, "--time", "5ms",
                          "--warmup", "0", "--json", out])
    assert rc == 0, f"--lcores {spec}: exit {rc}\n{err}\n{table[-2000:]}"
    doc = check_json(out)
    assert len(doc["lcores"]["workers"]) == 63, doc["lcores"]
    ring = [r for r in doc["results"] if r["suite"] == "ring"]
    assert ring and all(r["status"] in RAN and r["placement"] == "all" for r in ring), brief(ring)
    assert all(len(r["lcores"]) == roles for r in ring if r["status"] == "ok"), brief(ring)
    return doc


@case("64 lcores free to run on both CPUs: the all-lcore cases end, valid JSON")
def _():
    doc = all_lcores("(0-63)@(0,1)", 1)
    # A distributor needs a worker besides itself: on one role it is skipped, not failed
    # (its set-up's -ENODEV used to fail the run).
    dist = [r for r in doc["results"] if r["suite"] == "distributor"]
    assert dist and all(r["status"] == "skipped" and "-ENODEV" in r["reason"]
                        for r in dist), brief(dist)


@case("64 lcores pinned over two CPUs and both: the all-lcore cases of every suite end")
def _():
    doc = all_lcores("(0-20)@0,(21-41)@1,(42-63)@(0-1)", 3)
    assert all(r["status"] in RAN for r in doc["results"]), brief(doc["results"])


def usable():
    try:
        return {0, 1} <= os.sched_getaffinity(0)
    except AttributeError:
        return False


if __name__ == "__main__":
    if not usable():
        print("1..0 # SKIP needs CPUs 0 and 1")
        sys.exit(77)
    try:
        main()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
