/*
 * probe.h: a trace point is one line, SMF_PROBE(), that is both a USDT probe (provider
 * "minismf", for bpftrace and perf: `bpftrace -e 'usdt:./build/startd/svc.startd:minismf:
 * restarter_pg_written { printf("%s\n", str(arg1)); }'`) and an event of the trace recorder.
 *
 * Every probe passes the same two arguments: arg0 the flow id (smf_trace_flow() of the
 * instance's FMRI, 0 when none) and arg1 a C string (the event's string, see
 * docs/trace-format.md "What each event carries"); SMF_PROBE_ARGS() passes the event's two
 * 64-bit arguments (a commit id, a cause, a generation...) as arg2 and arg3.  With tracing off the recorder half is one
 * predictable branch and the USDT half a nop instruction; the string is interned only when
 * tracing is on.
 */
#ifndef SMF_PROBE_H
#define SMF_PROBE_H

#include <sys/sdt.h>

#include "trace.h"

#define SMF_PROBE(name, event, flow, str)                                                          \
	do {                                                                                       \
		uint64_t smf_probe_flow_ = (flow);                                                 \
		const char *smf_probe_str_ = (str);                                                \
		DTRACE_PROBE2(minismf, name, smf_probe_flow_, smf_probe_str_);                     \
		smf_trace_str((event), smf_probe_flow_, smf_probe_str_);                           \
	} while (0)

#define SMF_PROBE_ARGS(name, event, flow, str, a0, a1)                                             \
	do {                                                                                       \
		uint64_t smf_probe_flow_ = (flow), smf_probe_a0_ = (a0), smf_probe_a1_ = (a1);     \
		const char *smf_probe_str_ = (str);                                                \
		DTRACE_PROBE4(minismf, name, smf_probe_flow_, smf_probe_str_, smf_probe_a0_,       \
		        smf_probe_a1_);                                                            \
		smf_trace_str_args(                                                                \
		        (event), smf_probe_flow_, smf_probe_str_, smf_probe_a0_, smf_probe_a1_);   \
	} while (0)

#endif
