# nccl-triage - GNU Makefile.
#   make            build ./nccl-triage
#   make demo       analyse the bundled sample ticket and print the report
#   make check      every test: unit, golden, CLI, check-db, catalog, fuzz replays, the ASan+UBSan
#                   suite, and the multi-threaded suites under ThreadSanitizer
#   make install PREFIX=/usr/local
# Needs PCRE2 (8-bit), cJSON and zlib through pkg-config; `make deps` installs the
# Debian -dev packages when they are missing (as root).  No CUDA or NCCL at build time.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/nccl-triage
MANDIR ?= $(PREFIX)/share/man/man1
CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := libpcre2-8 libcjson zlib
VERSION := 0.1.0

HAVE_DEPS := $(shell $(PKG_CONFIG) --exists $(PKGS) 2>/dev/null && echo yes)
ifeq ($(HAVE_DEPS),yes)
DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
DEP_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS))
endif

# Intel ISA-L's inflater for .gz and .tar.gz when its -dev package is there
# (Debian libisal-dev; `make deps` installs it); zlib otherwise, or with ISAL=0.
ISAL ?= 1
ifeq ($(ISAL),1)
HAVE_ISAL := $(shell $(PKG_CONFIG) --exists libisal 2>/dev/null && echo yes)
endif
ifeq ($(HAVE_ISAL),yes)
DEP_CFLAGS += $(shell $(PKG_CONFIG) --cflags libisal) -DNT_HAVE_ISAL=1
DEP_LIBS += $(shell $(PKG_CONFIG) --libs libisal)
endif

CFLAGS ?= -O2 -g
WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARNINGS) $(CFLAGS) $(DEP_CFLAGS) \
	-DNT_VERSION='"$(VERSION)"' -DNT_DATADIR='"$(DATADIR)"'
LDLIBS := $(DEP_LIBS) -lpthread -ldl -lm

# analyzer/LAYER/*.c (docs/architecture.md): the library is every layer but
# cli/, as zstd's lib/ without programs/; the program adds cli/.
LAYERS := base input parse match rules engine report verify collect
LIB_SRC := $(sort $(foreach l,$(LAYERS),$(wildcard analyzer/$(l)/*.c)))
CLI_SRC := $(sort $(filter-out analyzer/cli/main.c,$(wildcard analyzer/cli/*.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))

B ?= build
LIB_OBJ := $(LIB_SRC:analyzer/%.c=$(B)/obj/%.o)
CLI_OBJ := $(CLI_SRC:analyzer/%.c=$(B)/obj/%.o)
LIB := $(B)/libnccltriage.a
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz-replay/%)
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(B)/tools/%)

.PHONY: all deps demo check check-fast check-asan check-tsan check-db catalog calibration coverage install clean fuzz bench unexplained floor

all: deps-ok nccl-triage

deps-ok:
	@$(PKG_CONFIG) --exists $(PKGS) 2>/dev/null || { \
	  echo "nccl-triage: missing build dependencies ($(PKGS)); run 'make deps' (installs the Debian -dev packages, needs root)" >&2; exit 1; }

deps:
	@sh scripts/install-deps.sh

nccl-triage: $(B)/obj/cli/main.o $(CLI_OBJ) $(LIB)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS) $(LDFLAGS)

# order-only deps-ok: under -j the missing-package message comes before any compiler error
$(B)/obj/%.o: analyzer/%.c analyzer/*/*.h | deps-ok
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ianalyzer -c -o $@ $<

$(LIB): $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# unit tests may test a command (test_sys_mem: mem): the cli objects come with them
$(B)/tests/%: tests/unit/%.c tests/unit/testlib.h $(CLI_OBJ) $(LIB) | $(B)/tests
	$(CC) $(ALL_CFLAGS) -Ianalyzer -Itests/unit -o $@ $< $(CLI_OBJ) $(LIB) $(LDLIBS) $(LDFLAGS)

# Fuzz targets built as plain programs that replay their corpus (tests/fuzz/corpus/NAME).
$(B)/fuzz-replay/%: tests/fuzz/%.c tests/fuzz/replay_main.c $(LIB) | $(B)/fuzz-replay
	$(CC) $(ALL_CFLAGS) -Ianalyzer -o $@ $< tests/fuzz/replay_main.c $(LIB) $(LDLIBS) $(LDFLAGS)

$(B)/tools/%: tests/tools/%.c | $(B)/tools
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS) $(LDFLAGS)

$(B)/tests $(B)/fuzz-replay $(B)/tools:
	mkdir -p $@

demo: deps
	@$(MAKE) --no-print-directory nccl-triage
	./nccl-triage analyze fixtures/demo/ticket-oom.tar.gz; test $$? -le 1

# The whole suite.  The last line says how many tests passed and failed.
check: deps
	@sh tests/deps.sh
	@rm -f build/test-totals build-asan/test-totals build-tsan/test-totals
	@$(MAKE) --no-print-directory check-fast; a=$$?; \
	 $(MAKE) --no-print-directory check-asan; b=$$?; \
	 $(MAKE) --no-print-directory check-tsan; c=$$?; \
	 set -- $$(cat build/test-totals 2>/dev/null || echo 0 1) $$(cat build-asan/test-totals 2>/dev/null || echo 0 1) \
	        $$(cat build-tsan/test-totals 2>/dev/null || echo 0 1); \
	 echo "make check: normal build $$1 passed, $$2 failed; ASan+UBSan build $$3 passed, $$4 failed; TSan build $$5 passed, $$6 failed"; \
	 echo "total: $$(($$1 + $$3 + $$5)) passed, $$(($$2 + $$4 + $$6)) failed"; \
	 test $$a -eq 0 -a $$b -eq 0 -a $$c -eq 0

check-fast: nccl-triage $(UNIT_BIN) $(FUZZ_BIN) $(TOOL_BIN)
	@sh tests/run.sh $(B) ./nccl-triage

check-asan:
	@$(MAKE) --no-print-directory B=build-asan CC=clang \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DNT_SPAN_CHECK" \
	  LDFLAGS="-fsanitize=address,undefined" build-asan/nccl-triage-asan build-asan-tests
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  sh tests/run.sh build-asan build-asan/nccl-triage-asan

build-asan-tests: $(UNIT_BIN) $(FUZZ_BIN) $(TOOL_BIN)

# ThreadSanitizer: the suites that run threads (analyze -j2, batch -jN, run's sinks);
# a data race fails the run (exit 66).
check-tsan:
	@$(MAKE) --no-print-directory B=build-tsan CC=clang \
	  CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" build-tsan/nccl-triage-tsan
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66" NT_SUITES="threads batch collect" \
	  sh tests/run.sh build-tsan build-tsan/nccl-triage-tsan

$(B)/nccl-triage-asan $(B)/nccl-triage-tsan: $(B)/obj/cli/main.o $(CLI_OBJ) $(LIB)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS) $(LDFLAGS)

# libFuzzer: every tests/fuzz/fuzz_*.c for FUZZ_SECONDS each (corpus in
# tests/fuzz/corpus/NAME, findings in tests/fuzz/crashes/); FUZZ_JOBS=2 runs two
# at a time; FUZZ_TARGETS="tar gzip" picks some.  See docs/hardening.md.
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_TARGETS ?=
fuzz:
	@$(MAKE) --no-print-directory B=build-fuzz CC=clang \
	  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -DNT_SPAN_CHECK" \
	  build-fuzz/libnccltriage.a
	FUZZ_JOBS=$(FUZZ_JOBS) CC=clang sh tests/fuzz/run-fuzz.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

check-db: nccl-triage
	./nccl-triage check-db patterns

# The failure-word lines of the corpora that nothing explains (tests/unexplained/run.sh; part
# of make check): empty, or each gets a signature, a derived row, a benign entry or an exemption.
unexplained: nccl-triage
	sh tests/unexplained/run.sh ./nccl-triage

# The keyword floor against the tool on the learn set (tests/floor/run.sh; part of make check).
floor: nccl-triage $(B)/tools/jsonproj
	sh tests/floor/run.sh ./nccl-triage

catalog: nccl-triage
	./nccl-triage list --format md > docs/catalog.md
	./nccl-triage coverage --format md > docs/coverage.md

# docs/calibration.md: how often a diagnosis given at each confidence is right
# on the learn set (tests/calibration/run.sh keeps it current)
calibration: nccl-triage
	tests/accuracy/score --calibration-md $$(ls tests/learn/expected*.tsv) > docs/calibration.md

coverage: nccl-triage
	./nccl-triage coverage --format md > docs/coverage.md

# bench/run.sh: the corpora built from the repository, ripgrep installed when
# missing (as root); prints the table of bench/README.md (minutes: not a test)
bench: deps nccl-triage
	sh bench/run.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/patterns $(DESTDIR)$(MANDIR)
	install -m 755 nccl-triage $(DESTDIR)$(BINDIR)/nccl-triage
	install -m 644 patterns/*.json $(DESTDIR)$(DATADIR)/patterns/
	install -m 644 patterns/nccl_sites.tsv $(DESTDIR)$(DATADIR)/patterns/
	install -d $(DESTDIR)$(DATADIR)/patterns/coverage
	install -m 644 patterns/coverage/*.tsv $(DESTDIR)$(DATADIR)/patterns/coverage/
	install -m 644 docs/nccl-triage.1 $(DESTDIR)$(MANDIR)/nccl-triage.1

clean:
	rm -rf build build-asan build-tsan build-fuzz nccl-triage
