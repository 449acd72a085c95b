"""One rule, over random programs: what the checks and the interpreter accept either becomes
hardware that computes what the interpreter computes, or is refused inside ``hwgen/schedule/``
at a line of the program, never deeper in the generator.

The programs are drawn near the edges of what hardware builds: integer and float locals, float
sums read inside and after their loops, local arrays in registers and in memories read and
written in either order, loops in sequence of different lengths, stream puts in one or two
statements and on every other iteration (``if k % 2 == 0``), bits at run-time offsets, indices
computed from data, and the consumer that gets them.
"""
import os
import traceback
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwgen import HwgenError
from hwgen.campaign.case import write
from hwgen.ir.interp import run
from hwgen.pipeline import load_design
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from tests.conftest import random_inputs

N = 8           # elements of each tensor


@st.composite
def loop_body(draw, var, trip, puts):
    """Statements of a loop over ``var`` (``trip`` iterations); appends to ``puts`` how many
    stream puts they make per iteration."""
    lines = [f"x: T = A[({var} + i) % {N}]"]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["sum", "sum", "sum", "product", "buf_write", "buf_write",
                                     "buf_read", "buf_read", "put", "read_sum", "local",
                                     "periodic_put", "periodic_write", "bits", "lookup"]))
        if kind == "sum":
            lines.append(draw(st.sampled_from(["acc += x", "acc -= x * x", "acc = x + acc"])))
        elif kind == "product":
            lines.append("acc = acc * x")
        elif kind == "buf_write":
            lines.append(f"buf[{var} % S] = x" + draw(st.sampled_from(["", " + buf[0]"])))
        elif kind == "buf_read":
            lines.append(f"y: T = buf[{var} % S]")
            lines.append("x = x + y")
        elif kind == "put":
            lines.append("s.put(x)")
            puts.append(trip)
        elif kind == "read_sum":
            lines.append(f"C[{var} % {N}] = acc")
        elif kind == "periodic_put":
            lines += [f"if {var} % 2 == 0:", "    s.put(x)"]
            puts.append((trip + 1) // 2)
        elif kind == "periodic_write":
            lines += [f"if {var} % 3 != 1:", f"    C[{var} % {N}] = x"]
        elif kind == "bits":            # a bit at a run-time offset (int locals)
            lines.append(draw(st.sampled_from([f"x = x + x[{var}]", f"x[{var}] = 1"])))
        elif kind == "lookup":          # an index computed from data
            lines.append(f"x = x + A[x % {N}]")
        else:
            lines.append("x = x * x")
    return lines


@st.composite
def fuzz_programs(draw):
    T = draw(st.sampled_from(["int32", "float32"]))
    S = draw(st.sampled_from([4, 20]))              # registers, or a memory
    R = draw(st.integers(1, 3))
    init = draw(st.booleans())
    puts, body = [], []
    restart = draw(st.booleans())
    for n in range(draw(st.integers(1, 3))):        # loops in sequence in the i loop
        trip = draw(st.integers(1, 9))
        if restart and n == 0:
            body.append("acc = 0")
        body.append(f"for k{n} in range({trip}):")
        body += ["    " + line for line in draw(loop_body(f"k{n}", trip, puts))]
        after = draw(st.sampled_from(["", "C[i] = acc", "s.put(acc)", "buf[0] = acc"]))
        if after:
            body.append(after)
            puts += [1] * (after == "s.put(acc)")
    count = R * sum(puts)
    consumer = (f"for j in range({count}):\n                D[j % {N}] = s.get()" if count
                else "D[0] = 0")
    indented = "\n".join("                " + line for line in body)
    source = f'''
import hwgen
from hwgen import Stream, int32, float32

T = {T}
S = {S}


def build():
    @hwgen.region
    def fuzz(A: T[{N}], C: T[{N}], D: T[{N}]):
        s = Stream[T, 4]

        @hwgen.task
        def t():
            {"buf: T[S] = 0" if init else "buf: T[S]"}
            acc: T = 0
            for i in range({R}):
{indented}
            C[{N - 1}] = acc

        @hwgen.task
        def u():
            {consumer}

    return fuzz
'''
    return source


@st.composite
def grid_programs(draw):
    """A producer on a grid of ``P`` instances, each streaming to the consumer on a stream of
    its own (once, or on every iteration), and a consumer that collects them unrolled
    (``meta_for``): on one iteration, or each stream in a loop of its own; with an array
    size that folds the grid (``--array``, a divisor of ``P``)."""
    P = draw(st.sampled_from([2, 4, 6]))
    K = draw(st.integers(1, 4))
    every = draw(st.booleans())                     # a put on every iteration, else one
    gets = K if every else 1
    body = [f"acc: int32 = {draw(st.sampled_from(['0', 'p']))}", f"for k in range({K}):",
            f"    x: int32 = A[(p + k) % {N}]",
            "    " + draw(st.sampled_from(["acc += x", "acc = acc * 3 + x", "acc -= x * p"]))]
    body += ["    s[p].put(acc)"] if every else ["s[p].put(acc)"]
    writes = draw(st.booleans())
    body += ["C[p] = acc"] * writes
    if draw(st.booleans()):             # every stream on one iteration
        collect = ["total: int32 = 0", f"with hwgen.meta_for({P}) as q:"]
        collect += [f"    for r in range({gets}):", "        total += s[q].get()"] if every \
            else ["    total += s[q].get()"]
    else:                               # each stream in a loop of its own, in sequence
        collect = ["total: int32 = 0", f"with hwgen.meta_for({P}) as q:",
                   f"    for r in range({gets}):", "        v: int32 = s[q].get()",
                   "        total = total * 2 + v", "    D[q] = total"]
    collect.append(f"D[{N - 1}] = total")
    source = f'''
import hwgen
from hwgen import Stream, int32


def build():
    @hwgen.region
    def grid(A: int32[{N}], D: int32[{N}]{f", C: int32[{N}]" * writes}):
        s = Stream[int32, 2][{P}]

        @hwgen.task(mapping=[{P}])
        def prod():
            p = hwgen.get_pid()
{chr(10).join("            " + line for line in body)}

        @hwgen.task
        def cons():
{chr(10).join("            " + line for line in collect)}

    return grid
'''
    return source, (draw(st.sampled_from([f for f in range(1, P) if P % f == 0])), 1)


@settings(max_examples=int(os.environ.get("HWGEN_FUZZ", 40)), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(source=fuzz_programs())
def test_what_the_interpreter_runs_builds_right_or_is_refused_in_the_schedule(
        source, tmp_path_factory):
    holds_one_rule(source, None, tmp_path_factory)


@settings(max_examples=int(os.environ.get("HWGEN_FUZZ", 40)) // 2, deadline=None,
          database=None, suppress_health_check=list(HealthCheck))
@given(drawn=grid_programs())
def test_the_same_rule_holds_folded(drawn, tmp_path_factory):
    holds_one_rule(*drawn, tmp_path_factory)


def holds_one_rule(source, array, tmp_path_factory):
    """What ``check`` (with ``array``: ``check --array``) accepts, the interpreter and the
    schedule, becomes hardware that computes the same, or the schedule refuses it at a line."""
    path = write(source, str(tmp_path_factory.mktemp("fuzz")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            graph = load_design(path, array=array)
            problems = [random_inputs(graph, seed) for seed in range(2)]
            want = [run(graph, p) for p in problems]
        except HwgenError:
            return                      # refused by the language: not this rule's concern
        try:
            built = plan(graph)
        except HwgenError as e:
            assert e.loc is not None and e.loc[0] == path, str(e)
            where = traceback.extract_tb(e.__traceback__)[-1].filename
            assert "/hwgen/schedule/" in where, (where, str(e), source)
            return
    top = Top(built)
    outs, cycles, _ = run_top(top, problems)
    assert cycles[0] == top.expected_cycles, source
    slow, _, _ = run_top(top, problems, in_gap=0.2, out_gap=0.3, seed=1)
    for p in range(len(problems)):
        for name, value in want[p].items():
            assert np.array_equal(outs[p][name], value), (p, name, source)
            assert np.array_equal(slow[p][name], value), (p, name, "back-pressure", source)
