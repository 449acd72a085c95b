"""hwgen.allo: Allo's spelling (``@df.region()``, ``@df.kernel(mapping=, args=)``,
``allo.grid``, ``df.build``) runs on hwgen's compiler, floats included, in place on numpy."""
import numpy as np
import pytest

import hwgen.allo as allo
import hwgen.allo.dataflow as df
from hwgen import HwgenError, HwgenWarning
from hwgen.examples import gemv_float
from hwgen.allo.backend import hls
from hwgen.allo.ir.types import Stream, bfloat16, float32, int8, int16, int32
from hwgen.allo.memory import Layout
from hwgen.ir.types import R, S


def _scale_and_shift(Ty):
    M, N = 3, 5
    shift = 0.5 if Ty is float32 else 1

    @df.region()
    def top(A: Ty[M, N], B: Ty[M, N]):
        pipe: Stream[Ty, 2]

        @df.kernel(mapping=[1], args=[A])
        def load(x: Ty[M, N]):
            for i, j in allo.grid(M, N):
                pipe.put(x[i, j] * 2)

        @df.kernel(mapping=[1], args=[B])
        def store(x: Ty[M, N]):          # the same parameter name, bound to another tensor
            for i, j in allo.grid(M, N):
                v = pipe.get()
                x[i, j] = v + shift

    return top


def test_float_program_runs_in_place_bit_exact_with_numpy():
    top = _scale_and_shift(float32)
    A = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    B = np.zeros((3, 5), np.float32)
    df.build(top, target="simulator")(A, B)
    assert np.array_equal(B, A * np.float32(2) + np.float32(0.5))


@pytest.mark.filterwarnings("ignore:.*wraps")
def test_integer_program_runs_in_place():
    top = _scale_and_shift(int32)
    A = np.arange(15, dtype=np.int32).reshape(3, 5)
    B = np.zeros((3, 5), np.int32)
    df.build(top, target="simulator")(A, B)
    assert np.array_equal(B, A * 2 + 1)


def test_systolic_rows_with_meta_if_and_get_pid():
    M, K = 2, 6

    @df.region()
    def top(A: float32[M, K], B: bfloat16[K], C: float32[M]):
        fifo: Stream[bfloat16, 2][M + 1]

        @df.kernel(mapping=[M + 1], args=[A, B, C])
        def row(a: float32[M, K], b: bfloat16[K], c: float32[M]):
            i = df.get_pid()
            with allo.meta_if(i == 0):
                for k in range(K):
                    fifo[1].put(b[k])
            with allo.meta_else():
                acc: float32 = 0
                for k in range(K):
                    v: bfloat16 = fifo[i].get()
                    acc += a[i - 1, k] * v
                    with allo.meta_if(i < M):
                        fifo[i + 1].put(v)
                c[i - 1] = acc

    rng = np.random.default_rng(2)
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = np.array([1.0, -2.5, 0.375, 8.0, 0.0, -1.0], np.float32)    # exact in bfloat16
    C = np.zeros(M, np.float32)
    df.build(top, target="simulator")(A, B, C)
    # float32 products, summed into six interleaved partial sums as hardware does
    assert np.array_equal(C, gemv_float.reference(A, B)["y"])
    assert np.allclose(C, A @ B, rtol=1e-6)


@pytest.mark.filterwarnings("ignore:.*wraps")
def test_vendor_targets_build_but_refuse_to_run():
    top = _scale_and_shift(int32)
    mod = df.build(top)                       # Allo's default target: Vitis HLS
    assert hls.is_available("vitis_hls") is False
    with pytest.raises(HwgenError, match="target='simulator'"):
        mod(np.zeros((3, 5), np.int32), np.zeros((3, 5), np.int32))
    with pytest.raises(HwgenError, match="vendor tool"):
        mod.hls_code
    with pytest.raises(HwgenError, match="unknown target 'fpga'"):
        df.build(top, target="fpga")


@pytest.mark.filterwarnings("ignore:.*wraps")
def test_bad_calls_are_clear_errors():
    top = _scale_and_shift(int32)
    mod = df.build(top, target="simulator")
    with pytest.raises(HwgenError, match="takes 2 arrays"):
        mod(np.zeros((3, 5), np.int32))
    with pytest.raises(HwgenError, match=r"shape \(3, 5\)"):
        mod(np.zeros((5, 3), np.int32), np.zeros((3, 5), np.int32))
    with pytest.raises(HwgenError, match="takes a @df.region"):
        df.build(lambda: None, target="simulator")


def test_kernel_arguments_are_checked():
    @df.region()
    def top(A: int8[4], B: int8[4]):
        @df.kernel(mapping=[1], args=[A])
        def k(x: int8[2], y: int8[4]):
            for i in range(4):
                y[i] = x[i]

    with pytest.raises(HwgenError, match="2 parameter.*args= binds 1"):
        df.build(top, target="simulator")

    @df.region()
    def top2(A: int8[4], B: int8[4]):
        @df.kernel(mapping=[1], args=[A, B])
        def k(x: int8[2], y: int8[4]):
            for i in range(2):
                y[i] = x[i]

    with pytest.raises(HwgenError, match="it is the instance.s shard, indexed from 0"):
        df.build(top2, target="simulator")


def test_grid_needs_one_variable_per_size():
    @df.region()
    def top(A: int8[4, 4], B: int8[4, 4]):
        @df.kernel(mapping=[1], args=[A, B])
        def k(x: int8[4, 4], y: int8[4, 4]):
            for i in allo.grid(4, 4):
                y[i, i] = x[i, i]

    with pytest.raises(HwgenError, match="one loop variable per size"):
        df.build(top, target="simulator")


def test_layout_is_hwgens():
    assert tuple(Layout([Layout.Shard(0), Layout.Replicate()])) == (S(0), R)
    assert (int8[4, 4] @ Layout([Layout.Replicate(), Layout.Shard(1)])).layout == (R, S(1))


@pytest.mark.filterwarnings("ignore:.*wraps")
def test_rtl_target_runs_the_generated_hardware(tmp_path):
    top = _scale_and_shift(int32)
    A = np.arange(-7, 8, dtype=np.int32).reshape(3, 5)
    B = np.zeros((3, 5), np.int32)
    df.build(top, target="verilator", project=str(tmp_path), sim="icarus")(A, B)
    assert np.array_equal(B, A * 2 + 1)
    assert (tmp_path / "test_icarus" / "outputs_random_backpressure.npz").exists()


def test_rtl_target_carries_float_bit_patterns():
    M = 6

    @df.region()
    def top(A: float32[M], B: float32[M]):
        pipe: Stream[float32, 2]

        @df.kernel(mapping=[1], args=[A])
        def send(a: float32[M]):
            for i in range(M):
                pipe.put(a[i])

        @df.kernel(mapping=[1], args=[B])
        def receive(b: float32[M]):
            for i in range(M):
                b[i] = pipe.get()

    A = np.array([1.5, -0.0, np.inf, -np.inf, 1e-40, -3.25e38], np.float32)
    B = np.zeros(M, np.float32)
    df.build(top, target="verilator", sim="icarus")(A, B)
    assert np.array_equal(A.view(np.uint32), B.view(np.uint32))


def test_streams_of_blocks_and_initialised_arrays():
    M, NB = 3, 2
    table = np.array([[1, -2, 3], [4, 5, -6]], np.int16)

    @df.region()
    def top(A: int16[NB * M, M], B: float32[NB], C: int16[NB * M, M], D: int16[NB, M],
            E: float32[NB]):
        blocks: Stream[int16[M, M], 2]
        halves: Stream[float32[NB], 2]

        @df.kernel(mapping=[1], args=[A, B])
        def producer(a: int16[NB * M, M], b: float32[NB]):
            for i in range(NB):
                block: int16[M, M] = 0              # a declaration in a loop: every iteration
                for m, n in allo.grid(M, M):
                    block[m, n] = a[i * M + m, n] + block[m, n]
                blocks.put(block)
            halves.put(b)                           # a whole tensor as one block

        @df.kernel(mapping=[1], args=[C, D, E])
        def consumer(c: int16[NB * M, M], d: int16[NB, M], e: float32[NB]):
            for i in range(NB):
                block: int16[M, M] = blocks.get()
                for m, n in allo.grid(M, M):
                    c[i * M + m, n] = block[m, n]
            h: float32[NB] = halves.get()
            lut: int16[NB, M] = table
            half: float32[NB] = 0.5
            for i in range(NB):
                e[i] = h[i] * half[i]
                for m in range(M):
                    d[i, m] = lut[i, m]

    A = np.arange(-9, 9, dtype=np.int16).reshape(NB * M, M)
    B = np.array([3.0, -1.25], np.float32)
    C, D, E = np.zeros_like(A), np.zeros((NB, M), np.int16), np.zeros(NB, np.float32)
    df.build(top, target="simulator")(A, B, C, D, E)
    assert np.array_equal(C, A) and np.array_equal(D, table)
    assert np.array_equal(E, B * np.float32(0.5))


def test_block_misuse_is_a_clear_error():
    @df.region()
    def top(A: int16[4], C: int16[4]):
        blocks: Stream[int16[4], 2]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: int16[4]):
            blocks.put(a[0])

        @df.kernel(mapping=[1], args=[C])
        def consumer(c: int16[4]):
            block: int16[2] = blocks.get()
            c[0] = block[0]

    with pytest.raises(HwgenError, match=r"carries blocks int16\[4\]: put a local array"):
        df.build(top, target="simulator")


def test_slices_and_accumulating_into_a_tensor():
    rows = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.int32)

    @df.region()
    def top(A: int32[2, 4], C: int32[2, 4], S: float32[2]):
        @df.kernel(mapping=[2], args=[A, C, S])
        def k(a: int32[2, 4], c: int32[2, 4], s: float32[2]):
            p = df.get_pid()
            row: int32[4] = rows[p]
            c[p, :] = row                   # a row from a local array
            c[p, 1:3] = 0                   # one value for a slice
            for j in range(4):
                c[p, j] += a[p, j]          # read after the writes above: no hardware
                s[p] += 0.5                 # a sum held in a local across j

    A = np.arange(8, dtype=np.int32).reshape(2, 4)
    C = np.zeros((2, 4), np.int32)
    S = np.array([1.0, -1.0], np.float32)
    mod = df.build(top, target="simulator")
    mod(A, C, S)
    want = rows.copy()
    want[:, 1:3] = 0
    assert np.array_equal(C, want + A) and np.array_equal(S, [3.0, 1.0])
    from hwgen.schedule import schedule
    with pytest.raises(HwgenError, match="'C' may be written at one element by two statements"):
        schedule(mod.graph)


def test_a_parameter_with_a_layout_is_the_instances_shard():
    M, N, K, P0, P1 = 4, 6, 3, 2, 3
    LyA = Layout([Layout.Shard(0), Layout.Replicate()])
    LyB = Layout([Layout.Replicate(), Layout.Shard(1)])
    LyC = Layout([Layout.Shard(0), Layout.Shard(1)])

    @df.region()
    def top(A: int8[M, K], B: int8[K, N], C: int32[M, N]):
        @df.kernel(mapping=[P0, P1], args=[A, B, C])
        def gemm(a: int8[M, K] @ LyA, b: int8[K, N] @ LyB, c: int32[M, N] @ LyC):
            for i, j in allo.grid(M // P0, N // P1):     # local indices of the shard
                acc: int32 = 0
                for k in range(K):
                    acc += a[i, k] * b[k, j]
                c[i, j] = acc

    rng = np.random.default_rng(4)
    A = rng.integers(-128, 128, (M, K)).astype(np.int8)
    B = rng.integers(-128, 128, (K, N)).astype(np.int8)
    C = np.zeros((M, N), np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B, C)
    assert np.array_equal(C, A.astype(np.int32) @ B.astype(np.int32))
    assert repr(mod.graph.tensors["C"].type) == "int32[4, 6] @ [S(0), S(1)]"

    @df.region()
    def outside(A: int8[M, K], C: int32[M, N]):
        @df.kernel(mapping=[P0, P1], args=[A, C])
        def k(a: int8[M, K] @ LyA, c: int32[M, N] @ LyC):
            for i, j in allo.grid(M // P0, N // P1):
                c[i, j] = a[i + 1, 0]                     # row M // P0 is not in the shard

    with pytest.raises(HwgenError, match=r"index i \+ 1 of 'a' takes values 1..2, outside 0..1"):
        df.build(outside, target="simulator")


def test_allo_kernels_address_whole_tensors_row_major():
    """As in Allo, ``X[r, k]`` with ``k`` past the last column reads the following rows (a
    warning at the line); past the end of the tensor it is an error."""
    R, C = 4, 1

    def region(reach):
        @df.region()
        def top(X: int32[R, C], Y: int32[R + 1]):
            @df.kernel(mapping=[1], args=[X, Y])
            def k(x: int32[R, C], y: int32[R + 1]):
                for i in range(reach):
                    y[i] = x[0, i]
        return top

    X, Y = np.arange(R * C, dtype=np.int32).reshape(R, C) + 10, np.zeros(R + 1, np.int32)
    with pytest.warns(HwgenWarning, match="read row-major, as Allo does"):
        df.build(region(R), target="simulator")(X, Y)
    assert np.array_equal(Y[:R], X.ravel())
    with pytest.raises(HwgenError, match=r"index i of 'x' takes values 0..4, outside 0..0"):
        df.build(region(R + 1), target="simulator")
