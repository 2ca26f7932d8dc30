/* SPDX-License-Identifier: BSD-3-Clause */
/* What the fuzz targets share (fuzz.h). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "json.h"

void dpk_fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dpk-fuzz: wrong answer: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void dpk_fuzz_file_init(struct dpk_fuzz_file *f, const char *name)
{
	f->fd = memfd_create(name, MFD_CLOEXEC);
	if (f->fd < 0)
		dpk_fuzz_fail("memfd_create: cannot make an in-memory file");
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

void dpk_fuzz_file_set(struct dpk_fuzz_file *f, const void *data, size_t n)
{
	const char *p = data;

	if (ftruncate(f->fd, 0) != 0)
		dpk_fuzz_fail("ftruncate of the in-memory file failed");
	for (size_t done = 0; done < n;) {
		ssize_t w = pwrite(f->fd, p + done, n - done, (off_t)done);

		if (w <= 0)
			dpk_fuzz_fail("writing the in-memory file failed");
		done += (size_t)w;
	}
}

FILE *dpk_fuzz_out_open(struct dpk_fuzz_out *o)
{
	o->buf = NULL;
	o->len = 0;
	o->f = open_memstream(&o->buf, &o->len);
	if (!o->f)
		dpk_fuzz_fail("open_memstream failed");
	return o->f;
}

void dpk_fuzz_out_close(struct dpk_fuzz_out *o)
{
	if (o->f && fclose(o->f) != 0)
		dpk_fuzz_fail("closing a memory stream failed");
	o->f = NULL;
}

void dpk_fuzz_out_free(struct dpk_fuzz_out *o)
{
	dpk_fuzz_out_close(o);
	free(o->buf);
	o->buf = NULL;
	o->len = 0;
}

void dpk_fuzz_check_text(const char *what, const char *s, size_t n, bool tabs)
{
	size_t skip;

	for (size_t i = 0; i < n; i += skip) {
		const unsigned char b = (unsigned char)s[i];
		const size_t len = dpk_utf8_seq(s + i, n - i, &skip);

		if (len == 0)
			dpk_fuzz_fail("%s: invalid UTF-8 at byte %zu (0x%02x)", what, i, b);
		if (dpk_utf8_control(s + i, len) && b != '\n' && !(tabs && b == '\t'))
			dpk_fuzz_fail("%s: control character at byte %zu (0x%02x)", what, i, b);
	}
}

uint64_t dpk_fuzz_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}
