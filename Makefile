# fanin: set-up, demo, tests, benchmarks.
#
# Set-up is stamped and idempotent: the virtual environment (.venv) is made once, Python
# packages are installed again only when pyproject.toml changes, and the extension is
# rebuilt only when Rust sources change. One release profile serves `cargo test --release`
# and the Python module, so the engine compiles once.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEPS_STAMP := $(VENV)/.fanin-deps
EXT := python/fanin/_native.abi3.so
RUST_SRC := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml)

# Project dependencies + the test extra, read from pyproject.toml (one list, not two).
REQUIREMENTS = $(shell $(BIN)/python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print(" ".join(p["dependencies"] + p["optional-dependencies"]["test"]))')

.PHONY: setup demo test test-debug bench wheel clean testbed-tools browser bpf-tools bpf

setup: $(EXT) testbed-tools browser bpf

# `fanin testbed` needs iproute2 (ip, tc); as root without it, install it, else say so once.
testbed-tools:
	@command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  apt-get update -qq && apt-get install -y -qq iproute2 >/dev/null; } || \
	echo "note: iproute2 is missing (ip/tc): the testbed tests will be skipped"

# The testbed's eBPF programs (proxy, trimmer, Millisampler collector) and their loader are built
# from python/fanin/testbed/bpf/ by clang and cc against libbpf; as root with apt, install them,
# else say so once (the eBPF tests are then skipped). Nothing compiled is committed.
BPF_DIR := python/fanin/testbed/bpf
BPF_OUT := $(BPF_DIR)/build
BPF_OBJS := $(patsubst $(BPF_DIR)/%.bpf.c,$(BPF_OUT)/%.bpf.o,$(wildcard $(BPF_DIR)/*.bpf.c))
BPF_HAVE = command -v clang >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 && [ -f /usr/include/bpf/libbpf.h ]

bpf-tools:
	@$(BPF_HAVE) || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    clang llvm libbpf-dev bpftool gcc libc6-dev linux-libc-dev >/dev/null; } || \
	echo "note: clang/libbpf-dev are missing: the testbed's eBPF tests will be skipped"

bpf: bpf-tools
	@if $(BPF_HAVE); then $(MAKE) --no-print-directory $(BPF_OBJS) $(BPF_OUT)/fanin-bpf; fi

$(BPF_OUT)/%.bpf.o: $(BPF_DIR)/%.bpf.c $(wildcard $(BPF_DIR)/*.h)
	@mkdir -p $(BPF_OUT)
	clang -O2 -g -Wall -target bpf -mcpu=v3 -I/usr/include/$$(uname -m)-linux-gnu -c $< -o $@

$(BPF_OUT)/fanin-bpf: $(BPF_DIR)/loader.c
	@mkdir -p $(BPF_OUT)
	cc -O2 -Wall -o $@ $< -lbpf

# The report test renders report.html in headless Chromium; as root with apt, install Debian's
# chromium (without its recommends: they add systemd, udev and avahi), else say so once.
browser:
	@command -v chromium >/dev/null 2>&1 || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; } || \
	echo "note: chromium is missing: the report browser test will be skipped"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(DEPS_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check 'maturin>=1.5,<2' $(foreach r,$(REQUIREMENTS),'$(r)')
	touch $@

$(EXT): $(DEPS_STAMP) $(RUST_SRC) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --quiet
	touch $@

demo: setup
	$(BIN)/fanin run scenarios/incast_dumbbell.toml -o out/demo --plot out/demo/queue_fct.png

# The PyO3 cdylib links against Python only when loaded, so it has no Rust test binary.
test: setup
	cargo test --release --workspace --exclude fanin-py
	$(BIN)/python -m pytest -q tests

# The engine's tests with debug assertions (the test profile inherits release, so `make
# test` never runs a debug_assert): run once before landing an engine change.
test-debug:
	CARGO_TARGET_DIR=target/debug-assertions cargo test --profile dev -p fanin-engine

bench: setup
	$(BIN)/fanin bench

# A wheel to install elsewhere: manylinux2014 (glibc 2.17, linked through zig), the module
# stripped, the experiment catalog inside the package. Its own target directory, so the
# zig-linked build does not displace the one `make test` uses.
wheel: $(DEPS_STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check 'ziglang>=0.11'
	PATH=$(abspath $(BIN)):$$PATH CARGO_TARGET_DIR=target/wheel $(BIN)/maturin build --release --strip --zig --compatibility manylinux2014 -o dist

clean:
	rm -rf $(VENV) out $(EXT) $(BPF_OUT)
