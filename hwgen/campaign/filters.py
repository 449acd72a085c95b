"""Random programs whose stream traffic depends on the data: a producer puts items on a closed
stream under a random condition and closes it, a consumer reads it with ``for v in s:``
(``docs/language.md``, *Closed streams*), as ``hypothesis`` strategies like ``programs``."""
from hypothesis import strategies as st

from .programs import INPUT_TYPES, STREAM_TYPES, Lines, _module, _with_a_name, expressions


@st.composite
def filters(draw):
    """A closed stream whose count depends on the data: a producer puts the items of ``A``
    under a random condition (and in its ``else``, or besides, when drawn), then closes it;
    the consumer reads it with ``for v in s:`` into sums, a count and a conditional maximum,
    and keeps the last value in a register array."""
    n, depth = draw(st.integers(1, 12)), draw(st.integers(1, 4))
    a_type, s_type = draw(st.sampled_from(INPUT_TYPES)), draw(st.sampled_from(STREAM_TYPES))
    other, extra = draw(st.booleans()), draw(st.booleans())
    value = _with_a_name(expressions(["x", "i"]))
    out = Lines(3)
    out(f"for i in range({n}):")
    out(f"x: {a_type} = A[i]", 1)
    out(f"if {draw(value)} {draw(st.sampled_from(['<', '>', '==', '!=']))} "
        f"{draw(st.integers(-9, 9))}:", 1)
    out(f"s.put({draw(value)})", 2)
    if other:
        out("else:", 1)
        out(f"s.put({draw(value)})", 2)
    if extra:
        out(f"s.put({draw(value)})", 1)
    out("s.close()")
    use = Lines(3)
    use("total: int32 = 0")
    use("count: int32 = 0")
    use("top: int32 = 0")
    use("h: int32[2] = 0")
    use("for v in s:")
    use(f"total += {draw(_with_a_name(expressions(['v', 'count'])))}", 1)
    use("count += 1", 1)
    use("if v > top:", 1)
    use(f"top = {draw(_with_a_name(expressions(['v', 'total'])))}", 2)
    use("h[0] = v", 1)
    use("C[0] = total")
    use("C[1] = count")
    use("C[2] = top")
    use("C[3] = h[0]")
    use("C[4] = h[1]")
    tensors = [("A", a_type, (n,), None), ("C", "int32", (5,), None)]
    return _module("filter", tensors, [f"s = Stream[{s_type}, {depth}, {n * (1 + extra)}]"],
                   [("@hwgen.task", "producer", out.lines), ("@hwgen.task", "consumer", use.lines)],
                   f"A random filter of {n} items through a closed stream.")
