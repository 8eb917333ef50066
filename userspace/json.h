/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - a small JSON writer: objects, arrays, strings and integers,
 * compact or indented. It places the commas, colons and newlines; the
 * caller opens and closes in the right order.
 */
#ifndef IPOIBCTL_JSON_H
#define IPOIBCTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Deeper than any object of ipoibctl (entry, bcast or stats: 3). */
#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	bool pretty;		/* newlines and 4-space indentation */
	int depth;		/* open objects and arrays */
	bool empty[JSON_MAX_DEPTH];	/* nothing written yet at a depth */
	bool after_key;		/* a key was written: its value next */
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_obj_open(struct json *j);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j);
void json_arr_close(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_s64(struct json *j, int64_t v);

#endif /* IPOIBCTL_JSON_H */
