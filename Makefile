# hwgen — every target sets up .venv from PyPI on first use (and Icarus Verilog via apt-get
# where it is missing and apt-get is available: nothing on PyPI ships Icarus).
VENV    := .venv
PY      := $(VENV)/bin/python
HWGEN   := $(VENV)/bin/hwgen
STAMP   := $(VENV)/.installed
DESIGN  ?= hwgen/examples/gemm_os.py
PARAMS  ?=
OUT     ?=
OUTARG   = $(if $(OUT),--out $(OUT))
SIM     ?= auto
DEVICE  ?= ecp5-85k
BOARD   ?= ulx3s-85f
LANES   ?= auto
EXPR    ?= C[i,j] += A[i,k] * B[k,j]
SIZES   ?= i=8 j=8 k=32
ARRAY   ?= 4x4
DSE     := --expr "$(EXPR)" --sizes "$(SIZES)" --array $(ARRAY)
# Exploration flags reach a design command only when DESIGN is a point of one (dse:...); for a
# program, ARRAY given on the command line folds its task grids onto that PE array, and budgets
# PES, DSPS, BRAMS, PORTS (host-port pins), LUTS (for multiplies in logic beyond the DSP blocks)
# fold them onto the fastest array shape within them (docs/mapping.md).
BUDGET   = $(if $(PES),--pes $(PES)) $(if $(DSPS),--dsps $(DSPS)) $(if $(BRAMS),--brams $(BRAMS)) \
           $(if $(PORTS),--ports $(PORTS)) $(if $(LUTS),--luts $(LUTS))
DSEARG   = $(if $(filter dse:%,$(DESIGN)),$(DSE) $(BUDGET),$(if $(filter command line,$(origin ARRAY)),--array $(ARRAY)) $(BUDGET))
JOBS    ?= 2
# make dse MEASURE=1: place and route the Pareto front (nextpnr SEEDS), on a local pool or the
# Dask scheduler at CLUSTER=tcp://host:port.
MEASURE ?=
CLUSTER ?=
SEEDS   ?= 1
# make timing ROUTER=router2: nextpnr's other router, for dense designs.
ROUTER  ?= router1
MEASUREARG = $(if $(or $(filter-out 0 no false,$(MEASURE)),$(CLUSTER)),--measure --seeds $(SEEDS)) \
	$(if $(CLUSTER),--cluster $(CLUSTER))

.PHONY: all setup demo test test-fast test-all check verilog sim timing bitstream graph fusion dse layers bench clean iverilog formal campaign run allo digits train-digits model train-models

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
	$(HWGEN) demo "$(DESIGN)" --params "$(PARAMS)" $(OUTARG) --sim $(SIM) --device $(DEVICE)

# The suite (what CI runs), the everyday tier (no place-and-route, Icarus only, no test that
# took 1.25 s or more in the run recorded in tests/durations.json: heavy) and everything (the slow
# tier too: wide sweeps, the longest proofs, every example on Verilator).
test: setup
	$(PY) -m pytest -n $(JOBS) --dist worksteal -q tests

test-fast: setup
	$(PY) -m pytest -n $(JOBS) --dist worksteal -q -m "not slow and not pnr and not verilator and not heavy" tests

test-all: setup
	$(PY) -m pytest -n $(JOBS) --dist worksteal -q -m "" tests

# The program in the interpreter against its own numpy reference(): no hardware.
check: setup
	$(HWGEN) check "$(DESIGN)" --params "$(PARAMS)" $(DSEARG)

# SymbiYosys proofs of the stream parts, then each with its injected fault (must be caught).
formal: setup
	$(HWGEN) formal $(if $(OUT),--out $(OUT))

# Random programs (and exploration points) against the golden model, on a local pool or
# CLUSTER=tcp://...; findings are shrunk into build/campaign/findings.
N           ?= 1000
EXPRESSIONS ?= 100
campaign: setup
	$(HWGEN) campaign --count $(N) --expressions $(EXPRESSIONS) --verilator-every 100 \
	  $(if $(CLUSTER),--cluster $(CLUSTER)) $(if $(OUT),--out $(OUT))

verilog: setup
	$(HWGEN) build "$(DESIGN)" --params "$(PARAMS)" $(OUTARG) --device $(DEVICE) --lanes $(LANES) $(DSEARG)

sim: setup
	$(HWGEN) sim "$(DESIGN)" --params "$(PARAMS)" $(OUTARG) --sim $(SIM) --device $(DEVICE) --lanes $(LANES) $(DSEARG)

timing: setup
	$(HWGEN) timing "$(DESIGN)" --params "$(PARAMS)" $(OUTARG) --device $(DEVICE) --lanes $(LANES) $(DSEARG) \
	  --router $(ROUTER)

bitstream: setup
	$(HWGEN) bitstream "$(DESIGN)" --params "$(PARAMS)" $(OUTARG) --board $(BOARD) $(DSEARG) \
	  $(if $(filter-out 0 no false,$(SELFTEST)),--selftest)

# The Python driver through the UART bridge: PORT=sim (simulated line) or a serial device (builds
# and programs the BOARD's bridge bitstream first); PROBLEMS random problems against the interpreter.
PORT     ?= sim
PROBLEMS ?= 5
run: setup
	$(HWGEN) run "$(DESIGN)" --params "$(PARAMS)" $(OUTARG) --port $(PORT) --board $(BOARD) \
	  --problems $(PROBLEMS) $(DSEARG)

# The digit classifier (hwgen/examples/digits.py) on the held-out images, in simulation
# (PORT=sim) or on a board; train-digits trains and quantizes its weights again.
IMAGES ?= 360
digits: setup
	$(PY) scripts/classify_digits.py --images $(IMAGES) --port $(PORT)

train-digits: setup
	$(PY) scripts/train_digits.py

# A quantized ONNX model as a design (docs/models.md): its program, the interpreter on DATA
# (IMAGES of it) and RTL samples in simulation against onnxruntime, then place and route on
# DEVICE. train-models trains and quantizes the shipped ones again.
MODEL ?= hwgen/examples/models/digits_mlp.onnx
DATA  ?= $(if $(filter hwgen/examples/models/digits_%,$(MODEL)),hwgen/examples/models/digits_test.npz)
RTL   ?= 50
BATCH ?= 8
RATE  ?= max
model: setup
	$(HWGEN) model "$(MODEL)" $(if $(DATA),--data "$(DATA)") --images $(IMAGES) --sim $(RTL) \
	  --batch $(BATCH) --rate $(RATE) $(OUTARG) --pnr --device $(DEVICE)

train-models: setup
	$(PY) scripts/train_models.py

graph: setup
	$(HWGEN) graph "$(DESIGN)" --params "$(PARAMS)" $(if $(OUT),--out $(OUT)/graph.svg) $(DSEARG)

# Fuse or materialise each producer-consumer pair within BRAMS block RAMs (default: the
# DEVICE's); SIM on the command line also simulates each stage the design is cut into.
fusion: setup
	$(HWGEN) fusion "$(DESIGN)" --params "$(PARAMS)" $(OUTARG) --device $(DEVICE) \
	  $(if $(filter command line,$(origin SIM)),--sim $(SIM)) $(DSEARG)

# The Rubick-style exploration of a tensor expression: Pareto table and plot in build/dse.
dse: setup
	$(HWGEN) dse $(DSE) $(OUTARG) $(MEASUREARG)

# VGG-16 and ResNet-50 layers through the cost model: best dataflow and utilization per layer.
layers: setup
	$(HWGEN) layers --array $(if $(filter command line,$(origin ARRAY)),$(ARRAY),12x12)

# Generated vs hand-written vs device limit on ECP5-85k (4x4, 8x8, 12x12, 12x13; 3 seeds),
# conv2d_systolic and a dataflow-exploration point against the limit, and the largest array on
# the iCE40 UP5K; results in build/bench/. BENCH_ARGS="--seeds 1" places and routes each design
# once; the runs go to a local pool, or to the Dask scheduler at CLUSTER=tcp://host:port.
bench: setup
	$(PY) benchmarks/dse_speed.py
	$(PY) benchmarks/bench.py $(if $(CLUSTER),--cluster $(CLUSTER)) $(BENCH_ARGS)

# Allo's dataflow tests with only their imports changed (ALLO: a checkout of cornell-zhang/allo;
# ALLO_ARGS=--rtl also runs each simulated region as RTL); table in build/allo_compat/.
# Two of them use Python 3.12 syntax (generic regions): they run in build/allo_venv, made from
# the first Python >= 3.12 found (ALLO_PY=... to choose one), else in .venv.
ALLO_PY ?= $(shell for p in python3.13 python3.12 $(HOME)/.pyenv/versions/3.1[2-9]*/bin/python3; \
	do $$p -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null && { echo $$p; break; }; done)
ALLO_VENV := build/allo_venv

$(ALLO_VENV)/.stamp: pyproject.toml
	$(ALLO_PY) -m venv $(ALLO_VENV)
	$(ALLO_VENV)/bin/pip install -q --upgrade pip
	$(ALLO_VENV)/bin/pip install -q -e '.[dev]'
	touch $@

allo: setup $(if $(ALLO_PY),$(ALLO_VENV)/.stamp)
	$(PY) benchmarks/allo_compat.py $(if $(ALLO),--allo $(ALLO)) \
	  $(if $(ALLO_PY),--python $(ALLO_VENV)/bin/python) $(ALLO_ARGS)

clean:
	rm -rf build sim_build .pytest_cache
