"""The Python driver (hwgen.driver.Accelerator) on the simulated UART bridge: several problems
back to back equal the interpreter for three examples, large payloads move at the line's rate,
and every wrong use is a clear error."""
import json
import os
from dataclasses import replace

import numpy as np
import pytest

from hwgen.cli import main
from hwgen.driver import Accelerator
from hwgen.exercise import exercise
from hwgen.errors import HwgenError
from hwgen.pipeline import load_design
from tests.conftest import example, program

PROGRAMS = os.path.join(os.path.dirname(__file__), "programs")


def test_make_run_port_sim_passes_five_problems(capsys):
    assert main(["run", example("gemm_os"), "--params", "M=4 N=4 K=16", "--port", "sim"]) == 0
    out = capsys.readouterr().out
    assert [f"problem {n}: PASS" in out for n in range(5)] == [True] * 5
    assert "of the 3000 kB/s line (30 Mbaud)" in out and "the rest is transfer" in out


def test_the_byte_line_equals_the_uart_in_a_tenth_of_the_cycles():
    """Whole bytes at ten times the UART's fastest rate: the same outputs, the simulated time
    of a transfer-bound problem (512 bytes in, 2,048 out) about a tenth."""
    a = np.arange(512) % 251 - 125
    seconds = {}
    for line in ("uart", "bytes"):
        with Accelerator.simulate(example("producer_consumer"), {"N": 512}, line=line) as acc:
            assert np.array_equal(acc.run(A=a)["B"], (a * 3 + 1).cumsum())
            seconds[line] = acc.stats["seconds"]
            assert acc.manifest.bridge.divisor == (4 if line == "uart" else None)
    assert 8 <= seconds["uart"] / seconds["bytes"] <= 10


def test_stats_per_problem_and_in_total():
    with Accelerator.simulate(example("gemm_os"), {"M": 2, "N": 2, "K": 3}) as acc:
        problems = [{"A": np.full((2, 3), k), "B": np.eye(3, 2, dtype=int)} for k in range(3)]
        acc.run_many(problems)
        first = dict(acc.stats)
        acc.run(**problems[0])
        done = first["problem_seconds"]
        assert first["problems"] == len(done) == 3 and 0 < done[0] < done[1] < done[2]
        assert done[2] <= first["seconds"]
        assert acc.total["problems"] == 4
        assert acc.total["seconds"] == pytest.approx(first["seconds"] + acc.stats["seconds"])
        assert acc.total["payload_bytes_in"] == 4 * (6 + 6)


def test_an_unknown_line_is_a_clear_error():
    with pytest.raises(HwgenError, match="line must be one of uart, bytes, not 'wires'"):
        Accelerator.simulate(example("gemm_os"), {"M": 2, "N": 2, "K": 3}, line="wires")


@pytest.mark.parametrize("name,params", [("conv2d_systolic", {"F": 2, "C": 2, "H": 5, "W": 6}),
                                         ("mlp_pipeline", {"N0": 8, "N1": 12, "N2": 8, "N3": 4})])
def test_five_problems_of_other_examples_match_the_interpreter(name, params):
    graph = load_design(example(name), params)
    with Accelerator.simulate(example(name), params) as acc:
        assert exercise(acc, graph, problems=5, seed=1, say=lambda text: None)
        assert acc.errors == [] and acc.stats["frames_resent"] == 0


@pytest.mark.parametrize("name", ["fifo_skew", "every_expression"])
def test_wide_inputs_and_several_outputs_cross_the_bridge(name):
    """fifo_skew has an int16 input (two bytes an element); every_expression four outputs,
    framed as each fills."""
    path = os.path.join(PROGRAMS, f"{name}.py")
    with Accelerator.simulate(path) as acc:
        assert exercise(acc, load_design(path), problems=3, seed=2, say=lambda text: None)


def test_large_payloads_move_within_ten_percent_of_the_line_rate():
    """512 bytes in and 2,048 out (int32 sums) of one problem, in 256-byte frames."""
    with Accelerator.simulate(example("producer_consumer"), {"N": 512}) as acc:
        a = np.arange(512) % 251 - 125
        assert np.array_equal(acc.run(A=a)["B"], (a * 3 + 1).cumsum())
        s = acc.stats
    assert (s["payload_bytes_in"], s["payload_bytes_out"]) == (512, 2048)
    assert s["input_bytes_per_s"] >= 0.9 * s["line_bytes_per_s"]
    assert s["output_bytes_per_s"] >= 0.9 * s["line_bytes_per_s"]


def test_a_design_json_records_its_source_and_simulates(tmp_path):
    with Accelerator.simulate(example("gemm_os"), {"M": 2, "N": 2, "K": 3}) as acc:
        manifest = acc.manifest
    assert manifest.bridge.baud == 3e7 and manifest.ports[0].name == "A"
    assert [(p.name, p.dir, p.id) for p in manifest.bridge.ports] == \
        [("A", "in", 0), ("B", "in", 1), ("C", "out", 2)]
    path = tmp_path / "design.json"
    manifest.write(path)
    a, b = np.ones((2, 3), dtype=int), np.full((3, 2), -2)
    with Accelerator.simulate(str(path)) as acc:
        assert np.array_equal(acc.run(A=a, B=b)["C"], a @ b)


def test_wrong_inputs_are_clear_errors():
    acc = Accelerator.simulate(example("gemm_os"), {"M": 2, "N": 2, "K": 3})
    a, b = np.ones((2, 3), dtype=int), np.ones((3, 2), dtype=int)
    with pytest.raises(HwgenError, match="missing input 'B'"):
        acc.run(A=a)
    with pytest.raises(HwgenError, match=r"shape \(3, 2\)"):
        acc.run(A=a, B=a)
    with pytest.raises(HwgenError, match=r"outside int8 \(-128..127\)"):
        acc.run(A=a * 200, B=b)
    with pytest.raises(HwgenError, match="integer array"):
        acc.run(A=a * 0.5, B=b)
    with pytest.raises(HwgenError, match=r"unknown input\(s\) \['X'\]"):
        acc.run(A=a, B=b, X=a)
    with pytest.raises(HwgenError, match="at least one problem"):
        acc.run_many([])


def test_wrong_design_files_and_ports_are_clear_errors(tmp_path, capsys):
    with Accelerator.simulate(example("gemm_os"), {"M": 2, "N": 2, "K": 3}) as acc:
        bridged = acc.manifest
    with pytest.raises(HwgenError, match="does not exist"):
        Accelerator.open(str(tmp_path / "none.json"), "/dev/ttyUSB9")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(HwgenError, match="is not JSON"):
        Accelerator.open(str(tmp_path / "broken.json"), "/dev/ttyUSB9")
    (tmp_path / "bare.json").write_text(json.dumps({"ports": [], "bridge": {"baud": 3e6}}))
    with pytest.raises(HwgenError, match="has no key 'top'"):
        Accelerator.open(str(tmp_path / "bare.json"), "/dev/ttyUSB9")
    replace(bridged, bridge=None, extra={}).write(tmp_path / "plain.json")
    with pytest.raises(HwgenError, match="no 'bridge' key"):
        Accelerator.open(str(tmp_path / "plain.json"), "/dev/ttyUSB9")
    with pytest.raises(HwgenError, match="does not record its program"):
        Accelerator.simulate(str(tmp_path / "plain.json"))
    with pytest.raises(HwgenError, match="block RAM budget must be a whole number"):
        Accelerator.simulate(example("gemm_os"), {"M": 8, "N": 8, "K": 8}, array=(4, 4), brams=-1)
    bridged.write(tmp_path / "bridged.json")
    with pytest.raises(HwgenError, match="cannot open serial port '/dev/ttyUSB9'"):
        Accelerator.open(str(tmp_path / "bridged.json"), "/dev/ttyUSB9")
    other = replace(bridged.bridge, ports=bridged.bridge.ports[:2])     # no C
    with pytest.raises(HwgenError, match="the bridge has no out port 'C'"):
        Accelerator(replace(bridged, bridge=other), acc.line)
    assert main(["run", example("gemm_os"), "--params", "M=0", "--port", "sim"]) == 2
    assert "must be a positive integer" in capsys.readouterr().err


def test_a_silent_line_is_a_clear_error_not_a_hang():
    class Silent:
        def write(self, data):
            pass

        def read(self, timeout):
            self.t += timeout
            return b""

        def now(self):
            return self.t

        def close(self):
            pass

    line = Silent()
    line.t = 0.0
    with Accelerator.simulate(example("gemm_os"), {"M": 2, "N": 2, "K": 3}) as sim:
        manifest = sim.manifest
    acc = Accelerator(manifest.to_json(), line, timeout=0.01, retries=2)    # design.json's dict
    with pytest.raises(HwgenError, match=r"no answer from the bridge .*\(C: 0 of 16 bytes\)"):
        acc.run(A=np.ones((2, 3), dtype=int), B=np.ones((3, 2), dtype=int))


def test_a_tiled_design_runs_on_whole_tensors_through_the_bridge(tmp_path):
    """design.json's tiles: the driver sends each tile's blocks and joins the outputs. Its
    design.json rebuilds the same folded, tiled design."""
    params = {"M": 4, "N": 30, "K": 16}
    graph = load_design(example("gemm_os"), params, array=(4, 4), brams=4)
    with Accelerator.simulate(example("gemm_os"), params, array=(4, 4), brams=4) as acc:
        assert acc.manifest.tiles == graph.tiles
        path = tmp_path / "design.json"
        acc.manifest.write(path)
        with Accelerator.simulate(str(path)) as again:
            assert again.manifest.tiles == graph.tiles
            assert again.manifest.params == graph.params
        assert exercise(acc, graph, problems=1, seed=2, say=lambda text: None)
        with pytest.raises(HwgenError, match=r"input 'A' must be an integer array of shape "
                                             r"\(4, 16\)"):
            acc.run(A=np.zeros((4, 32), int), B=np.zeros((16, 30), int))


def test_resident_weights_are_loaded_once_and_serve_every_problem():
    """``W`` resident: ``load`` sends it once; problems send only ``X``; a new ``load``
    serves the problems after it. Running before loading, or with ``W``, says what to do."""
    path = program("resident_weights")
    rng = np.random.default_rng(3)
    with Accelerator.simulate(path, {"B": 2, "N": 3, "K": 4}) as acc:
        with pytest.raises(HwgenError, match=r"\['W'\] not loaded: call acc.load\(W=...\)"):
            acc.run(X=np.zeros((2, 4), dtype=int))
        for _ in range(2):
            w = rng.integers(-128, 128, (3, 4))
            acc.load(W=w)
            assert acc.stats["payload_bytes_out"] == 0
            xs = [rng.integers(-128, 128, (2, 4)) for _ in range(3)]
            for x, got in zip(xs, acc.run_many([{"X": x} for x in xs])):
                assert np.array_equal(got["Y"], x @ w.T)
            assert acc.stats["payload_bytes_in"] == 3 * 2 * 4       # X only
        with pytest.raises(HwgenError, match=r"\['W'\] resident: load it once"):
            acc.run(X=xs[0], W=w)
        with pytest.raises(HwgenError, match=r"\['X'\] not resident: load\(\) takes W"):
            acc.load(X=xs[0])
        assert exercise(acc, load_design(path, {"B": 2, "N": 3, "K": 4}), problems=2,
                        say=lambda line: None)
