/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * packet_fixture.h - what the packet tests share (test_packet.c, test_packet_ref.c): a
 * pool made or the case failed, the packets it has out, and a packet filled with a pattern.
 */
#ifndef DPK_TEST_PACKET_FIXTURE_H
#define DPK_TEST_PACKET_FIXTURE_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/lcore.h>
#include <dpk/packet.h>

#include "dpk_test.h"

#define BUF   512u
#define HEAD  64u
#define COUNT 32u

static inline struct dpk_packet_pool *make(unsigned count, unsigned buf, unsigned head,
                                           unsigned uarea, unsigned cache, unsigned flags)
{
	struct dpk_packet_pool_params prm = {
	        .count = count,
	        .buf_size = buf,
	        .headroom = head,
	        .uarea_size = uarea,
	        .cache_size = cache,
	        .flags = flags,
	};
	struct dpk_packet_pool *pp = dpk_packet_pool_create(&prm);

	if (pp == NULL)
		dpk_test_fail(__FILE__, __LINE__, "dpk_packet_pool_create: %s", dpk_last_error());
	return pp;
}

static inline unsigned in_use(struct dpk_packet_pool *pp)
{
	return dpk_pool_in_use_count(dpk_packet_pool_to_pool(pp));
}

/* Fill the data with bytes seed, seed + 1, ... */
static inline void fill(struct dpk_packet *pkt, unsigned char seed)
{
	unsigned char *d = dpk_packet_data(pkt);

	for (uint32_t i = 0; i < dpk_packet_len(pkt); i++)
		d[i] = (unsigned char)(seed + i);
}

#endif /* DPK_TEST_PACKET_FIXTURE_H */
