/*
 * trace-read.c: the reader of trace files: a file mapped read-only, checked against its own
 * size, and walked page by page (docs/trace-format.md).  A library of its own
 * (trace_reader_dep): svctrace and the tests read traces, the daemons and the CLI only record
 * them, and do not carry this.
 *
 * A file may belong to a process that is still writing or that was killed at any instant, so
 * nothing in it is trusted: every size and offset is checked against the file before it is
 * used, a page yields only the events its count (loaded with acquire) covers, and a string
 * only once its committed bit is set and its NUL is where its length says (the writer's side
 * of these rules is the theory statement in trace.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "trace-format.h"
#include "trace-reader.h"

typedef struct trace_map {
	const uint8_t *map;
	size_t size;
} trace_map_t;

static void trace_unmapp(trace_map_t *m)
{
	if (m->map)
		(void)munmap((void *)m->map, m->size);
}

/* Checks every size and offset the walk will use against the real file size. */
static int trace_validate(const trace_map_t *m)
{
	const trace_header_t *h = (const void *)m->map;

	uint32_t version = __atomic_load_n(&h->version, __ATOMIC_ACQUIRE);

	/* Version 0: a file being created, not a trace yet. */
	if (memcmp(h->magic, TRACE_MAGIC, sizeof(h->magic)) != 0 || version == 0)
		return -EBADMSG;
	if (version != TRACE_VERSION)
		return -EPROTONOSUPPORT;
	if (h->header_size != TRACE_HEADER_SIZE || h->page_size != TRACE_PAGE_SIZE ||
	        h->page_header_size != sizeof(trace_page_header_t) ||
	        h->event_size != sizeof(trace_event_t))
		return -EBADMSG;
	if (h->strings_offset < TRACE_HEADER_SIZE || h->strings_size > m->size ||
	        h->strings_offset > m->size - h->strings_size)
		return -EBADMSG;
	if (h->pages_offset > m->size ||
	        (uint64_t)h->npages > (m->size - h->pages_offset) / TRACE_PAGE_SIZE)
		return -EBADMSG;
	return 0;
}

/* Maps a trace file read-only and checks its header; on failure nothing stays mapped. */
static int trace_map_file(const char *path, trace_map_t *ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;
	int r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size < TRACE_HEADER_SIZE)
		return -EBADMSG;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	ret->map = p;
	ret->size = (size_t)st.st_size;
	r = trace_validate(ret);
	if (r < 0) {
		trace_unmapp(ret);
		*ret = (trace_map_t){};
	}
	return r;
}

static const char *trace_string(const trace_map_t *m, uint32_t id)
{
	const trace_header_t *h = (const void *)m->map;
	uint64_t off = ((uint64_t)id - 1) * 4;
	const uint8_t *p;
	uint32_t w, len;

	if (id == 0 || off + 4 > h->strings_size)
		return NULL;
	p = m->map + h->strings_offset + off;
	w = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
	if (!(w & STR_COMMITTED))
		return NULL;
	len = w & ~STR_COMMITTED;
	if (off + 4 + (uint64_t)len + 1 > h->strings_size || p[4 + len] != '\0')
		return NULL;
	return (const char *)p + 4;
}

static void trace_fill_info(const trace_header_t *h, smf_trace_file_info_t *info)
{
	uint32_t used = __atomic_load_n(&h->next_page, __ATOMIC_ACQUIRE);

	memset(info, 0, sizeof(*info));
	memcpy(info->prog, h->prog, sizeof(info->prog) - 1);
	info->pid = h->pid;
	info->ppid = h->ppid;
	info->sid = h->sid;
	info->pgid = h->pgid;
	info->page_size = h->page_size;
	info->npages = h->npages;
	info->pages_used = used < h->npages ? used : h->npages;
	info->drops = __atomic_load_n(&h->drops, __ATOMIC_RELAXED);
	info->str_drops = __atomic_load_n(&h->str_drops, __ATOMIC_RELAXED);
	info->start_ns = h->start_ns;
}

static int trace_walk_page(const trace_map_t *m, uint32_t idx, const smf_trace_file_info_t *info,
        smf_trace_read_cb cb, void *userdata)
{
	const trace_header_t *h = (const void *)m->map;
	const trace_page_header_t *ph =
	        (const void *)(m->map + h->pages_offset + (uint64_t)idx * TRACE_PAGE_SIZE);
	const trace_event_t *ev = (const void *)(ph + 1);
	uint32_t n = __atomic_load_n(&ph->count, __ATOMIC_ACQUIRE);

	if (n > EVENTS_PER_PAGE)
		n = EVENTS_PER_PAGE;
	for (uint32_t i = 0; i < n; i++) {
		smf_trace_record_t rec = {
		        .file = info,
		        .ns = ev[i].ns,
		        .flow = ev[i].flow,
		        .pid = ph->pid,
		        .tid = ph->tid,
		        .str_id = ev[i].str,
		        .str = trace_string(m, ev[i].str),
		        .arg0 = ev[i].arg0,
		        .arg1 = ev[i].arg1,
		        .event = ev[i].event,
		        .page = idx,
		        .page_seq = ph->seq,
		};
		int r = cb(&rec, userdata);

		if (r < 0)
			return r;
	}
	return 0;
}

int smf_trace_read(
        const char *path, smf_trace_read_cb cb, void *userdata, smf_trace_file_info_t *ret_info)
{
	_cleanup_(trace_unmapp) trace_map_t m = {};
	smf_trace_file_info_t info;
	int r;

	r = trace_map_file(path, &m);
	if (r < 0)
		return r;
	trace_fill_info((const void *)m.map, &info);
	for (uint32_t i = 0; cb && i < info.pages_used; i++) {
		r = trace_walk_page(&m, i, &info, cb, userdata);
		if (r < 0)
			return r;
	}
	if (ret_info)
		*ret_info = info;
	return 0;
}

int smf_trace_read_strings(const char *path, smf_trace_string_cb cb, void *userdata)
{
	_cleanup_(trace_unmapp) trace_map_t m = {};
	const trace_header_t *h;
	uint64_t end;
	int r;

	r = trace_map_file(path, &m);
	if (r < 0)
		return r;
	h = (const void *)m.map;
	end = __atomic_load_n(&h->str_cursor, __ATOMIC_ACQUIRE);
	if (end > h->strings_size)
		end = h->strings_size;
	/* An entry claimed but never committed (writer killed) has no known size: stop there. */
	for (uint64_t off = 0; off + 4 <= end;) {
		uint32_t id = (uint32_t)(off / 4 + 1);
		const char *s = trace_string(&m, id);

		if (!s)
			break;
		r = cb(id, s, userdata);
		if (r < 0)
			return r;
		off += trace_string_entry_size(strlen(s));
	}
	return 0;
}
