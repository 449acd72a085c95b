"""The bridged design in Amaranth's simulator, behind the same byte transport as a serial port.

`SimulatedLine` drives the design's ``rx`` line and decodes its ``tx`` line bit by bit at the
UART's rate, so the driver's bytes go through the real receiver, frame checker, buffers, design,
framer and transmitter. Time is the simulation's: ``now()`` is simulated seconds, and ``read``
waits in simulated time.

With ``line="bytes"`` the design has no UART (``Bridged(uart=False)``) and the line carries a
whole byte every `BYTE_CLOCKS` cycles, ten times the UART's fastest rate: every byte still goes
through the frame checker, buffers, design and framer, in far fewer simulated cycles, since
Amaranth's simulator spends its time per cycle.
"""
import os
from dataclasses import replace

from amaranth.sim import Simulator

from ..errors import HwgenError
from ..rtl.bridge import Bridged
from ..schedule import plan
from .manifest import Bridge
from .verilog import manifest as design_manifest

__all__ = ["SimulatedLine", "simulate"]

# Simulated clock and line of `make run PORT=sim`: 3 Mbaud at 12 MHz (as the iCEBreaker can),
# the fewest clock cycles per bit the UART takes, so that the simulation spends its time on bytes.
CLOCK_HZ, DIVISOR = 12_000_000, 4
BYTE_CLOCKS = DIVISOR            # cycles per byte of a line of whole bytes
LINES = ("uart", "bytes")


class SimulatedLine:
    """A byte transport (``write``, ``read``, ``now``) into a simulated `Bridged` design.

    Parameters
    ----------
    dut : Bridged
    clock_hz : float
        The simulated clock (sets ``now()`` and the line's byte time).
    """

    def __init__(self, dut, clock_hz):
        self.dut, self.clock_hz = dut, clock_hz
        self._to_device = bytearray()
        self._from_device = bytearray()
        self._sim = Simulator(dut)
        self._sim.add_clock(1 / clock_hz)
        if dut.uart:
            self._sim.add_testbench(self._drive_rx, background=True)
            self._sim.add_testbench(self._sample_tx, background=True)
        else:
            self._sim.add_testbench(self._send_bytes, background=True)
            self._sim.add_testbench(self._take_bytes, background=True)
        self._byte_clocks = 10 * dut.divisor if dut.uart else BYTE_CLOCKS
        self._cycles = 0

    def write(self, data):
        """Queue bytes for the design's ``rx`` line (sent back to back, as a UART would)."""
        self._to_device += data

    def read(self, timeout):
        """The bytes received so far, waiting up to ``timeout`` simulated seconds for one."""
        end = self._cycles + max(1, int(timeout * self.clock_hz))
        step = 2 * self._byte_clocks
        while not self._from_device and self._cycles < end:
            self._cycles = min(end, self._cycles + step)
            self._sim.run_until(self._cycles / self.clock_hz)
        data = bytes(self._from_device)
        self._from_device.clear()
        return data

    def now(self):
        return self._cycles / self.clock_hz

    def pending(self):
        """Bytes written but not yet on the line."""
        return len(self._to_device)

    def close(self):
        pass

    # Both lines change and are sampled half a clock period away from the clock's edges.
    async def _drive_rx(self, ctx):
        bit_time = self.dut.divisor / self.clock_hz
        ctx.set(self.dut.rx, 1)
        await ctx.delay(0.5 / self.clock_hz)
        while True:
            if not self._to_device:
                await ctx.delay(bit_time)
                continue
            byte = self._to_device.pop(0)
            for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [1]:
                ctx.set(self.dut.rx, bit)
                await ctx.delay(bit_time)

    async def _sample_tx(self, ctx):
        bit_time = self.dut.divisor / self.clock_hz
        while True:
            await ctx.negedge(self.dut.tx)
            await ctx.delay((self.dut.divisor // 2 + 0.5) / self.clock_hz)
            if ctx.get(self.dut.tx):
                continue                                    # not a start bit
            byte = 0
            for i in range(8):
                await ctx.delay(bit_time)
                byte |= ctx.get(self.dut.tx) << i
            await ctx.delay(bit_time)
            if ctx.get(self.dut.tx):                        # the stop bit
                self._from_device.append(byte)


    # A line of whole bytes: the host's, one every BYTE_CLOCKS cycles, valid for one cycle; the
    # design's taken at most as often. Each waits from the middle of a cycle.
    async def _send_bytes(self, ctx):
        period = 1 / self.clock_hz
        await ctx.delay(0.5 * period)
        while True:
            if not self._to_device:
                await ctx.delay(BYTE_CLOCKS * period)
                continue
            ctx.set(self.dut.rx_byte, self._to_device.pop(0))
            ctx.set(self.dut.rx_valid, 1)
            await ctx.tick()
            ctx.set(self.dut.rx_valid, 0)
            await ctx.delay((BYTE_CLOCKS - 0.5) * period)

    async def _take_bytes(self, ctx):
        period, tx = 1 / self.clock_hz, self.dut.tx_byte
        await ctx.delay(0.5 * period)
        while True:
            ctx.set(tx.ready, 1)
            *_, valid, byte = await ctx.tick().sample(tx.valid, tx.payload)
            ctx.set(tx.ready, 0)
            if valid:
                self._from_device.append(byte)
            await ctx.delay((BYTE_CLOCKS - 0.5) * period)

def simulate(graph, source=None, build=None, clock_hz=CLOCK_HZ, divisor=DIVISOR, chunk=256,
             timeout=None, line="uart"):
    """The bridged design of ``graph`` in simulation: (its ``manifest.Manifest``, which has a
    ``bridge``; a `SimulatedLine`); ``source``, ``build``: the program file and the
    ``load_design`` arguments it was built with, recorded for a reload; ``line``: "uart" (bit
    by bit) or "bytes" (whole bytes, no UART)."""
    if line not in LINES:
        raise HwgenError(f"line must be one of {', '.join(LINES)}, not {line!r}")
    dut = Bridged(plan(graph, lanes=1), divisor, chunk=chunk, timeout=timeout,
                  uart=line == "uart")
    extra = {} if source is None else {"source": os.path.abspath(source), "build": build}
    bridge = Bridge.from_json(dut.manifest(clock_hz, byte_clocks=BYTE_CLOCKS))
    info = replace(design_manifest(dut.top, []), bridge=bridge, extra=extra)  # no Verilog written
    return info, SimulatedLine(dut, clock_hz)
