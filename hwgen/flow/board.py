"""Board bitstreams: the generated top inside a self-test wrapper, with pins from constraints/.

On the board, the wrapper feeds every input port with pseudo-random data (one xorshift32
generator per port, restarted every problem), drains every output port into a rotate-xor
checksum and compares it, after each problem, with the checksum the functional interpreter
computed at build time for the same data. It runs problems back to back forever.
LEDs (ULX3S): led[0] all problems so far correct, led[1] a mismatch was seen (sticky),
led[7:2] the problem counter's high bits (a running light while it works).
iCEBreaker: green = all correct so far (blinks with the problem counter), red = mismatch.
The button resets.
"""
import os

import numpy as np
from amaranth.back import verilog
from amaranth.hdl import Cat, ClockDomain, Elaboratable, Module, Signal

from ..errors import HwgenError
from ..ir.interp import run
from ..rtl.top import Top
from ..schedule import plan
from . import pnr, tools

CONSTRAINTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "constraints")

BOARDS = {
    "ulx3s-85f": {"device": "ecp5-85k", "constraints": "ulx3s-85f.lpf", "clock_mhz": 25,
                  "pack": ["yowasp-ecppack", "--compress"], "ext": "bit"},
    "icebreaker": {"device": "ice40-up5k", "constraints": "icebreaker.pcf", "clock_mhz": 12,
                   "pack": ["yowasp-icepack"], "ext": "bin"},
}


def xorshift32(state):
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state


def _seed(k):
    return ((k + 1) * 0x9E3779B9) & 0xFFFFFFFF or 1


def selftest_inputs(graph):
    """The inputs the wrapper generates: element n of input k is the low bits of the n-th
    xorshift32 state after seed ``_seed(k)``."""
    inputs = {}
    for k, t in enumerate(graph.inputs):
        state, values = _seed(k), []
        for _ in range(int(np.prod(t.shape))):
            state = xorshift32(state)
            values.append(t.dtype.wrap(state))
        inputs[t.name] = np.array(values, dtype=np.int64).reshape(t.shape)
    return inputs


def expected_checksum(graph):
    outputs = run(graph, selftest_inputs(graph))
    total = 0
    for t in graph.outputs:
        cs = 0
        for v in outputs[t.name].flatten():
            cs = (((cs << 1) | (cs >> 31)) & 0xFFFFFFFF) ^ (int(v) & ((1 << min(32, t.dtype.bits)) - 1))
        total ^= cs
    return total


class SelfTest(Elaboratable):
    """Drives the generated ``Top`` from generators and checks its outputs (see module doc)."""

    def __init__(self, graph, board, expected=None):
        self.graph = graph
        self.expected = expected_checksum(graph) if expected is None else expected
        self.board = board
        self.clk = Signal()
        self.btn = Signal()
        if board == "icebreaker":
            self.led_r = Signal()
            self.led_g = Signal()
            self.ports = [self.clk, self.btn, self.led_r, self.led_g]
        else:
            self.led = Signal(8)
            self.ports = [self.clk, self.btn, self.led]

    def elaborate(self, platform):
        m = Module()
        self._add_clocking(m)
        m.submodules.dut = dut = Top(plan(self.graph, lanes=1))   # one element per beat
        problem_done = Signal()
        self._add_generators(m, dut, problem_done)
        checksum = Signal(32)
        finished, csums = self._add_checksums(m, dut, problem_done)
        all_finished = finished[0]
        for f in finished[1:]:
            all_finished = all_finished & f
        total = csums[0]
        for c in csums[1:]:
            total = total ^ c
        m.d.comb += [problem_done.eq(all_finished), checksum.eq(total)]
        self._add_verdict(m, problem_done, checksum)
        return m

    def _add_clocking(self, m):
        """The sync domain on the board clock, reset by the button (synchronized through a
        reset-less domain) and at power-on by the synchronizer's init value."""
        m.domains.sync = cd = ClockDomain()
        rst_sync = Signal(2, init=3)
        m.d.comb += cd.clk.eq(self.clk)
        # The button resets (active low on the iCEBreaker); a power-on reset comes from init.
        pressed = ~self.btn if self.board == "icebreaker" else self.btn
        m.domains.por = por = ClockDomain(reset_less=True)
        m.d.comb += por.clk.eq(self.clk)
        m.d.por += rst_sync.eq(Cat(rst_sync[1:], pressed))
        m.d.comb += cd.rst.eq(rst_sync[0])

    def _add_generators(self, m, dut, problem_done):
        """Feed input port k with the xorshift32 sequence from ``_seed(k)``, one element per
        beat, until the problem's elements are sent; restart when the problem is done."""
        for k, t in enumerate(self.graph.inputs):
            port = getattr(dut, t.name)
            state = Signal(32, init=_seed(k))
            sent = Signal(range(int(np.prod(t.shape)) + 1))
            nxt = _xorshift(state)
            numel = int(np.prod(t.shape))
            m.d.comb += [port.valid.eq(sent < numel), port.payload.eq(nxt)]
            with m.If(problem_done):
                m.d.sync += [sent.eq(0), state.eq(_seed(k))]
            with m.Elif(port.valid & port.ready):
                m.d.sync += [sent.eq(sent + 1), state.eq(nxt)]

    def _add_checksums(self, m, dut, problem_done):
        """Drain every output port into a rotate-xor checksum; return, per output, its
        "all elements received" condition and its checksum signal."""
        finished = []
        csums = []
        for t in self.graph.outputs:
            port = getattr(dut, t.name)
            numel = int(np.prod(t.shape))
            got = Signal(range(numel + 1))
            cs = Signal(32)
            m.d.comb += port.ready.eq(got < numel)
            bits = min(32, t.dtype.bits)
            with m.If(problem_done):
                m.d.sync += [got.eq(0), cs.eq(0)]
            with m.Elif(port.valid & port.ready):
                m.d.sync += [got.eq(got + 1),
                             cs.eq(Cat(cs[31], cs[:31]) ^ port.payload[:bits])]
            finished.append(got == numel)
            csums.append(cs)
        return finished, csums

    def _add_verdict(self, m, problem_done, checksum):
        """Compare each problem's checksum with the expected one and drive the LEDs (see the
        module doc for what they show on each board). ``self.problems`` is the problem counter,
        for a simulation to preset (the iCEBreaker's green LED waits for bit 12)."""
        good, bad = Signal(), Signal()
        problems = Signal(32)
        self.problems = problems
        expected = self.expected
        with m.If(problem_done):
            m.d.sync += problems.eq(problems + 1)
            with m.If(checksum == expected):
                m.d.sync += good.eq(1)
            with m.Else():
                m.d.sync += bad.eq(1)
        if self.board == "icebreaker":
            # LEDs are active low.
            m.d.comb += [self.led_g.eq(~(good & ~bad & problems[12])), self.led_r.eq(~bad)]
        else:
            m.d.comb += self.led.eq(Cat(good & ~bad, bad, problems[14:20]))


def _xorshift(s):
    """The hardware twin of ``xorshift32``."""
    a = (s ^ (s << 13))[:32]
    b = (a ^ (a >> 17))[:32]
    return (b ^ (b << 5))[:32]


def selftest_verilog(graph, workdir, board="icebreaker"):
    """Write the self-test wrapper's Verilog into ``workdir``; return (files, top name)."""
    wrapper = SelfTest(graph, board)
    text = verilog.convert(wrapper, name="board_top", ports=wrapper.ports, emit_src=False)
    with open(os.path.join(workdir, "board_top.v"), "w") as f:
        f.write(text)
    return ["board_top.v"], "board_top"


def bitstream(graph, out_dir, board, progress=None):
    """Synthesize, place and route the self-test for ``board``; return (bitstream path, timing)."""
    if board not in BOARDS:
        raise HwgenError(f"unknown BOARD {board!r}; use one of {', '.join(BOARDS)}")
    spec = BOARDS[board]
    workdir = os.path.join(out_dir, f"bitstream_{board}")
    os.makedirs(workdir, exist_ok=True)
    files, top = selftest_verilog(graph, workdir, board)
    src = os.path.join(CONSTRAINTS, spec["constraints"])
    with open(src) as f, open(os.path.join(workdir, spec["constraints"]), "w") as g:
        g.write(f.read())
    if progress:
        progress(f"self-test wrapper written; synthesizing for {spec['device']}")
    netlist = pnr.synthesize(workdir, files, top, spec["device"])
    if progress:
        progress("placing and routing")
    placed = "board.config" if spec["ext"] == "bit" else "board.asc"
    report = pnr.place_and_route(workdir, netlist, spec["device"], spec["clock_mhz"],
                                 constraints=spec["constraints"], output=placed)
    t = pnr.summarize(report, spec["device"])
    t["device"] = spec["device"]
    if t["fmax_mhz"] is not None and t["fmax_mhz"] < spec["clock_mhz"]:
        raise HwgenError(f"the design reaches {t['fmax_mhz']:.1f} MHz, below the "
                         f"{spec['clock_mhz']} MHz board clock; use smaller sizes")
    if progress:
        progress("packing the bitstream")
    out = f"{graph.name}_{board}.{spec['ext']}"
    tools.run(spec["pack"][0], spec["pack"][1:] + [placed, out], workdir, "pack.log")
    if progress:
        progress("done")
    return os.path.join(workdir, out), t
