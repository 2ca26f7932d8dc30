/* A producer lcore hands 1000 numbers to the main lcore through an SP/SC ring. */
#include <stdint.h>

#include <dpk/lcore.h>
#include <dpk/ring.h>

static struct dpk_ring *r;

static int producer(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < 1000; i++)
		while (dpk_ring_sp_enqueue(r, &i) != 0)
			dpk_pause();
	return 0;
}

int main(void)
{
	uint64_t v, sum = 0;

	/* main lcore 0 and a worker, lcore 1, both on CPU 0: runs on any machine */
	if (dpk_lcore_init("(0-1)@0") != 0)
		return 1;
	r = dpk_ring_create(sizeof(uint64_t), 1024, DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
	if (!r || dpk_lcore_launch(1, producer, NULL) != 0)
		return 1;
	for (int got = 0; got < 1000;) {
		if (dpk_ring_sc_dequeue(r, &v) == 0) {
			sum += v;
			got++;
		}
	}
	dpk_lcore_wait(1);
	dpk_ring_free(r);
	dpk_lcore_fini();
	return sum == 999 * 1000 / 2 ? 0 : 1;
}
