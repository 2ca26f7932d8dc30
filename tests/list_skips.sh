#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Name the cases that tests skipped inside a run ctest counts as passed (a missing tool, a
# machine without two CPUs), with their reasons, from ctest's log. Tests skipped whole
# (exit 77) ctest lists itself under "did not run".
log=${1:-Testing/Temporary/LastTest.log}
[ -r "$log" ] || exit 0
awk '
/^[0-9]+\/[0-9]+ Testing: / { test = $3 }
/^ok [0-9]+ - .* # SKIP/ {
	sub(/^ok [0-9]+ - /, "")
	skips[++n] = "  " test ": " $0
}
END {
	if (!n)
		exit
	printf "%d case%s skipped inside passing tests:\n", n, (n > 1 ? "s" : "")
	for (i = 1; i <= n; i++)
		print skips[i]
}' "$log"
