/* SPDX-License-Identifier: BSD-3-Clause */
/* A program outside the dpkit tree: every public header of libdpkit, strict C11, a call
 * from each. */
#include <errno.h>
#include <stdio.h>

#include <dpk/common.h>
#include <dpk/cycles.h>
#include <dpk/distributor.h>
#include <dpk/lcore.h>
#include <dpk/packet.h>
#include <dpk/pool.h>
#include <dpk/ring.h>
#include <dpk/service.h>
#include <dpk/topology.h>

static int idle(void *arg)
{
	(void)arg;
	return -EAGAIN;
}

int main(void)
{
	struct dpk_ring *r = dpk_ring_create(8, 64, DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
	uint64_t in = 42, out = 0;

	if (!r)
		return 1;
	if (dpk_ring_sp_enqueue(r, &in) != 0 || dpk_ring_sc_dequeue(r, &out) != 0 || out != 42)
		return 2;
	dpk_ring_free(r);

	struct dpk_pool *p = dpk_pool_create(64, 64, 0, 0);
	void *obj;
	if (!p || dpk_pool_get(p, &obj) != 0)
		return 3;
	dpk_pool_put(p, obj);
	if (dpk_pool_avail_count(p) != 64)
		return 4;
	dpk_pool_free(p);

	struct dpk_packet_pool_params prm;
	dpk_packet_pool_params_init(&prm);
	prm.count = 16;
	prm.cache_size = 8;
	struct dpk_packet_pool *pp = dpk_packet_pool_create(&prm);
	struct dpk_packet *pkt = pp ? dpk_packet_alloc(pp, 60) : NULL;
	if (!pkt || dpk_packet_len(pkt) != 60)
		return 5;
	dpk_packet_free(pkt);
	dpk_packet_pool_free(pp);

	struct dpk_service_spec spec = {.name = "c_service", .callback = idle};
	uint32_t id;
	if (dpk_service_register(&spec, &id) != 0 || dpk_service_unregister(id) != 0)
		return 6;
	struct dpk_distributor *d = dpk_distributor_create(1, DPK_DISTRIBUTOR_SINGLE);
	if (!d)
		return 7;
	dpk_distributor_free(d);

	if (dpk_tsc_hz() == 0 || dpk_lcore_id() != DPK_LCORE_ANY || !dpk_topo_system())
		return 8;
	printf("dpkit %s ok, counter %s\n", dpk_version(),
	       dpk_tsc_source_name(dpk_tsc_hz_source()));
	return 0;
}
