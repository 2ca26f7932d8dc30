/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz.h - what the fuzz targets share. A target is LLVMFuzzerTestOneInput(), built with
 * libFuzzer when the compiler has it and with driver.c otherwise; both take the same
 * command line (-max_total_time=S -seed=N -dict=F -artifact_prefix=P, then corpus
 * directories, or input files to replay). A target checks what it computes and, on a
 * wrong answer, fails through dpk_fuzz_fail(), which aborts so that the engine keeps the
 * input as a crash file.
 */
#ifndef DPK_FUZZ_H
#define DPK_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** The entry point of a target: run one input. Always returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Report a wrong answer and abort (the engine then writes the input out). */
_Noreturn void dpk_fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** A file of the process's own (a memfd) that a reader can open by path. */
struct dpk_fuzz_file {
	int fd;
	char path[32]; /**< "/proc/self/fd/N" */
};

/** Create @p f; aborts when the system cannot. */
void dpk_fuzz_file_init(struct dpk_fuzz_file *f, const char *name);

/** Make @p f hold the @p n bytes at @p data, and nothing else. */
void dpk_fuzz_file_set(struct dpk_fuzz_file *f, const void *data, size_t n);

/** Output to memory: open with dpk_fuzz_out_open(), read out.buf after dpk_fuzz_out_close(). */
struct dpk_fuzz_out {
	FILE *f;
	char *buf;
	size_t len;
};

FILE *dpk_fuzz_out_open(struct dpk_fuzz_out *o);
void dpk_fuzz_out_close(struct dpk_fuzz_out *o);
void dpk_fuzz_out_free(struct dpk_fuzz_out *o);

/** Fail unless the @p n bytes at @p s, which @p what names, are well-formed UTF-8 without a
 *  control character other than a newline (and a tab when @p tabs). */
void dpk_fuzz_check_text(const char *what, const char *s, size_t n, bool tabs);

/** A hash of the input, to pick options from deterministically. */
uint64_t dpk_fuzz_hash(const uint8_t *data, size_t size);

#endif /* DPK_FUZZ_H */
