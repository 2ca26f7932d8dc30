/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A C++ program outside the dpkit tree: every public header, one or more calls from each,
 * and every structure laid out as C lays it out (layout.h). Built as C++17 and C++20 by
 * the install test. DPK_TEST_NO_RING leaves out <dpk/ring.h> and the headers that include
 * it, <dpk/pool.h> and <dpk/packet.h>, for a ring.h that is not yet written for C++.
 */
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <dpk/bench.h>
#include <dpk/common.h>
#include <dpk/cycles.h>
#include <dpk/distributor.h>
#include <dpk/lcore.h>
#include <dpk/service.h>
#include <dpk/topology.h>
#ifndef DPK_TEST_NO_RING
#include <dpk/packet.h>
#include <dpk/pool.h>
#include <dpk/ring.h>
#endif

#include "layout.h"

namespace
{

int failures = 0;

void check(bool ok, const char *what)
{
	if (!ok) {
		std::fprintf(stderr, "consumer.cpp: %s failed: %s\n", what, dpk_last_error());
		failures++;
	}
}

/* Every entry of layout.h as C++ computes it, against C's. */
void check_layout()
{
#define DPK_TEST_ENTRY(v) {#v, (v)},
	static const struct {
		const char *what;
		size_t value;
	} cxx[] = {DPK_TEST_LAYOUT(DPK_TEST_ENTRY)};
#undef DPK_TEST_ENTRY
	const size_t n = sizeof(cxx) / sizeof(cxx[0]);

	check(n == dpk_test_layout_c_count, "the layout lists of C and C++ have one length");
	for (size_t i = 0; i < n && i < dpk_test_layout_c_count; i++)
		if (cxx[i].value != dpk_test_layout_c[i]) {
			std::fprintf(stderr, "consumer.cpp: %s is %zu in C++, %zu in C\n",
			             cxx[i].what, cxx[i].value, dpk_test_layout_c[i]);
			failures++;
		}
	std::printf("layout: %zu sizes, alignments and offsets as in C\n", n);
}

void check_common_cycles_topology()
{
	struct dpk_cpuset s;

	dpk_cpuset_zero(&s);
	dpk_cpuset_set(&s, 3);
	check(dpk_cpuset_count(&s) == 1 && dpk_cpuset_first(&s) == 3, "dpk_cpuset");
	check(dpk_tsc_hz() > 0, "dpk_tsc_hz");
	uint64_t t0 = dpk_tsc_begin();
	check(dpk_tsc_end() >= t0, "dpk_tsc_begin/end");
	check(std::strcmp(dpk_placement_name(DPK_PLACE_CORE), "core") == 0, "dpk_placement_name");
	const struct dpk_topo *topo = dpk_topo_system();
	check(topo != nullptr && dpk_cpuset_count(dpk_topo_online(topo)) > 0, "dpk_topo_system");
}

#ifndef DPK_TEST_NO_RING
struct dpk_ring *ring;

/* Lcore 1: 100 numbers into the ring. */
int producer(void *)
{
	for (uint64_t i = 0; i < 100; i++)
		while (dpk_ring_sp_enqueue(ring, &i) != 0)
			dpk_pause();
	return dpk_lcore_id() == 1 ? 0 : -1;
}

void check_lcore_ring()
{
	uint64_t v, sum = 0;

	ring = dpk_ring_create(sizeof(uint64_t), 64, DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
	check(ring != nullptr, "dpk_ring_create");
	check(dpk_lcore_launch(1, producer, nullptr) == 0, "dpk_lcore_launch");
	for (int got = 0; got < 100;)
		if (dpk_ring_sc_dequeue(ring, &v) == 0) {
			sum += v;
			got++;
		}
	check(dpk_lcore_wait(1) == 0 && sum == 99 * 100 / 2, "lcore 1 through the ring");
	dpk_ring_free(ring);
}

void check_pool_packet()
{
	struct dpk_pool *p = dpk_pool_create(64, 64, 8, 0);
	void *obj = nullptr;

	check(p != nullptr, "dpk_pool_create");
	if (!p)
		return;
	check(dpk_pool_get(p, &obj) == 0 && obj != nullptr, "dpk_pool_get");
	if (obj)
		dpk_pool_put(p, obj);
	check(dpk_pool_avail_count(p) == 64, "dpk_pool_avail_count");
	dpk_pool_free(p);

	struct dpk_packet_pool_params prm;
	dpk_packet_pool_params_init(&prm);
	prm.count = 64;
	prm.cache_size = 8;
	struct dpk_packet_pool *pp = dpk_packet_pool_create(&prm);
	check(pp != nullptr, "dpk_packet_pool_create");
	if (!pp)
		return;
	struct dpk_packet *pkt = dpk_packet_alloc(pp, 60);
	check(pkt != nullptr && dpk_packet_len(pkt) == 60, "dpk_packet_alloc");
	if (pkt) {
		std::memset(dpk_packet_data(pkt), 0xab, 60);
		dpk_packet_free(pkt);
	}
	dpk_packet_pool_free(pp);
}
#else
void check_lcore_ring()
{
	check(dpk_lcore_count() == 2, "dpk_lcore_count");
}

void check_pool_packet()
{
}
#endif

int count_calls(void *arg)
{
	++*static_cast<int *>(arg);
	return 0;
}

void check_service_distributor()
{
	int calls = 0;
	struct dpk_service_spec spec = {"cxx_service", count_calls, &calls, 0};
	uint32_t id;

	check(dpk_service_register(&spec, &id) == 0, "dpk_service_register");
	check(dpk_service_runstate_set(id, true) == 0 &&
	              dpk_service_component_runstate_set(id, true) == 0,
	      "dpk_service_runstate_set");
	check(dpk_service_run_iter_on_app_lcore(id, true) == 0 && calls == 1,
	      "dpk_service_run_iter_on_app_lcore");
	check(dpk_service_runstate_set(id, false) == 0 && dpk_service_unregister(id) == 0,
	      "dpk_service_unregister");

	struct dpk_distributor *d = dpk_distributor_create(2, DPK_DISTRIBUTOR_BURST);
	check(d != nullptr, "dpk_distributor_create");
	dpk_distributor_free(d);
}

uint64_t body_sum(struct dpk_bench_run *run, unsigned, uint64_t n)
{
	uint64_t acc = static_cast<uint64_t>(dpk_bench_param(run->c, "step", 1));

	for (uint64_t i = 0; i < n; i++)
		acc += i;
	DPK_BENCH_KEEP(acc);
	return n;
}

/* A suite defined in C++ (no designated initialisers before C++20), listed by the harness. */
struct dpk_bench_case make_case()
{
	struct dpk_bench_case c = {};

	c.name = "sum";
	c.desc = "one addition";
	c.kind = DPK_BENCH_SINGLE;
	c.unit = DPK_UNIT_ITERATION;
	c.params[0] = {"step", 3};
	c.body = body_sum;
	return c;
}

void check_bench()
{
	static const struct dpk_bench_case cases[] = {make_case()};
	static const struct dpk_bench_suite cxx = {"cxx", "a suite of a C++ program", cases, 1,
	                                           true};
	static const struct dpk_bench_suite *const suites[] = {&cxx, nullptr};
	char arg0[] = "consumer", arg1[] = "list";
	char *argv[] = {arg0, arg1, nullptr};

	check(std::strcmp(dpk_bench_unit_name(DPK_UNIT_CALL), "per call") == 0,
	      "dpk_bench_unit_name");
	check(dpk_bench_param(&cases[0], "step", 0) == 3, "dpk_bench_param");
	check(dpk_bench_dpkit_suites[0] != nullptr, "dpk_bench_dpkit_suites");
	check(dpk_bench_main(2, argv, suites, nullptr) == 0, "dpk_bench_main list");
}

} // namespace

int main()
{
	check_layout();
	check_common_cycles_topology();
	check(dpk_lcore_init("(0-1)@0") == 0 && dpk_lcore_id() == 0, "dpk_lcore_init");
	check_lcore_ring();
	check_pool_packet();
	check(dpk_lcore_fini() == 0, "dpk_lcore_fini");
	check_service_distributor();
	check_bench();
	if (failures)
		return 1;
	std::printf("dpkit %s ok from C++ %ld%s\n", dpk_version(), static_cast<long>(__cplusplus),
#ifdef DPK_TEST_NO_RING
	            ", without ring.h, pool.h and packet.h"
#else
	            ""
#endif
	);
	return 0;
}
