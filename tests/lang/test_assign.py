"""Assignments in task bodies: typed and inferred locals, updates, and the errors that say
what to write instead (each at the user's line)."""
import textwrap

import pytest

from hwgen import HwgenError
from hwgen.ir.graph import Assign, BinOp, Read, VarRef
from hwgen.pipeline import load_design

PROGRAM = '''
import hwgen
from hwgen import int8, int16, int32


def build(N: int = 4):
    @hwgen.region
    def prog(A: int8[N], C: int32[N]):
        @hwgen.task
        def t():
            for i in range(N):
{body}

    return prog
'''


def _load(tmp_path, body):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM.format(body=textwrap.indent(textwrap.dedent(body), " " * 16)))
    return load_design(str(path)), path


def test_typed_inferred_and_updated_locals(tmp_path):
    graph, _ = _load(tmp_path, """
        a = A[i]
        s: int16 = a * 3
        s += a
        C[i] = s
    """)
    inst = graph.instances["t"]
    assert {v: t.name for v, t in inst.vars.items()} == {"a": "int8", "s": "int16"}
    body = inst.segments[0].body
    assert isinstance(body[0], Assign) and isinstance(body[0].value, Read)
    update = body[2]
    assert update.var == "s" and isinstance(update.value, BinOp) and update.value.op == "+"
    assert update.value.lhs == VarRef("s")


@pytest.mark.parametrize("body,words", [
    ("i = 3", "cannot assign to loop variable 'i'"),
    ("x = y = A[i]", "chained assignment is not supported"),
    ("x: int8 = 0\nx: int16 = 1", "'x' was declared int8, now int16"),
    ("acc += A[i]", "'acc' is updated before it is assigned"),
    ("x, y = A[i], A[i]", "tuple assignment is only supported for `i, j = hwgen.get_pid()`"),
    ("x = 0", "declare the type of 'x': `x: int32 = ...`"),
])
def test_mistakes_name_the_line_and_the_fix(tmp_path, body, words):
    with pytest.raises(HwgenError) as e:
        _load(tmp_path, body + "\nC[i] = 0")
    assert words in str(e.value)
    assert e.value.loc[0].endswith("prog.py") and e.value.loc[1] >= 12
