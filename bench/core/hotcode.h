/* SPDX-License-Identifier: BSD-3-Clause */
/* hotcode.h - where the harness's own code beside every timed batch lies. */
#ifndef DPK_BENCH_HOTCODE_H
#define DPK_BENCH_HOTCODE_H

/**
 * For a function the harness runs beside every timed batch (the batch call, the speed
 * witness, the core-clock chain): it starts a page of its own, so that a change elsewhere in
 * the program (a patched suite, say) leaves it at the same place within its page, and so
 * beside the same predictor and cache sets as the bodies it runs between (docs/method.md,
 * "Harness code").
 */
#define DPK_BENCH_HOT_CODE __attribute__((aligned(4096)))

#endif
