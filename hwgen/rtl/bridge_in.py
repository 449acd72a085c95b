"""The host bridge's receiving side: frames (`hwgen.protocol`) from the UART into input ports.

A frame's elements are written into its port's `ChunkBuffer` as they arrive and become visible
to the design only when the frame's CRC matches, so a damaged frame never reaches the design.
A refused frame (bad CRC, unknown id, bad length, out of order, truncated) makes the receiver
drop bytes until the line has been silent for ``timeout`` cycles, then answer with an error
reply; frames committed before are kept. A committed frame is acknowledged once its buffer has
room for two more chunks: that is the host's flow control (the UART itself has none), which
lets the host keep `WINDOW` = 2 frames per port unacknowledged and the line busy while an
acknowledgement waits behind an output frame.
"""
from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.crc import catalog
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2, exact_log2

from ..protocol import ACK, ERROR, SYNC, WINDOW

__all__ = ["Reply", "BridgePort", "ChunkBuffer", "FrameReceiver"]

# A reply the receiver asks the sender to frame: an acknowledgement or an error.
Reply = data.StructLayout({"id": 8, "seq": 8})

CRC_ERROR, UNKNOWN_ID, BAD_LENGTH, TRUNCATED, OUT_OF_ORDER = 1, 2, 3, 4, 5


class BridgePort:
    """One tensor on the bridge: its ``id`` (index in design.json's ports), ``name``, element
    ``bits``, ``element_bytes`` on the line, ``chunk`` (most elements in one frame) and
    ``numel`` (elements per problem)."""

    def __init__(self, ident, name, bits, element_bytes, chunk, numel):
        self.id, self.name, self.bits = ident, name, bits
        self.element_bytes, self.chunk, self.numel = element_bytes, chunk, numel

    @property
    def capacity(self):
        """Elements an input port buffers: a window of chunks arriving and one draining."""
        return 1 << ceil_log2((WINDOW + 1) * self.chunk)


class ChunkBuffer(wiring.Component):
    """A FIFO whose writes count only once committed: ``w_en`` writes at a speculative pointer,
    ``commit`` makes what was written visible at ``out``, ``rollback`` forgets it.

    Attributes
    ----------
    w_data, w_en, commit, rollback : In
    free : Out
        Elements that may still be written (counting committed elements only).
    out : Out(stream.Signature(bits))
    """

    def __init__(self, bits, capacity):
        self._bits, self._capacity = bits, capacity
        exact_log2(capacity)                        # a power of two: pointers wrap by width
        super().__init__({"w_data": In(bits), "w_en": In(1), "commit": In(1), "rollback": In(1),
                          "free": Out(range(capacity + 1)),
                          "out": Out(stream.Signature(bits))})

    def elaborate(self, platform):
        m = Module()
        cap = self._capacity
        aw = exact_log2(cap)
        m.submodules.mem = mem = Memory(shape=self._bits, depth=cap, init=[])
        wp, rp = mem.write_port(), mem.read_port()
        spec, w, r = Signal(aw + 1), Signal(aw + 1), Signal(aw + 1)
        m.d.comb += [wp.addr.eq(spec[:aw]), wp.data.eq(self.w_data), wp.en.eq(self.w_en),
                     self.free.eq(cap - (w - r)[:aw + 1])]
        with m.If(self.rollback):
            m.d.sync += spec.eq(w)
        with m.Elif(self.w_en):
            m.d.sync += spec.eq(spec + 1)
        with m.If(self.commit):
            m.d.sync += w.eq(spec)
        # The read side keeps one element in the read port's register.
        held = Signal()
        fetch = Signal()
        m.d.comb += [fetch.eq((r != w) & (~held | self.out.ready)), rp.addr.eq(r[:aw]),
                     rp.en.eq(fetch), self.out.valid.eq(held), self.out.payload.eq(rp.data)]
        with m.If(fetch):
            m.d.sync += [r.eq(r + 1), held.eq(1)]
        with m.Elif(self.out.ready):
            m.d.sync += held.eq(0)
        return m


class FrameReceiver(wiring.Component):
    """Bytes from the UART (``byte`` with its one-cycle ``byte_valid``) → one element stream
    per input port (``in_<name>``), and ``reply`` (`Reply`) for the sender.

    Parameters
    ----------
    ports : list of BridgePort
        The input tensors.
    timeout : int
        Cycles of silence that end a frame early or end the dropping after an error.
    """

    def __init__(self, ports, timeout):
        self._ports, self._timeout = list(ports), timeout
        members = {"byte": In(8), "byte_valid": In(1), "reply": Out(stream.Signature(Reply))}
        for p in self._ports:
            members[f"in_{p.name}"] = Out(stream.Signature(p.bits))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.crc = crc = catalog.CRC16_CCITT_FALSE(8).create()
        self._buffers = []
        for p in self._ports:
            buf = ChunkBuffer(p.bits, p.capacity)
            m.submodules[f"buffer_{p.name}"] = buf
            wiring.connect(m, buf.out, wiring.flipped(getattr(self, f"in_{p.name}")))
            self._buffers.append(buf)
        self._frame = {"ident": Signal(8), "seq": Signal(8), "low": Signal(8),
                       "left": Signal(16), "dup": Signal(), "index": Signal(3),
                       "word": Signal(8 * max([p.element_bytes for p in self._ports] or [1])),
                       "crc_low_ok": Signal(), "code": Signal(8)}
        self._state = [{"expect": Signal(8, name=f"expect_{p.name}"),
                        "ack": Signal(name=f"ack_{p.name}"),
                        "ack_seq": Signal(8, name=f"ack_seq_{p.name}")} for p in self._ports]
        self._error = {"pending": Signal(), "code": Signal(8)}
        quiet = Signal(range(self._timeout + 1))
        with m.If(self.byte_valid):
            m.d.sync += quiet.eq(0)
        with m.Elif(quiet != self._timeout):
            m.d.sync += quiet.eq(quiet + 1)
        self._replies(m)                    # before the parser: its sets win over clears
        self._parser(m, crc, quiet == self._timeout)
        return m

    def _replies(self, m):
        """The pending error first, then acknowledgements whose buffer has room for `WINDOW`
        chunks."""
        err = self._error
        with m.If(err["pending"]):
            m.d.comb += [self.reply.valid.eq(1), self.reply.payload.id.eq(ERROR),
                         self.reply.payload.seq.eq(err["code"])]
            with m.If(self.reply.ready):
                m.d.sync += err["pending"].eq(0)
        for p, buf, st in zip(self._ports, self._buffers, self._state):
            with m.Elif(st["ack"] & (buf.free >= WINDOW * p.chunk)):
                m.d.comb += [self.reply.valid.eq(1), self.reply.payload.id.eq(ACK | p.id),
                             self.reply.payload.seq.eq(st["ack_seq"])]
                with m.If(self.reply.ready):
                    m.d.sync += st["ack"].eq(0)

    def _verdict(self, m, length):
        """The reason (0: none) to refuse the frame whose header ends with ``length``."""
        f = self._frame
        verdict = Signal(8, init=UNKNOWN_ID)
        for p, buf, st in zip(self._ports, self._buffers, self._state):
            shift = exact_log2(p.element_bytes)
            elements = length >> shift
            whole = (length & (p.element_bytes - 1)) == 0
            fits_chunk = (length != 0) & whole & (elements <= p.chunk)
            new = f["seq"] == st["expect"]
            behind = (st["expect"] - f["seq"])[:8]
            dup = (behind != 0) & (behind <= WINDOW)
            with m.If(f["ident"] == p.id):
                m.d.comb += verdict.eq(Mux(~fits_chunk, BAD_LENGTH,
                                       Mux(~(new | dup), OUT_OF_ORDER,
                                       Mux(new & (elements > buf.free), BAD_LENGTH, 0))))
                m.d.sync += f["dup"].eq(~new)
        return verdict

    def _fail(self, m, code, now=False):
        """Forget the frame; answer ``code`` now or after the line falls silent."""
        m.d.comb += [b.rollback.eq(1) for b in self._buffers]
        if now:
            m.d.sync += [self._error["pending"].eq(1), self._error["code"].eq(code)]
            m.next = "IDLE"
        else:
            m.d.sync += self._frame["code"].eq(code)
            m.next = "DRAIN"

    def _parser(self, m, crc, silent):
        f, b, v = self._frame, self.byte, self.byte_valid
        m.d.comb += crc.data.eq(b)
        header = {"ID": ("ident", "SEQ"), "SEQ": ("seq", "LEN0"), "LEN0": ("low", "LEN1")}
        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += crc.start.eq(v & (b == SYNC))
                with m.If(v & (b == SYNC)):
                    m.next = "ID"
            for state, (field, following) in header.items():
                with m.State(state):
                    with m.If(silent):
                        self._fail(m, TRUNCATED, now=True)
                    with m.Elif(v):
                        m.d.comb += crc.valid.eq(1)
                        m.d.sync += f[field].eq(b)
                        m.next = following
            with m.State("LEN1"):
                length = Cat(f["low"], b)
                verdict = self._verdict(m, length)
                with m.If(silent):
                    self._fail(m, TRUNCATED, now=True)
                with m.Elif(v & (verdict != 0)):
                    self._fail(m, verdict)
                with m.Elif(v):
                    m.d.comb += crc.valid.eq(1)
                    m.d.sync += [f["left"].eq(length), f["index"].eq(0)]
                    m.next = "PAYLOAD"
            with m.State("PAYLOAD"):
                with m.If(silent):
                    self._fail(m, TRUNCATED, now=True)
                with m.Elif(v):
                    m.d.comb += crc.valid.eq(1)
                    self._payload_byte(m)
                    with m.If(f["left"] == 1):
                        m.next = "CRC0"
            with m.State("CRC0"):
                with m.If(silent):
                    self._fail(m, TRUNCATED, now=True)
                with m.Elif(v):
                    m.d.sync += f["crc_low_ok"].eq(b == crc.crc[:8])
                    m.next = "CRC1"
            with m.State("CRC1"):
                with m.If(silent):
                    self._fail(m, TRUNCATED, now=True)
                with m.Elif(v & f["crc_low_ok"] & (b == crc.crc[8:])):
                    self._commit(m)
                    m.next = "IDLE"
                with m.Elif(v):
                    self._fail(m, CRC_ERROR)
            with m.State("DRAIN"):
                with m.If(silent):
                    m.d.sync += [self._error["pending"].eq(1), self._error["code"].eq(f["code"])]
                    m.next = "IDLE"

    def _payload_byte(self, m):
        """Shift the byte into the element word; a completed element goes into the buffer."""
        f = self._frame
        word = Cat(f["word"][8:], self.byte)
        m.d.sync += [f["word"].eq(word), f["left"].eq(f["left"] - 1), f["index"].eq(f["index"] + 1)]
        for p, buf in zip(self._ports, self._buffers):
            with m.If((f["ident"] == p.id) & (f["index"] == p.element_bytes - 1)):
                m.d.sync += f["index"].eq(0)
                low = len(f["word"]) - 8 * p.element_bytes
                m.d.comb += [buf.w_data.eq(word[low:low + p.bits]), buf.w_en.eq(~f["dup"])]

    def _commit(self, m):
        """A whole frame with a good CRC: a new one becomes visible; new or a repeat (its
        acknowledgement was lost, or the host resent it after an error reply), the port's
        last committed frame is acknowledged, which acknowledges every frame before it."""
        f = self._frame
        for p, buf, st in zip(self._ports, self._buffers, self._state):
            with m.If(f["ident"] == p.id):
                m.d.comb += buf.commit.eq(~f["dup"])
                m.d.sync += [st["ack"].eq(1), st["ack_seq"].eq(st["expect"] - 1)]
                with m.If(~f["dup"]):
                    m.d.sync += [st["expect"].eq(st["expect"] + 1), st["ack_seq"].eq(f["seq"])]
