"""The host bridge's sending side: replies and output elements into frames for the UART.

Every output port drains into a FIFO of one chunk, so the design never waits for the line to
serve another port. A data frame starts only when its port's FIFO already holds the whole frame
(a chunk, or what is left of the problem's tensor), so a frame, once begun, never stalls; replies
(`FrameReceiver`'s acknowledgements and errors) go before data.
"""
from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import fifo, stream, wiring
from amaranth.lib.crc import catalog
from amaranth.lib.wiring import In, Out
from amaranth.utils import exact_log2

from ..protocol import SYNC
from .bridge_in import Reply

__all__ = ["FrameSender"]


class FrameSender(wiring.Component):
    """``reply`` and one element stream per output port (``out_<name>``) → ``bytes`` for the
    UART transmitter.

    Parameters
    ----------
    ports : list of BridgePort
        The output tensors.
    """

    def __init__(self, ports):
        self._ports = list(ports)
        members = {"reply": In(stream.Signature(Reply)), "bytes": Out(stream.Signature(8))}
        for p in self._ports:
            members[f"out_{p.name}"] = In(stream.Signature(p.bits))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.crc = crc = catalog.CRC16_CCITT_FALSE(8).create()
        frame = {"ident": Signal(8), "seq": Signal(8), "length": Signal(16), "port": Signal(8),
                 "index": Signal(3)}
        queues = []
        for p in self._ports:
            q = fifo.SyncFIFOBuffered(width=p.bits, depth=p.chunk)
            m.submodules[f"queue_{p.name}"] = q
            src = getattr(self, f"out_{p.name}")
            m.d.comb += [q.w_data.eq(src.payload), q.w_en.eq(src.valid), src.ready.eq(q.w_rdy)]
            queues.append(q)
        out = self.bytes
        sent = out.valid & out.ready
        with m.FSM():
            with m.State("IDLE"):
                self._choose(m, frame, queues)
            for state, value, following in [("SYNC", SYNC, "ID"), ("ID", frame["ident"], "SEQ"),
                                            ("SEQ", frame["seq"], "LEN0"),
                                            ("LEN0", frame["length"][:8], "LEN1")]:
                with m.State(state):
                    m.d.comb += [out.valid.eq(1), out.payload.eq(value)]
                    m.d.comb += [crc.start.eq(sent & (state == "SYNC")),
                                 crc.valid.eq(sent & (state != "SYNC"))]
                    with m.If(sent):
                        m.next = following
            with m.State("LEN1"):
                m.d.comb += [out.valid.eq(1), out.payload.eq(frame["length"][8:]),
                             crc.valid.eq(sent)]
                with m.If(sent):
                    m.next = "PAYLOAD"
                    with m.If(frame["length"] == 0):
                        m.next = "CRC0"
            with m.State("PAYLOAD"):
                m.d.comb += crc.valid.eq(sent)
                self._payload(m, frame, queues, sent)
            with m.State("CRC0"):
                m.d.comb += [out.valid.eq(1), out.payload.eq(crc.crc[:8])]
                with m.If(sent):
                    m.next = "CRC1"
            with m.State("CRC1"):
                m.d.comb += [out.valid.eq(1), out.payload.eq(crc.crc[8:])]
                with m.If(sent):
                    m.next = "IDLE"
        m.d.comb += crc.data.eq(out.payload)
        return m

    def _choose(self, m, frame, queues):
        """Start a reply's frame, or a data frame of the first port whose FIFO holds it."""
        ports = []
        for p, q in zip(self._ports, queues):
            left = Signal(range(p.numel + 1), init=p.numel, name=f"left_{p.name}")
            seq = Signal(8, name=f"seq_{p.name}")
            size = Signal(range(p.chunk + 1), name=f"size_{p.name}")
            m.d.comb += size.eq(Mux(left < p.chunk, left, p.chunk))
            ports.append((left, seq, size, q.level >= size))
        m.d.comb += self.reply.ready.eq(1)
        with m.If(self.reply.valid):
            m.d.sync += [frame["ident"].eq(self.reply.payload.id),
                         frame["seq"].eq(self.reply.payload.seq), frame["length"].eq(0)]
            m.next = "SYNC"
        for k, (p, (left, seq, size, ready)) in enumerate(zip(self._ports, ports)):
            with m.Elif(ready):
                m.d.sync += [frame["ident"].eq(p.id), frame["seq"].eq(seq), frame["port"].eq(k),
                             frame["length"].eq(size << exact_log2(p.element_bytes)), frame["index"].eq(0),
                             seq.eq(seq + 1), left.eq(Mux(left == size, p.numel, left - size))]
                m.next = "SYNC"

    def _payload(self, m, frame, queues, sent):
        """Each element's bytes, little-endian; the element leaves its FIFO after its last."""
        with m.If(sent):
            m.d.sync += [frame["length"].eq(frame["length"] - 1), frame["index"].eq(frame["index"] + 1)]
            with m.If(frame["length"] == 1):
                m.next = "CRC0"
        for k, (p, q) in enumerate(zip(self._ports, queues)):
            with m.If(frame["port"] == k):
                m.d.comb += self.bytes.valid.eq(q.r_rdy)
                word = q.r_data
                for i in range(p.element_bytes):
                    with m.If(frame["index"] == i):
                        m.d.comb += self.bytes.payload.eq(word[8 * i:8 * i + 8])
                with m.If(sent & (frame["index"] == p.element_bytes - 1)):
                    m.d.comb += q.r_en.eq(1)
                    m.d.sync += frame["index"].eq(0)
