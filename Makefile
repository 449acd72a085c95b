# hwgen — every target sets up .venv from PyPI on first use (and Icarus Verilog via apt-get
# where it is missing and apt-get is available: nothing on PyPI ships Icarus).
VENV    := .venv
PY      := $(VENV)/bin/python
HWGEN   := $(VENV)/bin/hwgen
STAMP   := $(VENV)/.installed
DESIGN  ?= hwgen/examples/gemm_os.py
PARAMS  ?=
OUT     ?= build/$(basename $(notdir $(DESIGN)))
SIM     ?= verilator
DEVICE  ?= ecp5-85k
BOARD   ?= ulx3s-85f
LANES   ?= auto
JOBS    ?= 2

.PHONY: all setup demo test verilog sim timing bitstream graph bench clean iverilog

all: demo

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[dev]'
	touch $(STAMP)

# Icarus Verilog is not on PyPI: install Debian's package when it is missing (needs root).
iverilog:
	@command -v iverilog >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "installing Icarus Verilog (apt-get install iverilog)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iverilog) >/dev/null; \
	  else echo "warning: iverilog missing and cannot be installed here; Icarus tests will fail"; fi; }

setup: $(STAMP) iverilog

demo: setup
	$(HWGEN) demo $(DESIGN) --params "$(PARAMS)" --out $(OUT) --sim $(SIM) --device $(DEVICE)

test: setup
	$(PY) -m pytest -n $(JOBS) -q tests

verilog: setup
	$(HWGEN) build $(DESIGN) --params "$(PARAMS)" --out $(OUT) --lanes $(LANES)

sim: setup
	$(HWGEN) sim $(DESIGN) --params "$(PARAMS)" --out $(OUT) --sim $(SIM) --lanes $(LANES)

timing: setup
	$(HWGEN) timing $(DESIGN) --params "$(PARAMS)" --out $(OUT) --device $(DEVICE) --lanes $(LANES)

bitstream: setup
	$(HWGEN) bitstream $(DESIGN) --params "$(PARAMS)" --out $(OUT) --board $(BOARD)

graph: setup
	$(HWGEN) graph $(DESIGN) --params "$(PARAMS)" --out $(OUT)/graph.svg

# Generated vs hand-written vs device limit on ECP5-85k (4x4, 8x8, 12x12; 3 seeds) and the
# largest array on the iCE40 UP5K; results in build/bench/. Takes about an hour on 2 cores.
bench: setup
	$(PY) benchmarks/bench.py $(BENCH_ARGS)

clean:
	rm -rf build sim_build .pytest_cache
