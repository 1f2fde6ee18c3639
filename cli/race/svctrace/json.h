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

typedef struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool after_key;
} json_t;

void json_init(json_t *j, FILE *f);
void json_begin_object(json_t *j);
void json_end_object(json_t *j);
void json_begin_array(json_t *j);
void json_end_array(json_t *j);
void json_key(json_t *j, const char *key);
void json_string(json_t *j, const char *s); /* NULL writes null */
void json_uint(json_t *j, uint64_t v);
void json_int(json_t *j, int64_t v);
/* v / 1000 with 3 decimals, exact: microseconds from nanoseconds. */
void json_us(json_t *j, uint64_t ns);
void json_bool(json_t *j, bool v);
void json_null(json_t *j);
/* A 64-bit id as 16 hex digits in a string: JSON numbers lose precision past 2^53. */
void json_hex(json_t *j, uint64_t v);

/* Shorthands for "key": value. */
void json_kv_string(json_t *j, const char *key, const char *s);
void json_kv_uint(json_t *j, const char *key, uint64_t v);

#endif
