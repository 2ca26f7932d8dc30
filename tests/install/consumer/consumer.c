/* A program outside the dpkit tree: every public header, strict C11, one call each. */
#include <stdio.h>

#include <dpk/common.h>
#include <dpk/cycles.h>
#include <dpk/lcore.h>
#include <dpk/packet.h>
#include <dpk/pool.h>
#include <dpk/ring.h>
#include <dpk/topology.h>

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
		return 4;
	dpk_pool_put(p, obj);
	if (dpk_pool_avail_count(p) != 64)
		return 5;
	dpk_pool_free(p);
	if (dpk_tsc_hz() == 0)
		return 3;
	printf("dpkit %s ok, counter %s\n", dpk_version(),
	       dpk_tsc_source_name(dpk_tsc_hz_source()));
	return 0;
}
