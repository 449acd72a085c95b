"""The command line's arguments: one subcommand per step (``hwgen.cli`` runs them), each
with the options of a design or of a dataflow exploration and a ``--help`` that explains."""
import argparse

DEFAULT_DESIGN = "hwgen/examples/gemm_os.py"
DEFAULT_EXPR = "C[i,j] += A[i,k] * B[k,j]"
DEFAULT_SIZES = "i=8 j=8 k=32"
DEFAULT_ARRAY = "4x4"


def array_size(text):
    """``--array``: ``"4x4"`` -> (4, 4); ``"8"`` -> (8,); a ValueError saying what to write."""
    try:
        array = tuple(int(n) for n in str(text).lower().split("x"))
    except ValueError:
        array = ()
    if len(array) not in (1, 2) or any(n < 1 for n in array):
        raise ValueError(f"ARRAY must look like 4x4 (2-D) or 8 (1-D), got {text!r}")
    return array


def _add_exploration_options(p, array=DEFAULT_ARRAY):
    """The options that name an exploration (expression, sizes, array budget), shared by
    `dse` and every command that can build a point of it (where ``--array`` also folds a
    program's task grids)."""
    p.add_argument("--expr", default=DEFAULT_EXPR, help="tensor expression (default "
                   f"'{DEFAULT_EXPR}')")
    p.add_argument("--sizes", default=DEFAULT_SIZES, help=f"loop sizes (default "
                   f"'{DEFAULT_SIZES}')")
    budget = f"PE array budget, e.g. 4x4 or 8 (default {DEFAULT_ARRAY})"
    p.add_argument("--array", default=array, help=budget if array else
                   "PE array, e.g. 4x4 or 8: a program's task grids larger than it fold onto it, "
                   "each PE running several grid positions in turn (default: grids built as "
                   f"written); for a dse: point, its budget (default {DEFAULT_ARRAY})")
    return p


def _add_design_options(p):
    """The options of every command that takes a design: the design, its sizes, the output
    folder and the host lanes."""
    p.add_argument("design", nargs="?", default=DEFAULT_DESIGN,
                   help=f"design file (default {DEFAULT_DESIGN}), or dse:<point> for a point "
                   "of `hwgen dse` (its id or map, e.g. dse:3 or \"dse:x=j, y=i, t1=i+j+k\", "
                   "with the same --expr/--sizes/--array)")
    _add_exploration_options(p, array=None)
    p.add_argument("--params", default="", help='sizes, e.g. "M=8 N=8 K=64" (defaults: '
                   "the build() signature)")
    p.add_argument("--out", default=None, help="output folder (default build/<design>)")
    p.add_argument("--lanes", default="auto", help="elements per host beat: 'auto' (enough "
                   "to keep up with compute, per port) or one number for every port")
    for flag, what in (("pes", "PEs"), ("dsps", "DSP blocks")):
        p.add_argument(f"--{flag}", type=int, default=None, help=f"a budget of {what}: fold "
                       "the task grids onto the array shape the schedule finds fastest within "
                       "it, printing the rejected shapes (any budget not given: the "
                       "device's; none given: the grid is built as written)")
    p.add_argument("--luts", type=int, default=None, help="a budget of LUTs for multiplies "
                   "built in logic beyond the DSP blocks: the search gives the multiplies past "
                   "--dsps a multiplier in logic (carry chains, about 100 LUTs for int8 x int8) "
                   "as far as these LUTs reach (default: none, every multiply on a DSP block; "
                   "with --dsps 0, half the device's LUTs)")
    p.add_argument("--ports", type=int, default=None, help="a budget of host-port pins "
                   "(default the package's, 365 on the ECP5-85k's CABGA381): the search "
                   "rejects array shapes whose ports (the lanes their schedule needs) take more; "
                   "alone, it searches the array shape as --dsps does")
    p.add_argument("--brams", type=int, default=None, help="a budget of block RAMs (default "
                   "the device's, 208): with --array, a problem whose buffers exceed it is "
                   "tiled (design.json's tiles); `fusion` keeps intermediates on chip within "
                   "it; alone, it searches the array shape as --dsps does")
    return p


def _add_flow_commands(sub):
    """`check`, `build`, `sim`, `timing` and `bitstream`: the steps from a design to
    hardware."""
    p = _add_design_options(sub.add_parser(
        "check", help="the program in the interpreter against its own numpy reference()",
        description="Run the program in hwgen's functional interpreter and the design file's "
        "reference() on the same inputs (all at the minimum, all at the maximum, random) and "
        "print the first elements where they differ, with both values. No hardware is built."))
    p.add_argument("--problems", type=int, default=3, help="random problems (default 3)")
    p.add_argument("--seed", type=int, default=0, help="random seed for the data")
    p = _add_design_options(sub.add_parser("build", help="write Verilog and design.json"))
    p.add_argument("--device", default="ecp5-85k", help="the target, to warn early when the "
                   "design cannot fit it: ecp5-85k (default) or ice40-up5k")
    p = _add_design_options(sub.add_parser(
        "sim", help="cocotb simulation against the interpreter and the design's reference()"))
    p.add_argument("--sim", default="auto",
                   help="auto (default: Icarus for small designs and short runs, which it "
                        "compiles in a second; Verilator for large ones, after a compile of "
                        "seconds to a few minutes, reused while the Verilog is the same), "
                        "verilator or icarus")
    p.add_argument("--problems", type=int, default=3, help="problems back to back (default 3)")
    p.add_argument("--seed", type=int, default=0, help="random seed for data and back-pressure")
    p.add_argument("--device", default="ecp5-85k", help="simulate the Verilog built for this "
                   "device: ecp5-85k (default; MULT18X18D blocks through their simulation model) "
                   "or ice40-up5k")
    p = _add_design_options(sub.add_parser("timing", help="Yosys + nextpnr: Fmax and utilization"))
    p.add_argument("--device", default="ecp5-85k", help="ecp5-85k (default) or ice40-up5k")
    p.add_argument("--freq", type=float, default=None, help="target MHz (default 200 / 60)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1], help="nextpnr seeds (median)")
    p.add_argument("--router", default="router1", help="nextpnr's router: router1 (default) "
                   "or router2, which converges where router1 does not on dense designs (a "
                   "12x12 array folded 11 times)")
    p = _add_design_options(sub.add_parser(
        "bitstream", help="board bitstream: the design behind a UART host bridge"))
    p.add_argument("--board", default="ulx3s-85f", help="ulx3s-85f (default) or icebreaker")
    p.add_argument("--selftest", action="store_true", help="the LED self-test instead of the "
                   "bridge: on-board generated inputs, outputs checked against the interpreter")


def _add_run_command(sub):
    """`run`: random problems through the UART bridge, on a board or simulated."""
    p = _add_design_options(sub.add_parser(
        "run", help="send random problems through the UART host bridge (a board, or the "
        "simulated design with --port sim) and compare the results with the interpreter",
        description="With --port sim, the design behind its bridge runs in Amaranth's "
        "simulator and the Python driver (hwgen.driver.Accelerator) talks to it on a simulated "
        "line of whole bytes, one every 4 cycles of 12 MHz (--line uart: the UART bit by bit at "
        "3 Mbaud, as on a board). With a serial device, the bridge bitstream "
        "for --board is built, programmed with openFPGALoader (or the command is printed) and "
        "the same driver talks to the board. Prints each problem's verdict, the bytes moved, "
        "the share of the line rate reached and where the time went."))
    p.add_argument("--port", default="sim", help="sim (default) or a serial device such as "
                   "/dev/ttyUSB0")
    p.add_argument("--board", default="ulx3s-85f", help="ulx3s-85f (default) or icebreaker, "
                   "when --port is a serial device")
    p.add_argument("--problems", type=int, default=5, help="problems back to back (default 5)")
    p.add_argument("--seed", type=int, default=0, help="random seed for the data")
    p.add_argument("--line", choices=("bytes", "uart"), default="bytes",
                   help="with --port sim: whole bytes (default, ten times faster) or the UART "
                   "bit by bit")


def _add_inspection_commands(sub):
    """`graph`, `dse` and `layers`: look at a design or at the dataflows of an expression
    without building hardware."""
    p = _add_design_options(sub.add_parser(
        "graph", conflict_handler="resolve",
        help="draw the task graph: tasks on their grids, streams, tensors"))
    p.add_argument("--out", default=None, help="picture to write, .svg or .png (default "
                   "build/<design>/graph.svg)")
    p = _add_exploration_options(sub.add_parser(
        "dse", help="explore the dataflows of a tensor expression: Pareto table and plot",
        description="Enumerate access-entry tuples, prune the unrealisable, solve for the "
        "space-time maps of each on arrays up to --array, cost them (cycles, banks, ports, "
        "buffers, interconnect, LUT/FF/DSP/BRAM) and print the Pareto front of cycles per "
        "problem against LUTs; writes front.md and front.png into --out. Build a point with "
        "`hwgen build|sim|timing dse:<id>` and the same --expr/--sizes/--array."))
    p.add_argument("--out", default=None, help="output folder (default build/dse)")
    p.add_argument("--point", default=None, help="explain one point (id or map): tiles, time "
                   "loops, entries and data layouts (A·T⁻¹ = L·E), costs")
    p.add_argument("--measure", action="store_true", help="place and route every Pareto "
                   "point (Yosys + nextpnr on ECP5-85k) and print the cost model against the "
                   "measurement (measured.md); results are cached by design hash in <out>/cache")
    p.add_argument("--cluster", default=None, help="run --measure's place and route on this "
                   "Dask scheduler (tcp://host:port; implies --measure); default a local pool")
    p.add_argument("--workers", type=int, default=None, help="local place-and-route "
                   "processes (default one per core)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1], help="nextpnr seeds for "
                   "--measure (Fmax is their median; default 1)")
    p = sub.add_parser("layers", help="best dataflow and utilization of VGG-16 and ResNet-50 "
                       "layers on a PE array (cost model only)")
    p.add_argument("tables", nargs="*", default=["vgg16", "resnet50"],
                   help="layer tables: vgg16, resnet50 (default both)")
    p.add_argument("--array", default="12x12",
                   help="PE array (default 12x12, fits the 156 DSPs of an ECP5-85k)")


def _add_fusion_command(sub):
    """`fusion`: which producer-consumer pairs to fuse, by the cost model."""
    p = _add_design_options(sub.add_parser(
        "fusion", help="decide, pair by pair of tasks, whether to keep the intermediate on "
        "chip (fuse) or send it through the host (materialise), within a block RAM budget",
        description="For every producer-consumer pair of tasks print the live intermediate "
        "tile, its block RAMs doubled for ping-pong buffering against the budget, and the "
        "cycles per problem fused and materialised (the schedule's, exact); fuse only when "
        "the tile fits and fusing is no slower. Pairs not fused cut the design into stages "
        "that run one after another; their interpreter is checked against reference(), and "
        "--sim simulates each stage's hardware."))
    p.add_argument("--device", default="ecp5-85k", help="ecp5-85k (default) or ice40-up5k")
    p.add_argument("--sim", default=None, help="also simulate each stage: auto, verilator or "
                   "icarus")
    p.add_argument("--problems", type=int, default=3, help="problems per simulation")
    p.add_argument("--seed", type=int, default=0, help="random seed for the data")


def _add_campaign_command(sub):
    """`campaign`: random programs and exploration points against the golden model."""
    p = sub.add_parser(
        "campaign", help="random programs (and exploration points) through the interpreter "
        "and the generated hardware, compared value for value and cycle for cycle",
        description="Draw well-formed random programs (pipelines, grids and systolic chains "
        "of tasks with random loop nests, stream types and depths, local arrays, run-time ifs, "
        "side inputs) and random stall patterns with hypothesis; run each in the interpreter "
        "and in Amaranth's simulator (every --verilator-every-th also on Verilator) and compare "
        "outputs and the schedule's cycle counts. A finding is shrunk to a small program and "
        "written to --keep. Shards of 50 run on a local process pool or a Dask --cluster.")
    p.add_argument("--count", type=int, default=1000, help="random programs (default 1000)")
    p.add_argument("--expressions", type=int, default=0, help="random tensor expressions and "
                   "maps of the exploration, simulated against numpy and the cost model")
    p.add_argument("--seed", type=int, default=0, help="first shard's seed (default 0)")
    p.add_argument("--verilator-every", type=int, default=0, help="also run every N-th "
                   "program's cocotb testbench on Verilator (default 0: never)")
    p.add_argument("--workers", type=int, default=None, help="local processes (default one "
                   "per core)")
    p.add_argument("--cluster", default=None, help="a Dask scheduler, tcp://host:port")
    p.add_argument("--out", default="build/campaign", help="output folder (default "
                   "build/campaign)")
    p.add_argument("--keep", default=None, help="folder for shrunk findings (default "
                   "<out>/findings; tests/programs/campaign keeps them as regression tests)")


def _add_model_command(sub):
    """`model`: a quantized ONNX model as a verified, placed and routed design."""
    p = sub.add_parser(
        "model", help="a quantized ONNX model as a hwgen program, checked against onnxruntime",
        description="Read an 8-bit ONNX model (QDQ or QOperator, as onnxruntime's "
        "quantize_static writes it; docs/models.md lists the operators), write it as a hwgen "
        "program (one task per MatMul/Gemm layer, weights in on-chip tables, streams between "
        "layers as deep as the schedule needs), print a table of its layers, and compare "
        "every output with onnxruntime's on DATA: in hwgen's interpreter, in the RTL in "
        "Amaranth's simulator (--sim samples, random gaps and back-pressure), then place and "
        "route it (--pnr).")
    p.add_argument("model", help="the .onnx file")
    p.add_argument("--data", default=None, help="an .npz: an array named after the model's "
                   "input (first axis the samples) and optionally 'labels' (default: random "
                   "inputs in the input's quantization range)")
    p.add_argument("--images", type=int, default=None, help="use the first N samples "
                   "(default: all of --data, or 100 random ones)")
    p.add_argument("--sim", type=int, default=0, help="samples to run in RTL simulation "
                   "(default 0)")
    p.add_argument("--batch", type=int, default=1, help="samples per problem, B (default 1)")
    p.add_argument("--rate", default="max", help="inferences a second at --clock the design "
                   "must reach, or 'max' (default): the first layer gets the fewest "
                   "multiply-accumulates a clock that reach it (the later layers do one)")
    p.add_argument("--clock", type=float, default=70.0, help="the clock in MHz --rate assumes "
                   "(default 70; --pnr reports the one reached)")
    p.add_argument("--unroll", type=int, default=None, help="multiply-accumulates a clock in "
                   "the first layer, instead of what --rate gives")
    p.add_argument("--pnr", action="store_true", help="place and route on --device and print "
                   "inferences/s at Fmax")
    p.add_argument("--device", default="ecp5-85k", help="for --pnr (default ecp5-85k)")
    p.add_argument("--seed", type=int, default=0, help="seed of random inputs and stalls")
    p.add_argument("--out", default=None, help="output folder (default build/model_<name>)")


def parser():
    """The argument parser of every subcommand (``cli.main`` runs ``cmd_<command>``)."""
    parser = argparse.ArgumentParser(
        prog="hwgen", description="Turn a Python task-and-stream program into verified Verilog, "
        "timing reports and bitstreams. DESIGN is a Python file defining build(**params) that "
        "returns a @hwgen.region.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_flow_commands(sub)
    _add_run_command(sub)
    _add_inspection_commands(sub)
    _add_fusion_command(sub)
    p = sub.add_parser("formal", help="SymbiYosys proofs of the stream parts (FIFO links, host "
                       "ports of small generated tops), then each with a fault injected on "
                       "purpose, which its proof must catch with a counterexample trace (VCD)")
    p.add_argument("proofs", nargs="*", help="proof names (default: all; see --list)")
    p.add_argument("--list", action="store_true", help="list the proofs and their properties")
    p.add_argument("--out", default="build/formal", help="output folder (default build/formal)")
    _add_campaign_command(sub)
    _add_model_command(sub)
    p = _add_design_options(sub.add_parser(
        "demo", help="build, simulate and time one design; one summary"))
    p.add_argument("--sim", default="auto", help="auto (default), verilator or icarus")
    p.add_argument("--device", default="ecp5-85k")
    return parser
