#!/usr/bin/env python3
"""trace-edit.py: edits a real trace file, as the fixture of a trace that breaks the protocol.

usage: trace-edit.py TRACE.H FILE move-before EVENT STRING EVENT2 STRING2

Moves the first event named EVENT (a name of trace.h's enum smf_trace_event, e.g.
SMF_TRACE_STARTD_RESTARTER_DEQUEUE) whose string is STRING to 1 ns before the first EVENT2
whose string is STRING2, by rewriting its time stamp in place: in the merged trace the two
events swap order, nothing else changes.  The file format is docs/trace-format.md's (version
2): header, string table, pages of 40-byte events.  Exit 0, or 1 with a message when an event
is not found or the file is not a version 2 trace.
"""

import mmap
import re
import struct
import sys


def die(msg):
    print(f"trace-edit: {msg}", file=sys.stderr)
    sys.exit(1)


def event_ids(trace_h):
    ids = {}
    with open(trace_h) as f:
        for m in re.finditer(r"(SMF_TRACE_[A-Z_]+)\s*=\s*(\d+)", f.read()):
            ids[m.group(1)] = int(m.group(2))
    return ids


def main():
    if len(sys.argv) != 8 or sys.argv[3] != "move-before":
        die(__doc__.split("\n")[2])
    trace_h, path, _, ev_a, str_a, ev_b, str_b = sys.argv[1:]
    ids = event_ids(trace_h)
    for ev in (ev_a, ev_b):
        if ev not in ids:
            die(f"{ev} is not an event of {trace_h}")
    with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0) as data:
        magic, version, header_size, page_size, page_header, event_size, npages = \
            struct.unpack_from("<8sIIIIII", data, 0)
        if magic != b"SMFTRACE" or version != 2:
            die(f"{path}: not a version 2 trace")
        strings_offset, strings_size, pages_offset = struct.unpack_from("<QQQ", data, 40)
        next_page, = struct.unpack_from("<I", data, 128)

        def string(sid):
            if sid == 0:
                return None
            off = strings_offset + (sid - 1) * 4
            n, = struct.unpack_from("<I", data, off)
            if not n & 0x80000000:
                return None
            n &= 0x7fffffff
            return bytes(data[off + 4:off + 4 + n]).decode(errors="replace")

        found = {}
        for page in range(min(next_page, npages)):
            base = pages_offset + page * page_size
            count, = struct.unpack_from("<I", data, base)
            for k in range(count):
                off = base + page_header + k * event_size
                ns, = struct.unpack_from("<Q", data, off)
                sid, event = struct.unpack_from("<IH", data, off + 32)
                for key, ev, s in (("a", ev_a, str_a), ("b", ev_b, str_b)):
                    if key not in found and event == ids[ev] and string(sid) == s:
                        found[key] = (off, ns)
        for key, ev, s in (("a", ev_a, str_a), ("b", ev_b, str_b)):
            if key not in found:
                die(f"{path}: no {ev} with string {s!r}")
        off_a, ns_a = found["a"]
        _, ns_b = found["b"]
        struct.pack_into("<Q", data, off_a, ns_b - 1)
        data.flush()
    print(f"trace-edit: {ev_a} {str_a!r} moved from {ns_a} to {ns_b - 1}, before {ev_b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
