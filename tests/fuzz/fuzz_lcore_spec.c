/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lcore spec parser and the CPU list parser against a model of their grammars, written
 * here apart from src/: for every input both say accept or reject alike, and on accept
 * give the same lcores on the same CPUs. A parsed spec also goes through the checks and
 * the pair search against the machine, and a parsed CPU list through its formatter and
 * back.
 *
 * The grammar (include/dpk/lcore.h), tokens first, then structure:
 *   spec  = group *("," group)
 *   group = set ["@" set]            lcores on the left, CPUs on the right
 *   set   = range | "(" range *("," range) ")"
 *   range = num ["-" num]            low <= high
 *   num   = 1*DIGIT                  lcore < DPK_LCORE_MAX, CPU < DPK_CPU_MAX
 * An lcore may be named once in the whole spec. Without "@", a plain range puts each lcore
 * on the CPU of its number and a parenthesised set lets each run on all of the set.
 */
#include <errno.h>
#include <string.h>

#include <dpk/lcore.h>
#include <dpk/topology.h>

#include "fuzz.h"

/* Longer specs only repeat what shorter ones show. */
#define TEXT_MAX 512

enum tok_kind { T_END, T_NUM, T_CHAR, T_BAD };

struct tok {
	enum tok_kind kind;
	unsigned long value; /* T_NUM: saturated at DPK_CPU_MAX */
	char c;              /* T_CHAR: one of ",()@-" */
};

/* Split @p s into tokens; a character outside digits and ",()@-" is T_BAD. */
static size_t lex(const char *s, struct tok *t, size_t max)
{
	size_t n = 0;

	while (n + 1 < max) {
		if (*s == '\0')
			break;
		if (*s >= '0' && *s <= '9') {
			unsigned long v = 0;

			for (; *s >= '0' && *s <= '9'; s++)
				v = v >= DPK_CPU_MAX ? v : v * 10 + (unsigned long)(*s - '0');
			t[n++] = (struct tok){.kind = T_NUM, .value = v};
		} else if (strchr(",()@-", *s)) {
			t[n++] = (struct tok){.kind = T_CHAR, .c = *s++};
		} else {
			t[n++] = (struct tok){.kind = T_BAD};
			break;
		}
	}
	t[n] = (struct tok){.kind = T_END};
	return n;
}

struct model {
	const struct tok *t;
	size_t i;
	bool have[DPK_LCORE_MAX];
	struct dpk_cpuset cpus[DPK_LCORE_MAX];
};

static bool is_char(const struct model *m, char c)
{
	return m->t[m->i].kind == T_CHAR && m->t[m->i].c == c;
}

/* range = num ["-" num], into @p set; every number below @p limit. */
static bool m_range(struct model *m, unsigned long limit, bool unique, struct dpk_cpuset *set)
{
	unsigned long lo, hi;

	if (m->t[m->i].kind != T_NUM || m->t[m->i].value >= limit)
		return false;
	lo = hi = m->t[m->i++].value;
	if (is_char(m, '-')) {
		m->i++;
		if (m->t[m->i].kind != T_NUM || m->t[m->i].value >= limit)
			return false;
		hi = m->t[m->i++].value;
	}
	if (hi < lo)
		return false;
	for (unsigned long v = lo; v <= hi; v++) {
		if (unique && dpk_cpuset_isset(set, (unsigned)v))
			return false;
		dpk_cpuset_set(set, (unsigned)v);
	}
	return true;
}

/* set = range | "(" range *("," range) ")"; *paren says which. */
static bool m_set(struct model *m, unsigned long limit, bool unique, struct dpk_cpuset *set,
                  bool *paren)
{
	dpk_cpuset_zero(set);
	*paren = is_char(m, '(');
	if (!*paren)
		return m_range(m, limit, unique, set);
	m->i++;
	do {
		if (!m_range(m, limit, unique, set))
			return false;
	} while (is_char(m, ',') && ++m->i);
	if (!is_char(m, ')'))
		return false;
	m->i++;
	return true;
}

static bool m_group(struct model *m)
{
	struct dpk_cpuset ids, cpus;
	bool lparen, rparen, at;
	unsigned id;

	if (!m_set(m, DPK_LCORE_MAX, true, &ids, &lparen))
		return false;
	at = is_char(m, '@');
	if (at && (m->i++, !m_set(m, DPK_CPU_MAX, false, &cpus, &rparen)))
		return false;
	DPK_CPUSET_FOREACH(id, &ids)
	{
		if (m->have[id])
			return false;
		m->have[id] = true;
		if (at) {
			m->cpus[id] = cpus;
		} else if (lparen) {
			m->cpus[id] = ids;
		} else {
			dpk_cpuset_zero(&m->cpus[id]);
			dpk_cpuset_set(&m->cpus[id], id);
		}
	}
	return true;
}

static bool m_spec(struct model *m)
{
	if (m->t[0].kind == T_END)
		return false;
	do {
		if (!m_group(m))
			return false;
	} while (is_char(m, ',') && ++m->i);
	return m->t[m->i].kind == T_END;
}

/* What the model makes of @p text: whether it accepts it, and the spec it describes. */
static bool model_spec(const char *text, struct dpk_lcore_spec *out)
{
	static struct tok t[TEXT_MAX + 2];
	static struct model m;

	lex(text, t, sizeof(t) / sizeof(t[0]));
	memset(&m, 0, sizeof(m));
	m.t = t;
	if (!m_spec(&m))
		return false;
	out->count = 0;
	for (unsigned id = 0; id < DPK_LCORE_MAX; id++)
		if (m.have[id]) {
			out->ids[out->count] = id;
			out->cpus[out->count++] = m.cpus[id];
		}
	return true;
}

/* The CPU list grammar: range *("," range), no parentheses, no "@". */
static bool model_cpulist(const char *text, struct dpk_cpuset *out)
{
	static struct tok t[TEXT_MAX + 2];
	struct model m = {.t = t};

	lex(text, t, sizeof(t) / sizeof(t[0]));
	dpk_cpuset_zero(out);
	if (t[0].kind == T_END)
		return false;
	do {
		if (!m_range(&m, DPK_CPU_MAX, false, out))
			return false;
	} while (is_char(&m, ',') && ++m.i);
	return t[m.i].kind == T_END;
}

static void check_spec(const char *text)
{
	static struct dpk_lcore_spec got, want;
	const int rc = dpk_lcore_spec_parse(text, &got);
	const bool ok = model_spec(text, &want);
	unsigned a, b;

	if ((rc == 0) != ok)
		dpk_fuzz_fail("lcore spec '%.80s': the parser %s it (%d: %s), the model %s", text,
		              rc ? "refuses" : "takes", rc, rc ? dpk_last_error() : "",
		              ok ? "takes it" : "refuses it");
	if (rc) {
		if (rc != -EINVAL || strncmp(dpk_last_error(), "lcore spec", 10) != 0)
			dpk_fuzz_fail("lcore spec '%.80s': refused with %d, \"%s\"", text, rc,
			              dpk_last_error());
		return;
	}
	if (got.count != want.count)
		dpk_fuzz_fail("lcore spec '%.80s': %u lcores, the model %u", text, got.count,
		              want.count);
	for (unsigned i = 0; i < got.count; i++)
		if (got.ids[i] != want.ids[i] || !dpk_cpuset_equal(&got.cpus[i], &want.cpus[i]))
			dpk_fuzz_fail(
			        "lcore spec '%.80s': entry %u is lcore %u, the model's %u, or "
			        "their CPUs differ",
			        text, i, got.ids[i], want.ids[i]);
	/* What follows a parse must take any spec it makes. */
	if (dpk_lcore_spec_check(&got, NULL) == -EINVAL)
		dpk_fuzz_fail("lcore spec '%.80s': the check says the parsed spec is malformed",
		              text);
	for (int p = DPK_PLACE_SMT; p <= DPK_PLACE_OVERSUB; p++)
		if (dpk_lcore_spec_pair(&got, NULL, (enum dpk_placement)p, &a, &b) == 0 &&
		    !(a < b || (p == DPK_PLACE_OVERSUB && a != b)))
			dpk_fuzz_fail("lcore spec '%.80s': pair %u, %u", text, a, b);
}

static void check_cpulist(const char *text)
{
	struct dpk_cpuset got, want, again;
	const int rc = dpk_cpulist_parse(text, &got);
	const bool ok = model_cpulist(text, &want);
	static char buf[DPK_CPU_MAX * 5 + 1];

	if ((rc == 0) != ok)
		dpk_fuzz_fail("CPU list '%.80s': the parser %s it, the model %s", text,
		              rc ? "refuses" : "takes", ok ? "takes it" : "refuses it");
	if (rc)
		return;
	if (!dpk_cpuset_equal(&got, &want))
		dpk_fuzz_fail("CPU list '%.80s': the sets differ", text);
	/* Formatted and parsed again, the same set (the header's size always suffices). */
	dpk_cpulist_format(&got, buf, sizeof(buf));
	if (dpk_cpulist_parse(buf, &again) != 0 || !dpk_cpuset_equal(&got, &again))
		dpk_fuzz_fail("CPU list '%.80s': formatted as '%.80s', which reads back otherwise",
		              text, buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[TEXT_MAX + 1];
	size_t n = size < TEXT_MAX ? size : TEXT_MAX;

	memcpy(text, data, n);
	text[n] = '\0'; /* a NUL in the input ends the string, as it would in argv */
	check_spec(text);
	check_cpulist(text);
	return 0;
}
