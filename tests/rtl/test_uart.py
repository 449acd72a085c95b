# amaranth: UnusedElaboratable=no
"""The UART: what the transmitter sends, the receiver gets, at any divisor; a byte whose stop bit
is missing is dropped."""
import pytest
from amaranth.hdl import Module
from amaranth.sim import Simulator

from hwgen.rtl.uart import UARTReceiver, UARTTransmitter

BYTES = [0x00, 0xFF, 0xA5, 0x5A, 0x01, 0x80, 0x37]


def _received(dut, rx, line):
    """The bytes ``rx`` receives while the testbench ``line`` runs on ``dut``."""
    got = []

    async def receive(ctx):
        async for _, _, valid, data in ctx.tick().sample(rx.valid, rx.data):
            if valid:
                got.append(data)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(line)
    sim.add_testbench(receive, background=True)
    sim.run()
    return got


@pytest.mark.parametrize("divisor", [4, 5, 16])
def test_loopback(divisor):
    m = Module()
    m.submodules.tx = tx = UARTTransmitter(divisor)
    m.submodules.rx = rx = UARTReceiver(divisor)
    m.d.comb += rx.rx.eq(tx.tx)

    async def send(ctx):
        for b in BYTES:
            ctx.set(tx.data.valid, 1)
            ctx.set(tx.data.payload, b)
            await ctx.tick().until(tx.data.ready)
        ctx.set(tx.data.valid, 0)
        await ctx.tick().repeat(12 * divisor)

    assert _received(m, rx, send) == BYTES


def test_a_missing_stop_bit_drops_the_byte():
    rx = UARTReceiver(4)

    async def line(ctx):
        for byte, stop in [(0x3C, 0), (0x42, 1)]:
            for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [stop, 1, 1]:
                ctx.set(rx.rx, bit)
                await ctx.tick().repeat(4)

    assert _received(rx, rx, line) == [0x42]


@pytest.mark.parametrize("divisor", [3, 0, 4.5, True])
def test_too_few_cycles_per_bit_is_refused(divisor):
    with pytest.raises(ValueError, match="at least 4 clock cycles per bit"):
        UARTReceiver(divisor)
    with pytest.raises(ValueError, match="at least 4 clock cycles per bit"):
        UARTTransmitter(divisor)
