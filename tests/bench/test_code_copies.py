#!/usr/bin/env python3
"""The ring suites' one-lcore bodies come in four copies (DPK_BENCH_CODE_AT in bench/bench.h)
at 0, 16, 32 and 48 bytes past a 64-byte boundary, and a figure is their cost over those
places. That is only true if the copies are the same instructions: this reads the built
binary's symbols and disassembly and checks, for every body, that its four copies exist, sit
at their offsets, have one size, and disassemble to one instruction sequence once addresses
are taken relative to each copy's start (jumps and calls outside a copy must reach the same
address; data it reads may be its own, such as a switch's jump table).

usage: test_code_copies.py PATH/TO/dpk-bench BODIES
BODIES is how many bodies the build has (18 per ring suite built). Exits 77 (skipped) when GNU
nm or objdump is missing, or, off x86-64, when the copies do not sit at 16-byte steps (on
aarch64 the attribute counts 4-byte NOPs). Prints TAP.
"""
import platform
import re
import shutil
import subprocess
import sys

BIN = sys.argv[1]
BODIES = int(sys.argv[2])
COPY = re.compile(r"^((?:dpk|rte)_(?:spsc|mpmc|rts|hts)_[a-z]+)_(0|16|32|48)$")
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
    """The copy's instructions, each with its offset from @start: a target inside the copy
    becomes +offset, one outside it the symbol and offset it lies at, with a copy's own
    suffix taken off (a copy's .cold part is its own, the code it calls is shared)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={start:#x}",
                          f"--stop-address={start + size:#x}", BIN],
                         capture_output=True, text=True, check=True)
    insns = []
    for line in out.stdout.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S.*)$", line)
        if not m:
            continue
        at, text = int(m.group(1), 16) - start, m.group(2)

        def outside(name):
            return "<" + re.sub(r"_(?:0|16|32|48)(?=\.|\+|$)", "_N", name, count=1) + ">"

        def target(t):
            addr = int(t.group(1), 16)
            if start <= addr < start + size:
                return f"+{addr - start:#x}"
            return outside(t.group(2))
        # A RIP-relative operand: its displacement differs from copy to copy. Inside the
        # copy it must reach the same offset; outside, it reads data (a string, or the jump
        # table of a switch, which each copy has its own of), not code: only its form counts.
        rip = re.search(r"-?0x[0-9a-f]+\(%rip\).*#\s*(?:0x)?([0-9a-f]+)", text)
        if rip:
            addr = int(rip.group(1), 16)
            where = f"+{addr - start:#x}" if start <= addr < start + size else "data"
            text = re.sub(r"-?0x[0-9a-f]+\(%rip\)", f"[{where}](%rip)", text)
            text = re.sub(r"\s*#.*$", "", text)
        text = re.sub(r"\b([0-9a-f]+) <([^>]+)>", target, text)
        insns.append(f"{at:#x} " + re.sub(r"\s+", " ", text))
    return insns


def main():
    gnu = all(shutil.which(t) and "GNU" in subprocess.run([t, "--version"], capture_output=True,
                                                          text=True).stdout
              for t in ("nm", "objdump"))
    if not gnu:
        print("1..0 # SKIP GNU nm or objdump not found (Debian: binutils)")
        return 77
    bodies = symbols()
    x86 = platform.machine() in ("x86_64", "AMD64")
    if not x86 and all(b.get(o, (0, 0))[0] % 64 == 0 for b in bodies.values() for o in OFFSETS):
        print("1..0 # SKIP the copies do not sit at 16-byte steps on this architecture")
        return 77
    tests = [(name, bodies[name]) for name in sorted(bodies)]
    print("TAP version 13")
    print(f"1..{len(tests) + 1}")
    bad = 0
    if len(bodies) != BODIES:
        bad += 1
        print(f"not ok 1 - bodies found\n# {len(bodies)} bodies with copies, {BODIES} expected: "
              f"{sorted(bodies)}")
    else:
        print(f"ok 1 - bodies found: {BODIES}")
    for i, (name, copies) in enumerate(tests, 2):
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
    print(f"# {len(tests) + 1 - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
