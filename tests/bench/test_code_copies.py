#!/usr/bin/env python3
"""The ring suites' one-lcore bodies come in four copies (DPK_BENCH_CODE_AT in bench/bench.h)
at 0, 16, 32 and 48 bytes past a 64-byte boundary, and a figure is their cost over those
places. That is only true if the copies are the same instructions: this reads the built
binary's symbols and disassembly and checks, for every body, that its four copies exist, sit
at their offsets, have one size, and disassemble to one instruction sequence once addresses
are taken relative to each copy's start (jumps and calls outside a copy must reach the same
address; data it reads may be its own, such as a switch's jump table).

usage: test_code_copies.py PATH/TO/dpk-bench
Exits 77 (skipped) when nm or objdump is missing, or when the build placed every copy at
offset 0 (a compiler without patchable_function_entry). Prints TAP.
"""
import re
import shutil
import subprocess
import sys

BIN = sys.argv[1]
COPY = re.compile(r"^((?:dpk|rte)_(?:spsc|mpmc)_[a-z]+)_(0|16|32|48)$")
OFFSETS = (0, 16, 32, 48)


def symbols():
    out = subprocess.run(["nm", "-S", "--defined-only", BIN], capture_output=True, text=True,
                         check=True).stdout
    bodies = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) != 4 or f[2].lower() != "t":
            continue
        m = COPY.match(f[3])
        if m:
            bodies.setdefault(m.group(1), {})[int(m.group(2))] = (int(f[0], 16), int(f[1], 16))
    return bodies


def instructions(start, size):
    """The copy's instructions with addresses made relative to @start: a target inside the
    copy becomes +offset, one outside it its absolute address."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={start:#x}",
                          f"--stop-address={start + size:#x}", BIN],
                         capture_output=True, text=True, check=True)
    insns = []
    for line in out.stdout.splitlines():
        m = re.match(r"^\s*[0-9a-f]+:\s+(\S.*)$", line)
        if not m:
            continue
        text = m.group(1)

        def target(t):
            addr = int(t.group(1), 16)
            if start <= addr < start + size:
                return f"+{addr - start:#x}"
            return f"{addr:#x} <{t.group(2)}>"  # shared code: the same address in every copy
        # A RIP-relative operand: its displacement differs from copy to copy. Inside the
        # copy it must reach the same offset; outside, it reads data (a string, or the jump
        # table of a switch, which each copy has its own of), not code: only its form counts.
        rip = re.search(r"-?0x[0-9a-f]+\(%rip\).*#\s*([0-9a-f]+) <[^>]+>", text)
        if rip:
            addr = int(rip.group(1), 16)
            where = f"+{addr - start:#x}" if start <= addr < start + size else "data"
            text = re.sub(r"-?0x[0-9a-f]+\(%rip\)", f"[{where}](%rip)", text)
            text = re.sub(r"\s*#.*$", "", text)
        text = re.sub(r"\b([0-9a-f]+) <([^>]+)>", target, text)
        insns.append(re.sub(r"\s+", " ", text))
    return insns


def main():
    if not shutil.which("nm") or not shutil.which("objdump"):
        print("1..0 # SKIP nm or objdump not found (Debian: binutils)")
        return 77
    bodies = symbols()
    if not bodies:
        print("1..0 # SKIP no code copies in this build")
        return 77
    if all(b.get(o, (0, 0))[0] % 64 == 0 for b in bodies.values() for o in OFFSETS):
        print("1..0 # SKIP every copy at offset 0 (no patchable_function_entry)")
        return 77
    tests = []
    for name in sorted(bodies):
        tests.append((name, bodies[name]))
    print("TAP version 13")
    print(f"1..{len(tests)}")
    bad = 0
    for i, (name, copies) in enumerate(tests, 1):
        why = ""
        if sorted(copies) != list(OFFSETS):
            why = f"copies at {sorted(copies)}, not {list(OFFSETS)}"
        elif any(copies[o][0] % 64 != o for o in OFFSETS):
            why = "offsets " + ", ".join(f"{copies[o][0] % 64}" for o in OFFSETS)
        elif len({copies[o][1] for o in OFFSETS}) != 1:
            why = "sizes " + ", ".join(f"{copies[o][1]}" for o in OFFSETS)
        else:
            first = instructions(*copies[0])
            if len(first) < 8:
                why = f"only {len(first)} instructions read from the first copy"
            for o in OFFSETS[1:]:
                other = instructions(*copies[o])
                if other != first and not why:
                    k = next((j for j, (a, b) in enumerate(zip(first, other)) if a != b),
                             min(len(first), len(other)))
                    why = (f"copy at {o} differs from copy at 0 at instruction {k}: "
                           f"{first[k] if k < len(first) else '(end)'} / "
                           f"{other[k] if k < len(other) else '(end)'}")
        if why:
            bad += 1
            print(f"not ok {i} - {name}\n# {why}")
        else:
            print(f"ok {i} - {name}: four copies, {copies[0][1]} bytes, the same instructions")
    print(f"# {len(tests) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
