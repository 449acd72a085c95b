"""Members of one kind share a module: equal structure up to signal names, one module each."""
import re

from amaranth.hdl import Const, Fragment, Module, Signal

from hwgen.flow import verilog

from hwgen.pipeline import load_design
from hwgen.rtl.kinds import Kinds, structure
from hwgen.rtl.top import Top
from hwgen.schedule import plan

from tests.conftest import example


def _fragment(build):
    m = Module()
    build(m)
    return Fragment.get(m, None)


def _sub(m, a, b, out, name="x"):
    x = Signal(8, name=name)
    m.d.comb += x.eq(a - b)
    m.d.sync += out.eq(x)


def test_the_structure_renames_signals_but_keeps_order_shapes_and_constants():
    a, b, c, d, o1, o2 = (Signal(8, name=n) for n in "abcdef")
    one = structure(_fragment(lambda m: _sub(m, a, b, o1)))
    assert one.text == structure(_fragment(lambda m: _sub(m, c, d, o2, "y"))).text
    assert [s.name for s in one.signals] == ["x", "a", "b", "e"]      # names are restored
    assert one.text != structure(_fragment(lambda m: _sub(m, a, a, o1))).text   # a - a
    assert structure(_fragment(lambda m: _named_alike(m, a, b, o1, False))).text != \
        structure(_fragment(lambda m: _named_alike(m, a, b, o1, True))).text
    wide = structure(_fragment(lambda m: _sub(m, Signal(9), b, o1)))
    assert wide.text == one.text and wide.key() != one.key()       # a shape differs
    three, four = (structure(_fragment(lambda m, k=k: _add(m, a, k, o1))) for k in (3, 4))
    assert three.text != four.text


def _named_alike(m, a, b, out, swap):
    """``out = p - q`` (or ``q - p``) of two registers both named ``v``."""
    p, q = Signal(8, name="v"), Signal(8, name="v")
    m.d.sync += [p.eq(a), q.eq(b)]
    m.d.comb += out.eq(q - p if swap else p - q)


def _add(m, a, k, out):
    m.d.comb += out.eq(a + Const(k))


def test_a_4x4_gemm_os_has_one_module_per_kind_of_pe():
    """The corner, the edges and the interior: 16 PEs, fewer kinds, every interior PE one."""
    graph = load_design(example("gemm_os"), {"M": 4, "N": 4, "K": 8})
    kinds = Kinds("gemm_os")
    text = verilog.convert(Top(plan(graph), "ecp5"), "gemm_os", kinds=kinds)
    pes = {k: n for k, n in kinds.instances.items() if k.startswith("gemm_os.g0.pe_kind")}
    assert 1 < len(pes) and sum(pes.values()) < 16
    cells = re.findall(r"^  \\(gemm_os\.g0\.pe_kind\d+) +(pe_\d_\d) \(", text, re.M)
    by_kind = {}
    for kind, inst in cells:
        by_kind.setdefault(kind, set()).add(inst)
    assert {k: len(v) for k, v in by_kind.items()} == pes
    interior = {f"pe_{i}_{j}" for i in (1, 2) for j in (1, 2)}
    assert any(interior <= insts for insts in by_kind.values())
    for kind in by_kind:
        assert text.count(f"module \\{kind} ") == 1
    written = len(re.findall(r"^module \\gemm_os\.g0\.pe_", text, re.M))
    assert kinds.summary()["pe"] == (16, written)
