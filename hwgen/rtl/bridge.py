"""The accelerator behind a UART host bridge: what a board runs and `hwgen.driver` talks to.

``Bridged`` holds the generated `Top` (one element per beat), a `UARTReceiver` feeding a
`FrameReceiver`, and a `FrameSender` feeding a `UARTTransmitter`. The protocol is
`hwgen.protocol`; `Bridged.manifest` is what design.json's ``bridge`` key records of it. Without
the UART (``uart=False``, for a simulated line that carries whole bytes) the receiver and the
sender face the line's bytes directly.
"""
import numpy as np
from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out, connect

from ..errors import HwgenError
from ..protocol import WINDOW, element_bytes
from ..schedule.plan import Plan
from .bridge_in import BridgePort, FrameReceiver
from .bridge_out import FrameSender
from .top import Top
from .uart import UARTReceiver, UARTTransmitter

__all__ = ["Bridged", "bridge_ports"]


def bridge_ports(graph, chunk):
    """A `BridgePort` per tensor, ids in design.json's port order; ``chunk`` bytes per frame."""
    ports = []
    for k, t in enumerate(graph.tensors.values()):
        width = element_bytes(t.dtype)
        ports.append(BridgePort(k, t.name, t.dtype.bits, width, max(1, chunk // width),
                                int(np.prod(t.shape))))
    return ports


class Bridged(wiring.Component):
    """The design of ``plan`` on a UART.

    Parameters
    ----------
    plan : schedule.Plan
        Planned with one lane per tensor (``plan(graph, lanes=1)``).
    divisor : int
        Clock cycles per UART bit (clock / baud rate), at least 4.
    chunk : int
        Most payload bytes in one frame (a power of two; an input buffer holds four chunks).
    timeout : int
        Cycles of line silence that end a truncated frame; default 64 bit times.
    target : str
        What the accelerator's multiplies lower to (``rtl.target.TARGETS``).
    uart : bool
        With the UART (a board's design); without it, the line's bytes are ports.

    Attributes
    ----------
    rx : In(1)
        The host's transmit line, idle high (with the UART).
    tx : Out(1)
        The line to the host (with the UART).
    rx_byte : In(8), rx_valid : In(1)
        Without the UART: a byte from the host, ``rx_valid`` for one cycle.
    tx_byte : Out(stream.Signature(8))
        Without the UART: the bytes to the host.
    """

    def __init__(self, plan, divisor, chunk=256, timeout=None, target="generic", uart=True):
        if not isinstance(plan, Plan):
            raise TypeError(f"Bridged takes a hwgen.schedule.plan(graph, lanes=1), not {plan!r}")
        if not plan.graph.inputs:
            raise HwgenError(
                f"{plan.graph.name} has no input tensor: it starts problems on its own out of "
                "reset, but the serial bridge paces problems by the inputs the host sends (a "
                "board would stream results before the host listens); give the region an input, "
                "e.g. a seed `n: int32[1]`, or run it with `make sim`")
        if any(n != 1 for n in plan.lanes.values()):
            raise HwgenError("the bridge carries one element per beat: plan(graph, lanes=1)")
        if isinstance(divisor, bool) or not isinstance(divisor, int) or divisor < 4:
            raise HwgenError(f"the UART needs at least 4 clock cycles per bit, not {divisor!r}")
        if not isinstance(chunk, int) or chunk < 8 or chunk & (chunk - 1) or chunk > 32768:
            raise HwgenError(f"chunk must be a power of two from 8 to 32768 bytes, not {chunk!r}")
        self._plan, self._divisor, self._chunk, self._uart = plan, divisor, chunk, uart
        self._timeout = timeout or 64 * divisor
        self._ports = bridge_ports(plan.graph, chunk)
        self._top = Top(plan, target)
        super().__init__({"rx": In(1, init=1), "tx": Out(1, init=1)} if uart else
                         {"rx_byte": In(8), "rx_valid": In(1),
                          "tx_byte": Out(stream.Signature(8))})

    plan = property(lambda self: self._plan)
    top = property(lambda self: self._top)
    divisor = property(lambda self: self._divisor)
    chunk = property(lambda self: self._chunk)
    timeout = property(lambda self: self._timeout)
    uart = property(lambda self: self._uart)

    def manifest(self, clock_hz, byte_clocks=None):
        """design.json's ``bridge`` key: the line, and per port (the host's name and its
        direction) its id and chunk. A line of whole bytes (no UART), one per ``byte_clocks``
        cycles, records the baud rate of a UART as fast and no divisor."""
        graph = self.plan.graph
        baud = clock_hz / self.divisor if self.uart else 10 * clock_hz / byte_clocks
        return {"clock_hz": clock_hz, "baud": baud,
                "divisor": self.divisor if self.uart else None,
                "timeout_cycles": self.timeout, "chunk_bytes": self.chunk, "window": WINDOW,
                "ports": [{"name": graph.host_name(p.name), "dir": graph.tensors[p.name].direction,
                           "id": p.id, "element_bytes": p.element_bytes, "chunk": p.chunk}
                          for p in self._ports]}

    def elaborate(self, platform):
        m = Module()
        graph = self.plan.graph
        m.submodules.top = top = self.top
        inputs = [p for p in self._ports if graph.tensors[p.name].direction == "in"]
        outputs = [p for p in self._ports if graph.tensors[p.name].direction == "out"]
        m.submodules.receiver = receiver = FrameReceiver(inputs, self.timeout)
        m.submodules.sender = sender = FrameSender(outputs)
        if self.uart:
            m.submodules.uart_rx = rx = UARTReceiver(self.divisor)
            m.submodules.uart_tx = tx = UARTTransmitter(self.divisor)
            m.d.comb += [rx.rx.eq(self.rx), self.tx.eq(tx.tx),
                         receiver.byte.eq(rx.data), receiver.byte_valid.eq(rx.valid)]
            connect(m, sender.bytes, tx.data)
        else:
            m.d.comb += [receiver.byte.eq(self.rx_byte), receiver.byte_valid.eq(self.rx_valid)]
            connect(m, sender.bytes, wiring.flipped(self.tx_byte))
        for p in inputs:
            connect(m, getattr(receiver, f"in_{p.name}"), getattr(top, p.name))
        for p in outputs:
            connect(m, getattr(top, p.name), getattr(sender, f"out_{p.name}"))
        connect(m, receiver.reply, sender.reply)
        return m
