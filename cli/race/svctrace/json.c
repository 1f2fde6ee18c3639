/*
 * json.c: see json.h.
 */
#include <assert.h>
#include <inttypes.h>
#include <string.h>

#include "json.h"

void json_init(json_t *j, FILE *f)
{
	*j = (json_t){.f = f};
	j->first[0] = true;
}

/* Before any value: a comma unless it is the first in its container or follows a key. */
static void json_sep(json_t *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
}

static void json_open(json_t *j, char c)
{
	json_sep(j);
	fputc(c, j->f);
	assert(j->depth + 1 < JSON_MAX_DEPTH);
	j->first[++j->depth] = true;
}

static void json_close(json_t *j, char c)
{
	assert(j->depth > 0);
	j->depth--;
	fputc(c, j->f);
}

void json_begin_object(json_t *j)
{
	json_open(j, '{');
}

void json_end_object(json_t *j)
{
	json_close(j, '}');
}

void json_begin_array(json_t *j)
{
	json_open(j, '[');
}

void json_end_array(json_t *j)
{
	json_close(j, ']');
}

/* The length of the valid UTF-8 sequence at s, or 0 (overlong, surrogate, past U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	        (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void json_escape_char(FILE *f, const unsigned char *s, unsigned char prev)
{
	switch (s[0]) {
	case '"':
		fputs("\\\"", f);
		break;
	case '\\':
		fputs("\\\\", f);
		break;
	case '\n':
		fputs("\\n", f);
		break;
	case '\t':
		fputs("\\t", f);
		break;
	case '\r':
		fputs("\\r", f);
		break;
	case '/':
		/* "</" would end the <script> holding the data. */
		fputs(prev == '<' ? "\\/" : "/", f);
		break;
	case '<':
		/* "<!--" would open an HTML comment inside the script. */
		fputs(s[1] == '!' ? "\\u003c" : "<", f);
		break;
	default:
		if (s[0] < 0x20)
			fprintf(f, "\\u%04x", s[0]);
		else
			fputc(s[0], f);
	}
}

static void json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char prev = 0;

	fputc('"', f);
	while (*s) {
		size_t n = utf8_len(s);

		if (n == 0) {
			fputs("\\ufffd", f);
			s++;
		} else if (n == 1) {
			json_escape_char(f, s, prev);
			prev = *s++;
			continue;
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
		prev = 0;
	}
	fputc('"', f);
}

void json_key(json_t *j, const char *key)
{
	json_sep(j);
	json_write_string(j->f, key);
	fputc(':', j->f);
	j->after_key = true;
}

void json_string(json_t *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_sep(j);
	json_write_string(j->f, s);
}

void json_uint(json_t *j, uint64_t v)
{
	json_sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_int(json_t *j, int64_t v)
{
	json_sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_us(json_t *j, uint64_t ns)
{
	json_sep(j);
	fprintf(j->f, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

void json_bool(json_t *j, bool v)
{
	json_sep(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(json_t *j)
{
	json_sep(j);
	fputs("null", j->f);
}

void json_hex(json_t *j, uint64_t v)
{
	json_sep(j);
	fprintf(j->f, "\"%016" PRIx64 "\"", v);
}

void json_kv_string(json_t *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_uint(json_t *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}
