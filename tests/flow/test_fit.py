"""Will it fit: multipliers and buffer bits against the device, counted from the task graph."""
from hwgen.cli import main
from hwgen.flow.fit import buffer_bits, fit_warnings, multipliers
from hwgen.pipeline import load_design
from tests.conftest import example, program


def test_counts():
    gemm = load_design(example("gemm_os"), {"M": 3, "N": 4, "K": 5})
    assert multipliers(gemm) == 12                       # one MAC per PE
    assert buffer_bits(gemm) == 2 * (3 * 5 * 8 + 5 * 4 * 8 + 3 * 4 * 32)
    # A multiply by a constant is shifts and adds, not a DSP block.
    assert multipliers(load_design(program("fifo_skew"), {"N": 4})) == 0


def test_warnings_name_the_resource_and_both_numbers():
    small = load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 4})
    assert fit_warnings(small, "ecp5-85k") == []
    big = load_design(example("gemm_os"), {"M": 13, "N": 13, "K": 4})
    assert fit_warnings(big, "ecp5-85k") == [
        "gemm_os {'M': 13, 'N': 13, 'K': 4} needs about 169 DSP but ecp5-85k has 156: it will "
        "not fit; make the sizes or the grid smaller"]
    assert "needs about 9 DSP but ice40-up5k has 8" in \
        fit_warnings(load_design(example("gemm_os"), {"M": 3, "N": 3, "K": 4}), "ice40-up5k")[0]


def test_build_warns_before_elaborating(tmp_path, capsys):
    assert main(["build", example("gemm_os"), "--params", "M=3 N=3 K=2", "--device",
                 "ice40-up5k", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("warning: gemm_os") and "ice40-up5k has 8" in captured.err
    lines = captured.out.splitlines()
    assert lines[0].endswith("elaborating gemm_os (9 task instances) into a netlist (Amaranth)")
    assert lines[0].startswith("[1/3") and lines[1].endswith("writing Verilog (Yosys)")
