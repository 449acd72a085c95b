"""The command line: working commands and clear errors (exit 2, no traceback) on bad input."""
import glob
import os
import subprocess
import sys

import pytest

from hwgen.cli import main
from tests.conftest import PROGRAMS, example


def test_build_writes_verilog(tmp_path, capsys):
    assert main(["build", example("producer_consumer"), "--params", "N=4", "--out",
                 str(tmp_path)]) == 0
    assert "expected_cycles" in capsys.readouterr().out
    assert (tmp_path / "producer_consumer.v").exists()


@pytest.mark.parametrize("argv,words", [
    (["build", "no/such/design.py"], "not found"),
    (["build", example("gemm_os"), "--params", "M=x"], "must be an integer"),
    (["build", example("gemm_os"), "--params", "Q=3"], "unknown parameter"),
    (["build", example("gemm_os"), "--params", "M=0"], "positive"),
    (["build", example("gemm_os"), "--params", "M"], "NAME=VALUE"),
    (["timing", example("gemm_os"), "--device", "xc7"], "unknown DEVICE"),
    (["timing", example("gemm_os"), "--router", "router3"], "unknown nextpnr router"),
    (["bitstream", example("gemm_os"), "--board", "arty"], "unknown BOARD"),
    (["sim", example("gemm_os"), "--params", "M=2 N=2 K=2", "--sim", "vcs"], "unknown simulator"),
    (["check", example("gemm_os"), "--problems", "-1"], "--problems must be 0 or more"),
    (["build", example("gemm_os"), "--device", "xc7"], "unknown DEVICE"),
    (["fusion", example("mlp_pipeline"), "--brams", "-1"], "block RAM budget must be a whole"),
    (["fusion", example("mlp_pipeline"), "--device", "xc7"], "unknown device"),
    (["fusion", example("mlp_pipeline"), "--sim", "vcs"], "unknown simulator"),
    (["check", example("gemm_os"), "--dsps", "-1"], "the DSP budget must be a whole number"),
    (["check", example("gemm_os"), "--luts", "-1"], "the LUT budget must be a whole number"),
    (["check", example("gemm_os"), "--ports", "-3"], "the port pin budget must be a whole number"),
    (["check", "dse:1", "--ports", "200"], "--dsps, --ports and --luts fold programs: leave them out"),
])
def test_bad_input_is_a_clear_error(tmp_path, capsys, argv, words):
    assert main(argv + ["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and words in err and "Traceback" not in err


def test_help_explains_the_commands():
    out = subprocess.run([sys.executable, "-m", "hwgen.cli", "--help"], capture_output=True,
                         text=True).stdout
    for cmd in ("build", "sim", "timing", "bitstream", "demo", "fusion", "dse"):
        assert cmd in out


BAD = sorted(glob.glob(os.path.join(PROGRAMS, "bad", "*.py")))


@pytest.mark.parametrize("path", BAD, ids=lambda p: os.path.basename(p)[:-3])
def test_every_wrong_program_is_a_clear_error_not_a_traceback(path, tmp_path, capsys):
    assert main(["build", path, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}:") and "Traceback" not in err, err


def _wrong_reference(tmp_path):
    """gemm_os whose reference() adds 1: the program no longer computes what it claims."""
    text = open(example("gemm_os")).read()
    right = 'return {"C": A.astype("int64") @ B.astype("int64")}'
    assert right in text
    path = tmp_path / "gemm_wrong.py"
    path.write_text(text.replace(right, right[:-1] + " + 1}"))
    return str(path)


def test_check_passes_a_correct_program(capsys):
    assert main(["check", example("gemm_os"), "--params", "M=2 N=3 K=5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PASS gemm_os")
    assert "the schedule builds it: expected_cycles 40, interval_cycles 14 per problem" in out
    assert "stalls its producer" not in out


def test_check_advises_the_depth_of_a_stalling_fifo_at_its_line(capsys):
    assert main(["check", os.path.join(PROGRAMS, "shallow_fifo.py")]) == 0
    assert ("  shallow_fifo.py:11: stream 'h' at depth 4 stalls its producer: interval_cycles "
            "402; at depth 7") in capsys.readouterr().out


def test_check_refuses_at_the_line_what_build_refuses_folded(capsys):
    path = os.path.join(PROGRAMS, "folded_collection.py")
    assert main(["check", path]) == 0
    capsys.readouterr()
    assert main(["check", path, "--array", "4"]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("PASS neurons")
    assert f"{path}:29: in task layer2: stream 'h[0>layer2]' (h[0], h[4], h[8], h[12], one " \
           "stream once folded) is got twice on one iteration" in captured.err


@pytest.mark.parametrize("command", [["check"], ["sim", "--sim", "icarus"]])
def test_a_program_its_reference_disagrees_with_fails_with_indices_and_values(
        tmp_path, capsys, command):
    argv = [command[0], _wrong_reference(tmp_path), "--params", "M=2 N=3 K=5",
            "--out", str(tmp_path / "out")] + command[1:]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "FAIL gemm_os" in out and "disagree" in out
    assert "output 'C' differs in 6 of 6 elements; first C[0, 0]: program " in out
    assert "reference" in out and "building" not in out       # sim stops before any hardware


def test_check_without_a_reference_says_what_to_write(capsys):
    assert main(["check", os.path.join(PROGRAMS, "narrow_acc.py")]) == 2
    err = capsys.readouterr().err
    assert "defines no reference(): write one that takes the input tensors" in err


def test_build_says_when_the_host_ports_bound_the_interval(tmp_path, capsys):
    args = ["build", example("gemm_os"), "--params", "M=3 N=5 K=97", "--out", str(tmp_path)]
    assert main(args + ["--lanes", "1"]) == 0
    out = capsys.readouterr().out
    assert "interval_cycles 485" in out
    assert "note: the host ports bound the interval: the array could take a problem every 97 " \
           "cycles, but B moves 485 beats of 1 element(s) per problem; --lanes auto chooses " \
           "enough lanes" in out
    # Automatic lanes pad A's rows of 97 to 25 beats of 4: the array sets the pace.
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "interval_cycles 97 " in out and "lanes A=4, B=5, C=1" in out and "note:" not in out


@pytest.mark.parametrize("args", [["--count", "0"], ["--count", "-3", "--expressions", "0"],
                                  ["--count", "5", "--verilator-every", "-1"]])
def test_campaign_with_bad_counts_is_a_clear_error(args, capsys, tmp_path):
    assert main(["campaign", "--out", str(tmp_path)] + args) == 2
    assert "error: --" in capsys.readouterr().err


def test_array_folds_a_program_and_says_so(capsys):
    """``--array`` on a program folds its grid (``docs/mapping.md``) and says what it did;
    a malformed array is a clear error."""
    path = example("gemm_os")
    assert main(["check", path, "--params", "M=8 N=8 K=6", "--array", "4x4"]) == 0
    out = capsys.readouterr()
    assert "folding task pe from grid [8, 8] onto [4, 4]" in out.err
    assert out.out.startswith("PASS gemm_os")
    assert main(["check", path, "--array", "0x4"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ARRAY must look like 4x4") and "Traceback" not in err, err


def test_fusion_prints_each_pair_and_checks_and_simulates_the_stages(tmp_path, capsys):
    """With 2 block RAMs the MLP's buffers do not fit fused: each layer runs as its own
    design, checked against reference() and simulated on Icarus."""
    assert main(["fusion", example("mlp_pipeline"), "--brams", "2", "--sim", "icarus",
                 "--problems", "2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "layer1 -> layer2 (stream h1: 16 elements per problem)" in out
    assert "-> materialise: fused, the design would need" in out
    assert "runs as 3 designs one after another" in out
    assert "PASS mlp_pipeline" in out and "with the stages run one after another" in out
    assert out.count("PASS mlp_pipeline_stage") == 6        # 3 stages x 2 testbenches


@pytest.mark.pnr
def test_bitstream_prints_its_timing_and_where_it_wrote(tmp_path, capsys):
    """The smallest design on the iCEBreaker: Yosys, nextpnr and icepack, then the summary."""
    assert main(["bitstream", example("producer_consumer"), "--params", "N=2", "--board",
                 "icebreaker", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Fmax" in out and "bitstream: " in out and "UART bridge at" in out
