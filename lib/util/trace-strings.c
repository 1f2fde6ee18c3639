/*
 * trace-strings.c: the recorder's string table: FMRIs and pg names copied once per process
 * into the file's table and referred to by id from then on (docs/trace-format.md, "String
 * table").  Interning is the one place in the recorder with a lock, so a thread keeps its own
 * cache of the strings it has met and takes the lock only on a miss.
 *
 * A string entry is claimed with one fetch-add on the header's str_cursor, and its length word
 * gets its committed bit (release) only after its bytes are in: a reader never takes a
 * half-copied string for a whole one.  An id, once handed out, names that entry for the life of
 * the file, which is why the caches are emptied when the file is reopened.
 */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "hashmap.h"
#include "macro.h"
#include "trace-recorder.h"
#include "trace.h"

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static hashmap_t *strings; /* string -> its id in the file (as a pointer), under intern_lock */

/* Held across fork() so the child's only thread cannot inherit it locked by a vanished one. */
void trace_strings_lock(void)
{
	pthread_mutex_lock(&intern_lock);
}

void trace_strings_unlock(void)
{
	pthread_mutex_unlock(&intern_lock);
}

/* At close: the ids belong to the file just closed. */
void trace_strings_forget(void)
{
	strings = hashmap_free(strings);
}

/* Copies s into the file's table; its id, or 0 when the table is full. */
static uint32_t trace_store_string(const char *s, size_t len)
{
	trace_header_t *h = trace_file.hdr;
	uint64_t need = trace_string_entry_size(len);
	uint64_t off = __atomic_fetch_add(&h->str_cursor, need, __ATOMIC_RELAXED);
	uint8_t *p;

	if (len >= STR_COMMITTED || off + need > h->strings_size || off / 4 + 1 > UINT32_MAX)
		return 0;
	/* Every claim is a multiple of 4, so an id names exactly one entry's offset. */
	assert(off % 4 == 0 && h->strings_offset + off + need <= h->pages_offset);
	p = trace_file.map + h->strings_offset + off;
	memcpy(p + 4, s, len + 1);
	__atomic_store_n((uint32_t *)p, (uint32_t)len | STR_COMMITTED, __ATOMIC_RELEASE);
	return (uint32_t)(off / 4 + 1);
}

/*
 * The process's string table, consulted on a thread-cache miss with intern_lock held.  The
 * entry is made before the string is copied into the file, so that running out of memory
 * refuses the string without spending room in the file, and it is removed again when the
 * file's table is full.
 */
static uint32_t intern_locked(const char *s)
{
	uint32_t id;
	int r;

	if (!strings && !(strings = hashmap_new()))
		goto refused;
	id = (uint32_t)(uintptr_t)hashmap_get(strings, s);
	if (id != 0)
		return id;
	if (hashmap_put(strings, s, NULL) < 0)
		goto refused;
	id = trace_store_string(s, strlen(s));
	if (id == 0) {
		(void)hashmap_remove(strings, s);
		goto refused;
	}
	r = hashmap_put(strings, s, (void *)(uintptr_t)id);
	assert(r == 0); /* the entry made above: a replacement, no allocation */
	(void)r;
	return id;
refused:
	/* Counted: a reader must know that events with no string may have lost one. */
	__atomic_fetch_add(&trace_file.hdr->str_drops, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * A per-thread cache of interned strings, so that a trace point with a string (SMF_PROBE) takes
 * no lock once its thread has seen that string: a direct-mapped table of (hash, id), each hit
 * confirmed against the copy in the file's string table (complete before its id was handed
 * out).  Emptied when the file is reopened (gen), since ids belong to one file.
 */
#define ICACHE_SLOTS 64

static __thread struct {
	unsigned gen;
	struct {
		uint64_t hash;
		uint32_t id;
	} slot[ICACHE_SLOTS];
} icache;

static const char *string_of(uint32_t id)
{
	uint64_t off = (uint64_t)(id - 1) * 4;

	/* Only ids trace_store_string() handed out for this file are cached. */
	assert(id != 0 && off + 4 < trace_file.hdr->strings_size);
	return (const char *)(trace_file.map + trace_file.hdr->strings_offset + off + 4);
}

uint32_t smf_trace_intern(const char *s)
{
	unsigned gen = __atomic_load_n(&trace_gen, __ATOMIC_RELAXED);
	uint64_t hash;
	uint32_t id;
	size_t k;

	if (!s || !smf_trace_enabled())
		return 0;
	hash = smf_hash_str(s);
	if (icache.gen != gen) {
		memset(&icache, 0, sizeof(icache));
		icache.gen = gen;
	}
	k = hash % ICACHE_SLOTS;
	if (icache.slot[k].id != 0 && icache.slot[k].hash == hash &&
	        streq(string_of(icache.slot[k].id), s))
		return icache.slot[k].id;
	pthread_mutex_lock(&intern_lock);
	id = trace_file.map ? intern_locked(s) : 0;
	pthread_mutex_unlock(&intern_lock);
	if (id != 0) {
		icache.slot[k].hash = hash;
		icache.slot[k].id = id;
	}
	return id;
}
