"""A UART, 8 data bits, no parity, one stop bit, ``divisor`` clock cycles per bit.

The receiver cannot stall the line, so its output is a strobe (``valid`` for one cycle per
byte); the transmitter takes bytes from a stream.
"""
from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.wiring import In, Out

__all__ = ["UARTReceiver", "UARTTransmitter"]


class _UART(wiring.Component):
    """What both directions share: ``divisor`` clock cycles per bit, at least 4."""

    def __init__(self, divisor):
        if isinstance(divisor, bool) or not isinstance(divisor, int) or divisor < 4:
            raise ValueError(f"a UART needs at least 4 clock cycles per bit, not {divisor!r}")
        self._divisor = divisor
        super().__init__()

    divisor = property(lambda self: self._divisor)


class UARTReceiver(_UART):
    """Samples ``rx`` (synchronized) in the middle of each bit; a byte whose stop bit is low
    (a framing error) is dropped.

    Attributes
    ----------
    rx : In(1)
        The line, idle high.
    data : Out(8), valid : Out(1)
        A received byte, ``valid`` for one cycle.
    """

    rx: In(1, init=1)
    data: Out(8)
    valid: Out(1)

    def elaborate(self, platform):
        m = Module()
        d = self.divisor
        rx = Signal(init=1)
        m.submodules.sync_rx = FFSynchronizer(self.rx, rx, init=1)
        timer = Signal(range(d))
        bit = Signal(range(8))
        shift = Signal(8)
        with m.If(timer != 0):
            m.d.sync += timer.eq(timer - 1)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(~rx):
                    m.d.sync += timer.eq(d // 2 - 1)
                    m.next = "START"
            with m.State("START"):
                with m.If((timer == 0) & rx):       # a glitch, not a start bit
                    m.next = "IDLE"
                with m.Elif(timer == 0):
                    m.d.sync += [timer.eq(d - 1), bit.eq(0)]
                    m.next = "DATA"
            with m.State("DATA"):
                with m.If(timer == 0):
                    m.d.sync += [timer.eq(d - 1), shift.eq(Cat(shift[1:], rx)), bit.eq(bit + 1)]
                    with m.If(bit == 7):
                        m.next = "STOP"
            with m.State("STOP"):
                with m.If(timer == 0):
                    m.d.comb += self.valid.eq(rx)
                    m.next = "IDLE"
        m.d.comb += self.data.eq(shift)
        return m


class UARTTransmitter(_UART):
    """Sends each byte of ``data`` as start bit, 8 bits LSB first, stop bit.

    Attributes
    ----------
    data : In(stream.Signature(8))
        Bytes to send; ``ready`` while the line is free.
    tx : Out(1)
        The line, idle high.
    """

    data: In(stream.Signature(8))
    tx: Out(1, init=1)

    def elaborate(self, platform):
        m = Module()
        shift = Signal(10, init=0x3FF)
        bits = Signal(range(11))
        timer = Signal(range(self.divisor))
        m.d.comb += [self.tx.eq(shift[0]), self.data.ready.eq(bits == 0)]
        with m.If(self.data.valid & self.data.ready):
            m.d.sync += [shift.eq(Cat(Const(0, 1), self.data.payload, Const(1, 1))),
                         bits.eq(10), timer.eq(self.divisor - 1)]
        with m.Elif(bits != 0):
            with m.If(timer == 0):
                m.d.sync += [shift.eq(Cat(shift[1:], Const(1, 1))), bits.eq(bits - 1),
                             timer.eq(self.divisor - 1)]
            with m.Else():
                m.d.sync += timer.eq(timer - 1)
        return m
