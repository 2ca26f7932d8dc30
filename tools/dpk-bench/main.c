/* SPDX-License-Identifier: BSD-3-Clause */
/* dpk-bench: dpkit's suites and, where the build found them, the peers' (DPDK, ck). */
#include <dpk/bench.h>

#include "peers.h"
#include "suites.h"

int main(int argc, char **argv)
{
	dpk_bench_library("DPDK", dpk_bench_peer_dpdk);
	dpk_bench_library("ck", dpk_bench_peer_ck);
	return dpk_bench_main(argc, argv, dpk_bench_dpkit_suites, dpk_bench_peer_suites, NULL);
}
