#!/usr/bin/env python3
"""Check a dpk-bench results file against the documented schema (README, "JSON results").

usage: check_results.py RESULTS.json [SUITE...]
Exits 0 when every documented field is present with the right type, every listed suite
has at least one ok result, and the figures are internally consistent; prints TAP.
"""
import json
import math
import platform
import sys

NUM = (int, float)
TOP = {"schema": str, "schema_version": int, "started": str, "wall_s": NUM,
       "command": str, "options": dict, "clock": dict, "witness": dict,
       "environment": list, "lcores": dict, "results": list}
OPTIONS = {"time_s": NUM, "warmup_s": NUM, "rounds": int, "slow_limit": NUM, "repeat": int,
           "lcores": str, "raw": bool, "placements": list}
CLOCK = {"tsc_hz": int, "tsc_source": str, "tsc_hz_check": NUM, "read_cost_ticks": NUM,
         "read_cost_min_ticks": NUM, "granularity_ticks": int, "min_delta_ticks": int,
         "bumped_reads": int,
         "sample_target_ticks_single": NUM, "sample_target_ticks_multi": NUM,
         "witness_ticks": NUM, "witness_readings": int, "cycles_on": bool}
WITNESS = {"best_ticks": NUM, "reference_ticks": NUM, "reference_rank": int, "pairs": int,
           "warm_pairs": int,
           "limit": NUM, "readings": int, "samples": int, "slow_samples": int,
           "set_aside_samples": int, "rounds": int, "extra_rounds": int,
           "slow_only_cases": int}
ENV = {"key": str, "label": str, "value": str, "verdict": str, "detail": str}
RESULT = {"suite": str, "case": str, "params": dict, "placement": str, "repeat": int,
          "description": str, "unit": str, "status": str, "elapsed_s": NUM}
OK_RESULT = {"batch_ops": int, "samples": int, "kept": int, "rejected": dict, "ticks": dict,
             "ns": dict, "mops": NUM, "code_layouts": int, "lcores": list}
SUMMARY = ["min", "p50", "p90", "p99", "max", "mean", "stddev", "cv", "p50_ci95_lo",
           "p50_ci95_hi"]
LCORE = {"role": int, "lcore": int, "cpu": int, "counted": bool, "ops": int,
         "window_s": NUM, "mops": NUM, "batch_ops": int, "samples": int, "kept": int,
         "ticks": dict}
UNITS = {"per element", "per call", "per packet", "per object", "per round trip",
         "per iteration"}
VERDICTS = {"ok", "degraded", "unknown", "info"}
PLACEMENTS = {"single", "smt", "core", "llc", "numa", "oversub", "all"}
X86_64 = platform.machine() in ("x86_64", "AMD64")  # where the clock chain is built

checks = []



def six_digits(a, b):
    """Whether a, a raw sample as written, is b to six significant digits."""
    return abs(a - b) <= 5e-6 * abs(b) + 1e-300

def need(obj, spec, where):
    for k, t in spec.items():
        if k not in obj:
            raise AssertionError(f"{where}: missing '{k}'")
        if not isinstance(obj[k], t) or (t is int and isinstance(obj[k], bool)):
            raise AssertionError(f"{where}: '{k}' has type {type(obj[k]).__name__}")


def summary_ok(s, where):
    for k in SUMMARY:
        if k not in s or not isinstance(s[k], NUM) or not math.isfinite(s[k]):
            raise AssertionError(f"{where}: summary field '{k}' missing or not finite")
    if not (s["min"] <= s["p50"] <= s["p90"] <= s["p99"] <= s["max"]):
        raise AssertionError(f"{where}: percentiles out of order {s}")
    if not (s["p50_ci95_lo"] <= s["p50"] <= s["p50_ci95_hi"]):
        raise AssertionError(f"{where}: median outside its interval")


def main():
    doc = json.load(open(sys.argv[1]))
    suites = sys.argv[2:]
    tests = []

    def t(name, fn):
        tests.append((name, fn))

    t("top level", lambda: need(doc, TOP, "top"))
    t("schema name and version",
      lambda: (doc["schema"] == "dpkit-bench" and doc["schema_version"] == 1) or
      (_ for _ in ()).throw(AssertionError("schema")))
    t("options", lambda: need(doc["options"], OPTIONS, "options"))
    t("clock", lambda: need(doc["clock"], CLOCK, "clock"))

    def core_clock_check():
        # The multiply the core-clock chain assumes to take 3 cycles, timed against a chain
        # of adds: a number where the chain is built, null elsewhere; figures in cycles only
        # when it came out within 10% of 3.
        k = doc["clock"]
        m = k["mul_cycles"]
        if X86_64:
            # both chains timed: a multiply is a handful of adds, whatever the core
            assert isinstance(m, NUM) and 1 < m < 10, k
        else:
            assert m is None and not k["cycles_on"], k
        assert k["cycles_on"] == (m is not None and abs(m - 3) <= 0.3), k
    t("core-clock multiply check", core_clock_check)

    def witness():
        w = doc["witness"]
        need(w, WITNESS, "witness")
        assert 0 < w["best_ticks"] <= doc["clock"]["witness_ticks"], w
        # The reference: a reading of the run's no faster than its fastest, or the clock
        # check's. (How far it lies from the clock check's is the host's: a host slow for
        # the whole run puts it past any bound.)
        assert w["reference_rank"] == 1000, w
        assert w["best_ticks"] <= w["reference_ticks"], w
        assert w["set_aside_samples"] <= w["slow_samples"] <= w["samples"], w
        rounds = [r for r in doc["results"] if "witness_slices" in r]
        assert w["samples"] == sum(r["samples"] for r in rounds), w
        assert w["slow_samples"] == \
            sum(r["samples"] - r["witness_fast_samples"] for r in rounds), w
        flagged = sum(1 for r in doc["results"] if r.get("witness_slow_only"))
        assert flagged == w["slow_only_cases"], (flagged, w)
        assert w["extra_rounds"] <= w["rounds"], w
        # p50_ticks is null only when no reading was made (no case ran in rounds)
        assert (w["readings"] > 0) == (w["samples"] > 0), w
        if w["readings"]:
            assert isinstance(w["p50_ticks"], NUM) and w["p50_ticks"] >= w["best_ticks"], w
        else:
            assert w["p50_ticks"] is None, w
    t("speed witness", witness)

    def env():
        assert doc["environment"], "empty environment"
        for it in doc["environment"]:
            need(it, ENV, f"environment {it.get('key')}")
            assert it["verdict"] in VERDICTS, it
            if it["verdict"] == "unknown":
                assert it["detail"], f"unknown item {it['key']} without a reason"
    t("environment items and verdicts", env)

    def results():
        assert doc["results"], "no results"
        for r in doc["results"]:
            where = f"{r.get('suite')}/{r.get('case')} {r.get('placement')}"
            need(r, RESULT, where)
            assert r["unit"] in UNITS, where
            assert r["placement"] in PLACEMENTS, where
            if r["status"] != "ok":
                assert r.get("reason"), f"{where}: {r['status']} without a reason"
                continue
            need(r, OK_RESULT, where)
            summary_ok(r["ticks"], where + " ticks")
            summary_ok(r["ns"], where + " ns")
            assert r["kept"] <= r["samples"], where
            assert r["kept"] + sum(r["rejected"].values()) == r["samples"], where
            assert set(r["rejected"]) == {"migration", "ctx_switch", "gap", "slow", "floor",
                                          "alone"}, where
            # "alone" judges several counted roles on CPUs of their own.
            assert r["rejected"]["alone"] == 0 or (
                r["placement"] not in ("single", "oversub") and
                sum(1 for lc in r["lcores"] if lc["counted"]) >= 2), \
                f"{where}: {r['rejected']['alone']} samples alone"
            assert r["lcores"], where
            for lc in r["lcores"]:
                need(lc, LCORE, where + " lcore")
            # One-lcore ring cases run their body at four code offsets; nothing else does.
            ring_single = r["suite"] in ("ring", "dpdk_ring", "ck_ring") and \
                r["placement"] == "single"
            assert r["code_layouts"] == (4 if ring_single else 1), where
            if "witness_slices" in r:  # single-lcore cases run in rounds
                assert r["placement"] == "single", where
                assert r["witness_slices"] > 0, where
                assert 0 <= r["witness_fast_samples"] <= r["samples"], where
                kr = r["witness_kept_rounds"]
                assert isinstance(kr, int) and 0 <= kr <= r["witness_slices"], where
                assert (kr > 0) == (r["kept"] > 0) and kr <= r["kept"], where
                assert isinstance(r["witness_slow_only"], bool), where
            # Figures in core cycles: single-lcore cases run in rounds, where the clock chain
            # is timed after every batch (x86-64); each comes with its core clock.
            if "cycles" in r:
                assert "witness_slices" in r, f"{where}: cycles outside the rounds"
                assert doc["clock"]["cycles_on"], f"{where}: cycles with the chain judged off"
                summary_ok(r["cycles"], where + " cycles")
                assert isinstance(r["core_mhz"], NUM) and 100 < r["core_mhz"] < 20000, where
                ck = r["cycles_kept"]
                assert isinstance(ck, int) and 0 < ck <= r["kept"], where
                # With --raw, every sample the cycles summary rests on, in the order taken,
                # to six significant digits.
                if doc["options"]["raw"]:
                    rc_ = r["raw_cycles"]
                    assert len(rc_) == ck, where
                    assert six_digits(min(rc_), r["cycles"]["min"]) and \
                        six_digits(max(rc_), r["cycles"]["max"]), where
                else:
                    assert "raw_cycles" not in r, where
            else:
                assert not {"core_mhz", "cycles_kept", "raw_cycles"} & set(r), where
                assert not (doc["clock"]["cycles_on"] and "witness_slices" in r and
                            r["kept"] > 0), \
                    f"{where}: kept samples in rounds but no cycles"
    t("every result", results)

    def rounds_and_floors():
        # Every ok result ran in rounds (interleaved groups too); a multi-lcore case on two
        # CPUs carries its own floor, and its rounds say which were set aside for it.
        for r in doc["results"]:
            where = f"{r['suite']}/{r['case']} {r['placement']}"
            if r["status"] != "ok":
                continue
            rd = r["rounds"]
            n = len(rd["p50"])
            assert n >= 1 and len(rd["kept"]) == n, f"{where}: {n} rounds, kept {rd['kept']}"
            assert all((p is None) == (k == 0) for p, k in zip(rd["p50"], rd["kept"])), \
                f"{where}: round medians {rd['p50']}, kept {rd['kept']}"
            # One lcore: each round as run too (slow samples included), with the witness
            # beside it; a round with a kept sample has one.
            whole = ["whole_p50", "whole_witness"] + (["whole_p50_cycles"]
                                                      if "p50_cycles" in rd else [])
            for key in whole:
                assert (key in rd) == (r["placement"] == "single"), f"{where}: {key}"
                if key in rd:
                    assert len(rd[key]) == n, f"{where}: {key} over {n} rounds"
            if r["placement"] == "single":
                assert all(w is not None and w > 0 for w, k in
                           zip(rd["whole_p50"], rd["kept"]) if k), f"{where}: whole_p50"
                assert all((w is None) == (x is None) for w, x in
                           zip(rd["whole_witness"], rd["whole_p50"])), f"{where}: witness"
            two_cpus = r["placement"] in ("smt", "core", "llc", "numa")
            # On two CPUs a floor, unless no round's bracket timed one (a host that held a
            # vCPU through every bracket), which the result then says; "all" has one where
            # its first two roles are on two CPUs, and may say so too.
            untimed = r.get("floor_untimed", False)
            assert not untimed or ((two_cpus or r["placement"] == "all") and "floor" not in r), \
                f"{where}: floor_untimed beside a floor, or where none is taken"
            assert ("floor" in r) == ((two_cpus and not untimed) or
                                      ("floor" in r and r["placement"] == "all")), \
                f"{where}: floor {'missing' if two_cpus else 'unexpected'}"
            if "floor" not in r:
                assert "set_aside" not in rd and r["rejected"]["floor"] == 0, \
                    f"{where}: set aside without a floor"
                if r["placement"] == "single":
                    assert sum(rd["kept"]) == r["kept"], f"{where}: kept over the rounds"
                continue
            f = r["floor"]
            assert len(rd["floor"]) == n and len(rd["set_aside"]) == n, f"{where}: lengths"
            limit = f["reference_ticks"] * (1 + f["limit"])
            assert rd["set_aside"] == [fl > limit for fl in rd["floor"]], \
                f"{where}: set aside {rd['set_aside']}, floors {rd['floor']}, limit {limit}"
            assert f["set_aside_rounds"] == sum(rd["set_aside"]), f"{where}: aside count"
            positive = [fl for fl in rd["floor"] if fl > 0]
            assert min(positive) == f["min_ticks"] and max(positive) == f["max_ticks"], \
                f"{where}: floors {rd['floor']}, min {f['min_ticks']}, max {f['max_ticks']}"
            aside = sum(k for k, a in zip(rd["kept"], rd["set_aside"]) if a)
            assert r["rejected"]["floor"] == aside, f"{where}: rejected for the floor"
            assert r["kept"] == sum(rd["kept"]) - aside, \
                f"{where}: kept {r['kept']}, rounds {rd['kept']}, aside {aside}"
    t("rounds, and pair results against their own floor", rounds_and_floors)

    def suites_ok():
        for s in suites:
            ok = [r for r in doc["results"] if r["suite"] == s and r["status"] == "ok"]
            assert ok, f"suite {s} has no ok result"
            failed = [r for r in doc["results"] if r["suite"] == s and r["status"] == "failed"]
            assert not failed, f"suite {s}: failed {failed[0]['case']}: {failed[0].get('reason')}"
    t("suites present and passing", suites_ok)

    print("TAP version 13")
    print(f"1..{len(tests)}")
    bad = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print(f"ok {i} - {name}")
        except Exception as e:  # noqa: BLE001
            bad += 1
            print(f"not ok {i} - {name}\n# {e}")
    print(f"# {len(tests) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
