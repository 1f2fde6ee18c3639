# Thin wrapper over meson/ninja: the commands users type.  Every target that builds first runs
# `deps`, which installs missing Debian packages (as root) or says what to install.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
# Seconds each libFuzzer target runs in `make test`.
FUZZ_SECONDS ?= 15
PREFIX     ?= /usr/local
DESTDIR    ?=
MESON      ?= meson
# Extra arguments for `meson test`, e.g. make test TESTARGS='--suite integration'
TESTARGS   ?=

.PHONY: all deps build build-asan build-fuzz test test-asan test-fast bench run install clean stress soak

all: build

deps:
	@tools/deps.sh

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --prefix=$(PREFIX)

$(ASAN_BUILD)/build.ninja:
	$(MESON) setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debug --prefix=$(PREFIX)

build: deps $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)

build-asan: deps $(ASAN_BUILD)/build.ninja
	$(MESON) compile -C $(ASAN_BUILD)

# libFuzzer targets need clang; only they are built in this directory.
$(FUZZ_BUILD)/build.ninja:
	CC=clang $(MESON) setup $(FUZZ_BUILD) -Dfuzz=true -Dbuildtype=debug

build-fuzz: deps $(FUZZ_BUILD)/build.ninja
	$(MESON) compile -C $(FUZZ_BUILD) fuzz-manifest

# Suites of the race harness whose subject is a statistic over many runs of the daemons:
# make test runs them in the normal build only, because under the sanitizers they take ten
# times longer and check nothing the others do not (docs/decisions.md); make test-asan runs
# them too.
ASAN_SKIP_SUITES ?= !svcrace,!stress,!report,!model

# The whole suite in the normal build, then under ASan+UBSan all but the harness's statistical
# suites, then a short fuzzing run.
test: build build-asan build-fuzz
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tools/run-tests.sh $(BUILD) \
		$(ASAN_BUILD)$(if $(ASAN_SKIP_SUITES),@$(ASAN_SKIP_SUITES),) $(FUZZ_BUILD)@fuzz -- $(TESTARGS)

# The whole suite under ASan+UBSan, every suite (about 11 minutes on 2 cores).
test-asan: build-asan
	@tools/run-tests.sh $(ASAN_BUILD) -- $(TESTARGS)

# Only the normal build (quicker while developing).
test-fast: build
	@tools/run-tests.sh $(BUILD) -- $(TESTARGS)

bench: build
	@tools/run-bench.sh $(BUILD)

# Starts configd in a sandbox under the build tree and prints how to point the CLI at it.
run: build
	@tools/run-sandbox.sh $(BUILD) $(if $(STOP),--stop,)

install: build
	DESTDIR=$(DESTDIR) $(MESON) install -C $(BUILD) --no-rebuild

# The import/enable race, reproduced without the import wait and shown fixed with it
# (docs/race.md).  Knobs (empty: the harness's default; tools/stress.sh --help says more):
#   STRESS_WORKERS (2 x cores)  STRESS_SECONDS per phase (30)  STRESS_ITERATIONS per worker
#   instead of seconds  STRESS_DELAY (startd.restarter.before_pg_write=20ms)  STRESS_LOAD busy
#   processes (cores)  STRESS_SEED  STRESS_JSON (stress-results.json)  STRESS_TRACE_JSON
#   (trace.json)  STRESS_REPORT (report.html)  STRESS_TRACING (1; 0: no recorder)  STRESS_TRACE
#   dir for the raw trace files  STRESS_PHASES ("1 2")  STRESS_STOP_AT_FIRST
#   STRESS_ARGS: more options for tools/stress.sh (STRESS_ARGS=--help lists them all)
STRESS_WORKERS    ?=
STRESS_SECONDS    ?=
STRESS_ITERATIONS ?=
STRESS_DELAY      ?= startd.restarter.before_pg_write=20ms
STRESS_LOAD       ?=
STRESS_SEED       ?=
STRESS_JSON       ?= stress-results.json
STRESS_TRACE_JSON ?= trace.json
STRESS_REPORT     ?= report.html
STRESS_TRACING    ?= 1
STRESS_TRACE      ?=
STRESS_PHASES     ?= 1 2
STRESS_STOP_AT_FIRST ?=
STRESS_ARGS       ?=

# Every knob is passed quoted, so paths with blanks and the delay spec survive the shell.
stress: build
	@STRESS_WORKERS='$(STRESS_WORKERS)' STRESS_SECONDS='$(STRESS_SECONDS)' \
		STRESS_ITERATIONS='$(STRESS_ITERATIONS)' STRESS_DELAY='$(STRESS_DELAY)' \
		STRESS_LOAD='$(STRESS_LOAD)' STRESS_SEED='$(STRESS_SEED)' \
		STRESS_JSON='$(STRESS_JSON)' STRESS_TRACE_JSON='$(STRESS_TRACE_JSON)' \
		STRESS_REPORT='$(STRESS_REPORT)' STRESS_TRACING='$(STRESS_TRACING)' \
		STRESS_TRACE='$(STRESS_TRACE)' STRESS_PHASES='$(STRESS_PHASES)' \
		STRESS_STOP_AT_FIRST='$(STRESS_STOP_AT_FIRST)' tools/stress.sh $(STRESS_ARGS) '$(BUILD)'

# The SPIN model of the import/enable protocol (docs/model.md): every fix variant against every
# client kind, the counter-example of the unfixed protocol and its SMF_DELAY schedule.  Needs no
# build.  MODEL_ARGS: more options for tools/model.sh (MODEL_ARGS=--help lists them).
MODEL_ARGS ?=
.PHONY: model
model: deps
	@tools/model.sh $(MODEL_ARGS)

# svc.configd under a flood of hostile local peers (as nobody: run as root), beside normal
# clients importing and enabling (tools/soak.sh, docs/security.md; not part of make test).
# About 5 minutes.  Knobs: SOAK_SECONDS per phase (120), SOAK_CLIENTS normal clients (2).
SOAK_SECONDS ?=
SOAK_CLIENTS ?=

soak: build
	@SOAK_SECONDS='$(SOAK_SECONDS)' SOAK_CLIENTS='$(SOAK_CLIENTS)' tools/soak.sh '$(BUILD)'

# illumos' own SMF test suite (../shared/illumos-stc) against the build: root and ksh, about ten
# minutes, not part of make test.  CONFORMANCE_AREAS: some areas only (e.g. svccfg/add).
CONFORMANCE_AREAS ?=
.PHONY: conformance
conformance: build
	@tools/conformance.sh '$(BUILD)' $(CONFORMANCE_AREAS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
