/* SPDX-License-Identifier: BSD-3-Clause */
/* fold.c - prose lines of the report folded at their spaces. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Print @p s folded: each piece ends at the last space that keeps it within the columns
 * (UTF-8 continuation bytes take none); a word longer than the line stands whole on its
 * own. Leading spaces stay; a newline in @p s starts a new unindented line. */
static void fold_text(FILE *f, int cols, int indent, const char *s)
{
	bool first = true;

	while (*s) {
		const int room = cols - (first ? 0 : indent);
		const char *cut = NULL, *p = s;
		int col = 0;

		for (; *p && *p != '\n'; p++) {
			if (*p == ' ' && p > s && p[-1] != ' ' && (col <= room || !cut))
				cut = p;
			col += ((unsigned char)*p & 0xc0) != 0x80;
		}
		if (cols <= 0 || col <= room || !cut)
			cut = p;
		fprintf(f, "%*s%.*s\n", first ? 0 : indent, "", (int)(cut - s), s);
		first = false;
		for (s = cut; *s == ' '; s++)
			;
		if (*s == '\n') {
			s++;
			first = true;
		}
	}
}

void dpk_report_fold(FILE *f, int cols, int indent, const char *fmt, ...)
{
	char small[512], *buf = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small)) {
		if (!(buf = malloc((size_t)n + 1)))
			return;
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	fold_text(f, cols, indent, buf);
	if (buf != small)
		free(buf);
}
