// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - the JSON writer of json.h (RFC 8259). A value written at the
 * top level (depth 0) ends with a newline, which makes a stream of them
 * JSON lines (monitor -j).
 */
#include <assert.h>
#include <inttypes.h>
#include "json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	*j = (struct json){ .f = f, .pretty = pretty };
}

/* Pretty: a new line, indented to the current depth. */
static void json_indent(struct json *j)
{
	if (j->pretty)
		fprintf(j->f, "\n%*s", 4 * j->depth, "");
}

/* Before a key, or a value that has no key: the comma and the indent. */
static void json_sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0)
		return;
	if (!j->empty[j->depth])
		fputc(',', j->f);
	j->empty[j->depth] = false;
	json_indent(j);
}

static void json_open(struct json *j, char c)
{
	json_sep(j);
	fputc(c, j->f);
	assert(j->depth < JSON_MAX_DEPTH - 1);
	j->empty[++j->depth] = true;
}

/* A closed value at the top level ends its line. */
static void json_close(struct json *j, char c)
{
	assert(j->depth > 0 && !j->after_key);
	j->depth--;
	if (!j->empty[j->depth + 1])
		json_indent(j);
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void json_obj_open(struct json *j)
{
	json_open(j, '{');
}

void json_obj_close(struct json *j)
{
	json_close(j, '}');
}

void json_arr_open(struct json *j)
{
	json_open(j, '[');
}

void json_arr_close(struct json *j)
{
	json_close(j, ']');
}

/*
 * The length of the valid UTF-8 sequence of 2 to 4 bytes at s, or 0:
 * no overlong form, no surrogate, nothing above U+10FFFF (RFC 3629).
 * A NUL ends the check, as it fails the continuation test.
 */
static int utf8_len(const unsigned char *s)
{
	uint32_t cp;
	int n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* One character of s (at least one byte), escaped; returns its length. */
static int json_putc(FILE *f, const unsigned char *s)
{
	int n;

	switch (s[0]) {
	case '"':
	case '\\':
		fprintf(f, "\\%c", s[0]);
		return 1;
	case '\b':
		fputs("\\b", f);
		return 1;
	case '\f':
		fputs("\\f", f);
		return 1;
	case '\n':
		fputs("\\n", f);
		return 1;
	case '\r':
		fputs("\\r", f);
		return 1;
	case '\t':
		fputs("\\t", f);
		return 1;
	}
	if (s[0] < 0x20 || s[0] == 0x7f) {
		fprintf(f, "\\u%04x", s[0]);
		return 1;
	}
	if (s[0] < 0x80) {
		fputc(s[0], f);
		return 1;
	}
	n = utf8_len(s);
	if (n) {
		fwrite(s, 1, n, f);
		return n;
	}
	/* Not UTF-8 (an interface name may hold any byte): as U+0080..FF. */
	fprintf(f, "\\u%04x", s[0]);
	return 1;
}

static void json_putstr(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s)
		s += json_putc(f, s);
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	assert(j->depth > 0 && !j->after_key);
	json_sep(j);
	json_putstr(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

/* A scalar at the top level ends its line, as a closed object does. */
static void json_scalar_end(struct json *j)
{
	if (j->depth == 0)
		fputc('\n', j->f);
}

void json_str(struct json *j, const char *s)
{
	json_sep(j);
	json_putstr(j->f, s);
	json_scalar_end(j);
}

void json_u64(struct json *j, uint64_t v)
{
	json_sep(j);
	fprintf(j->f, "%" PRIu64, v);
	json_scalar_end(j);
}

void json_s64(struct json *j, int64_t v)
{
	json_sep(j);
	fprintf(j->f, "%" PRId64, v);
	json_scalar_end(j);
}
