/*
 * hash.h: the one hash function of minismf, 64-bit FNV-1a.
 *
 * Every table (hashmap.c, the trace recorder's string table, the delay table's per-point
 * streams) and every derived id (a trace flow per FMRI, a cgroup leaf name) hashes with this,
 * so a change of function is made here once.  FNV-1a is not resistant to chosen collisions;
 * nothing here hashes input from another user into a table a hostile peer can fill (configd's
 * tables are per request and bounded by the request's size).
 */
#ifndef SMF_HASH_H
#define SMF_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SMF_HASH_INIT UINT64_C(0xcbf29ce484222325)
#define SMF_HASH_PRIME UINT64_C(0x100000001b3)

/* Continues hash h over n bytes of p; start with SMF_HASH_INIT. */
static inline uint64_t smf_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * SMF_HASH_PRIME;
	return h;
}

/* Continues hash h over the bytes of s, without its NUL. */
static inline uint64_t smf_hash_str_continue(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * SMF_HASH_PRIME;
	return h;
}

static inline uint64_t smf_hash_str(const char *s)
{
	return smf_hash_str_continue(SMF_HASH_INIT, s);
}

#endif
