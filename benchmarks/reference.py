"""A hand-written output-stationary int8 GEMM array: the peer every generated design is compared
with. Same host interface as hwgen's ``gemm_os`` (one stream port per tensor, row-major, one
element per beat); written as an expert would write it directly in Amaranth.

LOAD: A and B arrive concurrently; row i of A goes to bank i, column j of B to bank j.
COMPUTE: one counter reads every bank at address t; row i of A and column j of B are skewed by
i (j) registers so that PE (i, j) sees a[i, k] and b[k, j] at t = k + i + j. A values move right
and B values move down through plain registers, with first/last flags riding along A. Each PE
registers its product (for the DSP) and accumulates into a reset-less 32-bit register; on the
last k it captures the sum into its output register.
DRAIN: the output registers form one chain in row-major order and shift out through C.
"""
from amaranth.hdl import Module, Mux, Signal, signed, unsigned
from amaranth.lib import memory, stream, wiring
from amaranth.lib.wiring import In, Out


class ReferenceGemm(wiring.Component):
    def __init__(self, M, N, K):
        self.M, self.N, self.K = M, N, K
        super().__init__({"A": In(stream.Signature(unsigned(8))),
                          "B": In(stream.Signature(unsigned(8))),
                          "C": Out(stream.Signature(unsigned(32)))})

    @property
    def expected_cycles(self):
        """First input beat to last output beat with a host that never stalls."""
        M, N, K = self.M, self.N, self.K
        load = max(M * K, K * N)
        compute = K + M + N + 2         # last k reaches PE (M-1, N-1), product, capture
        return load + 1 + compute + M * N

    def elaborate(self, platform):
        M, N, K = self.M, self.N, self.K
        m = Module()
        a_banks = [memory.Memory(shape=signed(8), depth=K, init=[]) for _ in range(M)]
        b_banks = [memory.Memory(shape=signed(8), depth=K, init=[]) for _ in range(N)]
        for i, mem in enumerate(a_banks):
            m.submodules[f"a_bank{i}"] = mem
        for j, mem in enumerate(b_banks):
            m.submodules[f"b_bank{j}"] = mem

        # -- LOAD: row-major streams into banks ---------------------------------------------
        loading = Signal(init=1)
        a_row, a_col = Signal(range(M)), Signal(range(K))
        b_row, b_col = Signal(range(K)), Signal(range(N))
        a_done, b_done = Signal(), Signal()
        m.d.comb += [self.A.ready.eq(loading & ~a_done), self.B.ready.eq(loading & ~b_done)]
        for i, mem in enumerate(a_banks):
            wp = mem.write_port()
            m.d.comb += [wp.addr.eq(a_col), wp.data.eq(self.A.payload),
                         wp.en.eq(self.A.valid & self.A.ready & (a_row == i))]
        for j, mem in enumerate(b_banks):
            wp = mem.write_port()
            m.d.comb += [wp.addr.eq(b_row), wp.data.eq(self.B.payload),
                         wp.en.eq(self.B.valid & self.B.ready & (b_col == j))]
        with m.If(self.A.valid & self.A.ready):
            m.d.sync += a_col.eq(Mux(a_col == K - 1, 0, a_col + 1))
            with m.If(a_col == K - 1):
                m.d.sync += a_row.eq(Mux(a_row == M - 1, 0, a_row + 1))
                with m.If(a_row == M - 1):
                    m.d.sync += a_done.eq(1)
        with m.If(self.B.valid & self.B.ready):
            m.d.sync += b_col.eq(Mux(b_col == N - 1, 0, b_col + 1))
            with m.If(b_col == N - 1):
                m.d.sync += b_row.eq(Mux(b_row == K - 1, 0, b_row + 1))
                with m.If(b_row == K - 1):
                    m.d.sync += b_done.eq(1)

        # -- COMPUTE --------------------------------------------------------------------------
        computing = Signal()
        t = Signal(range(K + M + N + 3))
        reading = Signal()         # bank data for k = t - 1 is valid this cycle
        first0, last0 = Signal(), Signal()
        m.d.comb += reading.eq(computing & (t >= 1) & (t <= K))
        m.d.comb += [first0.eq(reading & (t == 1)), last0.eq(reading & (t == K))]
        a_edge, b_edge = [], []
        for i, mem in enumerate(a_banks):
            rp = mem.read_port()
            m.d.comb += rp.addr.eq(t)
            a_edge.append(rp.data)
        for j, mem in enumerate(b_banks):
            rp = mem.read_port()
            m.d.comb += rp.addr.eq(t)
            b_edge.append(rp.data)

        def skew(value, n, name, reset_less=True):
            """``value`` delayed ``n`` cycles. Flags (control) keep a reset, data does not."""
            for s in range(n):
                r = Signal.like(value, reset_less=reset_less, name=f"{name}_skew{s}")
                m.d.sync += r.eq(value)
                value = r
            return value

        out_regs = [[Signal(signed(32), reset_less=True, name=f"c_{i}_{j}") for j in range(N)]
                    for i in range(M)]
        captures = []
        b_down = [None] * N        # B leaving row i - 1, per column
        for i in range(M):
            a = skew(a_edge[i], i, f"a{i}")
            first = skew(first0, i, f"first{i}", reset_less=False)
            last = skew(last0, i, f"last{i}", reset_less=False)
            for j in range(N):
                b = b_edge[j] if i == 0 else b_down[j]
                if i == 0:
                    b = skew(b_edge[j], j, f"b{j}")
                # PE (i, j): inputs a, b, first, last valid this cycle.
                prod = Signal(signed(16), reset_less=True, name=f"prod_{i}_{j}")
                acc = Signal(signed(32), reset_less=True, name=f"acc_{i}_{j}")
                p_first, p_last = Signal(name=f"pf_{i}_{j}"), Signal(name=f"pl_{i}_{j}")
                m.d.sync += [prod.eq(a * b), p_first.eq(first), p_last.eq(last)]
                total = Mux(p_first, 0, acc) + prod
                m.d.sync += acc.eq(total)
                captures.append((i, j, p_last, total))
                # Pass a, b and the flags on through registers.
                a_next = Signal(signed(8), reset_less=True, name=f"a_{i}_{j}")
                b_next = Signal(signed(8), reset_less=True, name=f"b_{i}_{j}")
                f_next, l_next = Signal(name=f"f_{i}_{j}"), Signal(name=f"l_{i}_{j}")
                m.d.sync += [a_next.eq(a), b_next.eq(b), f_next.eq(first), l_next.eq(last)]
                b_down[j] = b_next
                a, first, last = a_next, f_next, l_next

        # -- DRAIN: one chain in row-major order ----------------------------------------------
        draining = Signal()
        chain = [out_regs[i][j] for i in range(M) for j in range(N)]
        sent = Signal(range(M * N + 1))
        take = Signal()
        m.d.comb += [self.C.valid.eq(draining & (sent != M * N)), self.C.payload.eq(chain[0]),
                     take.eq(self.C.valid & self.C.ready)]
        for (i, j, p_last, total) in captures:
            n = i * N + j
            with m.If(take):
                if n + 1 < M * N:
                    m.d.sync += chain[n].eq(chain[n + 1])
            with m.Elif(p_last):
                m.d.sync += chain[n].eq(total)

        # -- phases ---------------------------------------------------------------------------
        with m.If(loading & a_done & b_done):
            m.d.sync += [loading.eq(0), computing.eq(1), t.eq(0), a_done.eq(0), b_done.eq(0)]
        with m.If(computing):
            m.d.sync += t.eq(t + 1)
            with m.If(t == K + M + N + 1):
                m.d.sync += [computing.eq(0), draining.eq(1), sent.eq(0)]
        with m.If(take):
            m.d.sync += sent.eq(sent + 1)
            with m.If(sent == M * N - 1):
                m.d.sync += [draining.eq(0), loading.eq(1)]
        return m
