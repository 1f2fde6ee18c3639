/*
 * json.h: a streaming JSON writer.  It places the commas itself (a stack of "first element"
 * flags), so callers only say what comes next, and it escapes strings for two readers at
 * once: a JSON parser, and an HTML parser that must not see "</script" or "<!--" inside the
 * <script> element the data is embedded in.  Bytes that are not UTF-8 become U+FFFD, so the
 * output is valid JSON whatever a trace's strings hold.
 */
#ifndef SVCTRACE_JSON_H
#define SVCTRACE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool after_key;
};

void json_init(struct json *j, FILE *f);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s); /* NULL writes null */
void json_uint(struct json *j, uint64_t v);
/* v / 1000 with 3 decimals, exact: microseconds from nanoseconds. */
void json_us(struct json *j, uint64_t ns);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* A 64-bit id as 16 hex digits in a string: JSON numbers lose precision past 2^53. */
void json_hex(struct json *j, uint64_t v);

/* Shorthands for "key": value. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_uint(struct json *j, const char *key, uint64_t v);

#endif
