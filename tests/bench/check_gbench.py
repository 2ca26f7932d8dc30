#!/usr/bin/env python3
"""Check a file against Google Benchmark's JSON schema (json_schema_version 1), as
src/json_reporter.cc writes it and tools/gbench/report.py reads it.

usage: check_gbench.py [--dpkit] FILE.json
  --dpkit  also check what dpk-bench's --format=gbench promises (docs/compare.md): the
           extra context keys, the naming, four aggregates per benchmark after its
           iterations, contiguous instances, consistent figures.
Without --dpkit the file may be any GB output (tests/fixtures/results/gbench_1.7.1.json is
one written by Google Benchmark 1.7.1 itself). Prints TAP; exits 0 when every check passes.
"""
import json
import math
import re
import sys

NUM = (int, float)
CONTEXT = {"date": str, "host_name": str, "executable": str, "num_cpus": int,
           "mhz_per_cpu": int, "cpu_scaling_enabled": bool, "caches": list,
           "load_avg": list, "library_build_type": str}
CONTEXT_DPKIT = {"library_version": str, "json_schema_version": int, "dpkit_format": str,
                 "dpkit_command": str, "dpkit_tsc_hz": str, "dpkit_tsc_source": str,
                 "dpkit_not_run": str}
CACHE = {"type": str, "level": int, "size": int, "num_sharing": int}
ENTRY = {"name": str, "family_index": int, "per_family_instance_index": int,
         "run_name": str, "run_type": str, "repetitions": int, "threads": int,
         "iterations": int, "real_time": NUM, "cpu_time": NUM, "time_unit": str}
AGGREGATES = ["mean", "median", "stddev", "cv"]
NAME = re.compile(r"^[^/]+/[^/]+(/[^/:]+:-?[0-9]+)*/placement:(single|smt|core|llc|numa|oversub|all)$")


def need(obj, spec, where):
    for k, t in spec.items():
        if k not in obj:
            raise AssertionError(f"{where}: missing '{k}'")
        v = obj[k]
        if not isinstance(v, t) or (t is int and isinstance(v, bool)):
            raise AssertionError(f"{where}: '{k}' is {type(v).__name__}, not {t}")


def main():
    args = sys.argv[1:]
    dpkit = "--dpkit" in args
    args = [a for a in args if a != "--dpkit"]
    doc = json.load(open(args[0]))
    tests = []

    def t(name):
        def wrap(fn):
            tests.append((name, fn))
            return fn
        return wrap

    @t("top level has context and benchmarks")
    def _():
        assert isinstance(doc, dict), "not an object"
        need(doc, {"context": dict, "benchmarks": list}, "top")
        assert doc["benchmarks"], "no benchmarks"

    @t("context fields")
    def _():
        c = doc["context"]
        need(c, CONTEXT, "context")
        assert c["library_build_type"] in ("debug", "release"), c["library_build_type"]
        assert len(c["load_avg"]) == 3 and all(isinstance(x, NUM) for x in c["load_avg"])
        for i, cache in enumerate(c["caches"]):
            need(cache, CACHE, f"caches[{i}]")
        assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$", c["date"]), c["date"]
        if dpkit:
            need(c, CONTEXT_DPKIT, "context")
            assert c["json_schema_version"] == 1
            assert any(k.startswith("dpkit_env_") for k in c), "no dpkit_env_* keys"
            for k, v in c.items():
                if k.startswith("dpkit_"):
                    assert isinstance(v, str), f"context {k} is not a string"

    @t("every entry has the fields compare.py reads")
    def _():
        for i, b in enumerate(doc["benchmarks"]):
            where = f"benchmarks[{i}] {b.get('name')}"
            need(b, ENTRY, where)
            assert b["run_type"] in ("iteration", "aggregate"), where
            assert b["time_unit"] in ("ns", "us", "ms", "s"), where
            assert math.isfinite(b["real_time"]) and math.isfinite(b["cpu_time"]), where
            assert b["threads"] >= 1 and b["repetitions"] >= 1, where
            if b["run_type"] == "iteration":
                need(b, {"repetition_index": int}, where)
                assert 0 <= b["repetition_index"] < b["repetitions"], where
                assert b["name"] == b["run_name"], where
                assert b["iterations"] >= 1 and b["real_time"] > 0, where
            else:
                need(b, {"aggregate_name": str, "aggregate_unit": str}, where)
                assert b["name"] == b["run_name"] + "_" + b["aggregate_name"], where
                unit = "percentage" if b["aggregate_name"] == "cv" else "time"
                assert b["aggregate_unit"] == unit, where

    @t("indexes identify run names")
    def _():
        seen = {}
        for b in doc["benchmarks"]:
            key = (b["family_index"], b["per_family_instance_index"])
            assert seen.setdefault(key, b["run_name"]) == b["run_name"], \
                f"{key} names both {seen[key]} and {b['run_name']}"
        names = {}
        for key, name in seen.items():
            assert names.setdefault(name, key) == key, f"{name} has two index pairs"

    if dpkit:
        @t("dpkit: names, order, aggregates, figures")
        def _():
            groups, order = {}, []
            for b in doc["benchmarks"]:
                r = b["run_name"]
                assert NAME.match(r), f"name {r!r} is not SUITE/CASE/PARAM:V/.../placement:P"
                if r not in groups:
                    groups[r] = []
                    order.append(r)
                elif order[-1] != r:
                    raise AssertionError(f"{r}: entries are not contiguous")
                groups[r].append(b)
            fams = [groups[r][0]["family_index"] for r in order]
            assert fams == sorted(fams), "families out of order"
            for r, entries in groups.items():
                its = [b for b in entries if b["run_type"] == "iteration"]
                aggs = [b for b in entries if b["run_type"] == "aggregate"]
                assert its, f"{r}: no iteration entry"
                assert entries[:len(its)] == its, f"{r}: an aggregate before an iteration"
                assert [a["aggregate_name"] for a in aggs] == AGGREGATES, \
                    f"{r}: aggregates {[a['aggregate_name'] for a in aggs]}"
                assert [b["repetition_index"] for b in its] == list(range(len(its))), r
                assert all(b["repetitions"] == len(its) for b in entries), r
                assert len(its) <= 100, f"{r}: {len(its)} entries, more than 100"
                times = [b["real_time"] for b in its]
                assert times == sorted(times), f"{r}: samples not sorted"
                agg = {a["aggregate_name"]: a for a in aggs}
                assert times[0] <= agg["median"]["real_time"] <= times[-1], r
                assert times[0] <= agg["mean"]["real_time"], r
                assert agg["stddev"]["real_time"] >= 0, r
                cv = agg["stddev"]["real_time"] / agg["mean"]["real_time"]
                assert abs(agg["cv"]["real_time"] - cv) <= 1e-9 + 1e-6 * cv, r
                assert all(b["cpu_time"] == b["real_time"] for b in entries), r

    print("TAP version 13")
    print(f"1..{len(tests)}")
    bad = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print(f"ok {i} - {name}")
        except Exception as e:  # noqa: BLE001 - every failure becomes a TAP line
            bad += 1
            print(f"not ok {i} - {name}\n# {e}")
    print(f"# {len(tests) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
