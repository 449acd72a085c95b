# amaranth: UnusedElaboratable=no
"""The UART bridge in simulation, byte by byte on its line: damaged, truncated, misaddressed,
oversized and out-of-order frames are each answered with an error frame and change nothing;
the next good problem is computed right."""
import numpy as np
import pytest

from hwgen.driver import Accelerator
from hwgen.errors import HwgenError
from hwgen.flow.bridge_sim import simulate
from hwgen.pipeline import load_design
from hwgen.protocol import ACK, ERROR, Decoder, frame
from hwgen.rtl.bridge import Bridged
from hwgen.schedule import plan
from tests.conftest import example, program


def _replies(line, seconds=0.0004):
    """The frames the bridge sends until ``seconds`` of simulated time after the last byte
    written has left."""
    dec, frames = Decoder(), []
    while line.pending():
        frames += dec.feed(line.read(0.0001))
    end = line.now() + seconds
    while line.now() < end:
        frames += dec.feed(line.read(end - line.now()))
    return [(f.id, f.seq) for f in frames]


def test_bad_frames_get_error_frames_and_the_next_problem_is_right():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 4})
    info, line = simulate(graph)
    a_bytes = bytes(range(8))                       # A: 2x4 int8
    damaged = bytearray(frame(0, 0, a_bytes))
    damaged[7] ^= 0x04                              # one payload bit
    cases = [(bytes(damaged), 1),                   # bad CRC
             (frame(0, 0, a_bytes)[:9], 4),         # truncated: the line falls silent
             (frame(2, 0, bytes(16)), 2),           # C is an output, not an input
             (frame(0x33, 0, a_bytes), 2),          # no such tensor
             (frame(0, 0, b""), 3),                 # empty
             (frame(0, 0, bytes(300)), 3),          # over the chunk
             (frame(0, 5, a_bytes), 5)]             # out of order
    for data, code in cases:
        line.write(data)
        assert _replies(line) == [(ERROR, code)], f"expected error {code} for {data.hex()}"
    line.write(frame(0, 0, a_bytes))               # a good frame is acknowledged
    assert _replies(line) == [(ACK | 0, 0)]
    line.write(frame(0, 0, a_bytes))               # again: a repeat, acknowledged, not stored
    assert _replies(line) == [(ACK | 0, 0)]
    b = np.arange(8).reshape(4, 2) - 3
    line.write(frame(1, 0, b.astype(np.int8).tobytes()))
    dec, got = Decoder(), []
    while len(got) < 2:
        got += dec.feed(line.read(0.001))
    a = np.frombuffer(a_bytes, dtype=np.int8).reshape(2, 4).astype(np.int64)
    assert [(f.id, f.seq) for f in got] == [(ACK | 1, 0), (2, 0)]
    assert np.array_equal(np.frombuffer(got[1].payload, dtype="<i4").reshape(2, 2), a @ b)


def test_after_bad_frames_the_driver_runs_the_next_problem_right():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 4})
    info, line = simulate(graph)
    damaged = bytearray(frame(0, 0, bytes(8)))
    damaged[6] ^= 0x01
    for data in [bytes(damaged), frame(0, 0, bytes(range(8)))[:6], frame(9, 0, b"x")]:
        line.write(data)
        assert _replies(line)[0][0] == ERROR
    a, b = np.arange(8).reshape(2, 4) - 4, np.arange(8).reshape(4, 2) - 3
    assert np.array_equal(Accelerator(info, line).run(A=a, B=b)["C"], a @ b)


class _Flaky:
    """A line that damages the n-th frame the driver writes and loses the first ACK."""

    def __init__(self, line, damage):
        self.line, self.damage, self.writes, self.lost = line, damage, 0, False

    def write(self, data):
        self.writes += 1
        if self.writes == self.damage:
            data = bytearray(data)
            data[-3] ^= 0x80
        self.line.write(bytes(data))

    def read(self, timeout):
        data = self.line.read(timeout)
        if not self.lost and len(data) >= 7 and data[1] & ACK and data[1] != ERROR:
            self.lost = True
            return data[7:]
        return data

    def now(self):
        return self.line.now()

    def close(self):
        pass


def test_the_driver_recovers_lost_acks_and_damaged_frames_without_losing_a_problem():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 3, "K": 40})
    info, line = simulate(graph, chunk=16)         # A and B in 5 and 8 frames per problem
    acc = Accelerator(info, _Flaky(line, damage=4), timeout=0.0005)
    rng = np.random.default_rng(3)
    problems = [{"A": rng.integers(-128, 128, (2, 40)), "B": rng.integers(-128, 128, (40, 3))}
                for _ in range(3)]
    for p, out in zip(problems, acc.run_many(problems)):
        assert np.array_equal(out["C"], p["A"] @ p["B"])
    assert acc.errors == [1] and acc.stats["frames_resent"] >= 2


def test_bad_construction_is_a_clear_error():
    graph = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 4})
    with pytest.raises(HwgenError, match="one element per beat"):
        Bridged(plan(graph, lanes=2), 4)
    with pytest.raises(HwgenError, match="at least 4 clock cycles"):
        Bridged(plan(graph, lanes=1), 2)
    with pytest.raises(HwgenError, match="power of two"):
        Bridged(plan(graph, lanes=1), 4, chunk=100)
    with pytest.raises(TypeError, match="plan"):
        Bridged(graph, 4)
    with pytest.raises(HwgenError, match="no input tensor: it starts problems on its own"):
        Bridged(plan(load_design(program("no_inputs")), lanes=1), 4)
