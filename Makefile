# Thin wrapper over CMake + Ninja. `make run` and `make test` are the two set-up
# commands in the README; both install missing build dependencies first.
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
CMAKE_FLAGS ?=
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps deps-dev configure build run test test-fast test-asan test-tsan fuzz-smoke lint install uninstall deb clean bench bench-quick bench-guard

all: build

# What building and installing needs; deps-dev adds the tests', the CI gates'
# and the benchmarks' tools.
deps:
	@scripts/install-deps.sh

deps-dev:
	@scripts/install-deps.sh --dev

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/zero $(ARGS)

# The whole suite, then the whole suite again under ASan + UBSan.
test: test-fast test-asan

# Configured again here: a build made before deps-dev has no tests in it.
# --no-tests=error: a suite that found no tests fails rather than passes.
test-fast: deps-dev
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)

test-asan: deps-dev
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DZERO_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure --no-tests=error -j $(JOBS)

# The tests that run threads (the parallel walker and the tools over it, the
# agent loop's parallel tool calls, MCP over HTTP, the search index's shards,
# the HTTP client) under ThreadSanitizer. Only these are built: the rest are
# single-threaded, and a TSan build is slow. A race fails the run
# (halt_on_error); tests/tsan.supp lists verified false positives only.
TSAN_TESTS ?= test_walk test_tools_search test_agent_loop test_mcp test_search test_http test_cancel
# End-to-end tests run against the TSan zero: `zero acp` runs the prompts of
# several sessions at once (a race aborts zero, which fails the test).
TSAN_E2E ?= test_acp_concurrent
test-tsan: deps-dev
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DZERO_TSAN=ON $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target zero $(TSAN_TESTS)
	cd $(TSAN_BUILD) && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --output-on-failure -j $(JOBS) -R '^unit/($(shell echo $(TSAN_TESTS) | tr ' ' '|'))$$'
	for t in $(TSAN_E2E); do ZERO_BIN=$(CURDIR)/$(TSAN_BUILD)/zero \
	  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  python3 tests/e2e/$$t.py || exit 1; done

# Every fuzz target for a bounded time with clang (scripts/fuzz-smoke.sh).
fuzz-smoke:
	scripts/fuzz-smoke.sh

# clang-tidy over the tree and clang-format over changed lines (scripts/lint.sh).
lint:
	scripts/lint.sh

# Installs the binary, its sandbox helper, the man pages, the shell
# completions and docs/ under $(PREFIX) ($(DESTDIR) honoured); uninstall
# removes every file the last install wrote (CMake's install manifest) and the
# directories that only zero used.
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

uninstall:
	@test -f $(BUILD)/install_manifest.txt || { echo "uninstall: no $(BUILD)/install_manifest.txt (run make install first)" >&2; exit 1; }
	@sed 's|^|$(DESTDIR)|' $(BUILD)/install_manifest.txt | xargs -d '\n' rm -f --
	@for d in libexec/zero share/doc/zero/perf share/doc/zero; do rmdir "$(DESTDIR)$(PREFIX)/$$d" 2>/dev/null || true; done
	@echo "uninstall: removed $$(wc -l < $(BUILD)/install_manifest.txt) files"

# A Debian package of a Release build (scripts/make-deb.sh): build-deb/zero_<version>_<arch>.deb.
deb: deps
	scripts/make-deb.sh

# The performance lab (zero vs Codex, Gemini CLI, opencode; ~15-20 min; rewrites
# docs/PERFORMANCE.md), the quick spine figures (30 s), the instruction-count guard.
bench: deps-dev
	bench/lab/run

bench-quick: build
	bench/run

bench-guard: deps-dev
	bench/lab/run --guard

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) build-fuzz build-lint build-deb
