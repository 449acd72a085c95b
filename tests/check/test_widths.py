"""Width checks: constants that cannot fit are errors, accumulators that can overflow warnings
that give the bound."""
import pytest

from hwgen import HwgenWarning
from hwgen.pipeline import load_design
from tests.conftest import example, program


def _line(path, marker):
    with open(path) as f:
        return next(n for n, line in enumerate(f, 1) if marker in line)


def test_accumulators_that_can_overflow_warn_at_their_line_with_the_bound():
    path = program("narrow_acc")
    with pytest.warns(HwgenWarning) as record:
        graph = load_design(path, {"K": 64})
    lines = {w.lineno: str(w.message) for w in record}
    acc = lines[_line(path, "WARN acc")]
    assert "'acc' accumulates up to 64 terms in -16256..16384" in acc
    assert "can reach -1040384..1048576, beyond int16" in acc and "Int(22)" in acc
    # Under a run-time if, only positive int8 values are added: 64 * 127 = 8128 fits int16...
    assert _line(path, "WARN pos") not in lines
    assert len(graph.warnings) == 1


def test_an_accumulator_that_starts_from_a_full_width_bias_is_told_to_narrow_the_bias():
    path = program("bias_acc")
    with pytest.warns(HwgenWarning) as record:
        load_design(path)
    message = next(str(w.message) for w in record if w.lineno == _line(path, "WARN acc"))
    assert message.endswith("beyond int32 [-2147483648, 2147483647]; its start, b (int32), "
                            "alone fills int32: declare b int16 (then the sum fits), or 'acc' "
                            "Int(33) or wider")


def test_a_conditional_accumulation_is_bounded_too():
    path = program("narrow_acc")
    with pytest.warns(HwgenWarning) as record:
        load_design(path, {"K": 512})       # ... but 512 * 127 = 65024 does not
    pos = [str(w.message) for w in record if w.lineno == _line(path, "WARN pos")]
    assert pos and "'pos' accumulates up to 512 terms in -128..127" in pos[0]


def test_accumulators_that_fit_give_no_warning(recwarn):
    load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 100_000})   # 1.6e9 < 2**31
    assert not [w for w in recwarn if issubclass(w.category, HwgenWarning)]


def test_one_warning_per_line_for_many_instances():
    with pytest.warns(HwgenWarning) as record:
        graph = load_design(example("gemv_cooperative"), {"P": 4, "M": 2, "K": 2 ** 19})
    assert len(record) == len(graph.warnings) == 2   # the workers' accumulator, the reducer's sum
    assert "worker[0]: 'acc'" in graph.warnings[0] and "also in 3 other instances" in \
        graph.warnings[0]


def test_a_put_that_narrows_into_a_smaller_stream_warns_at_its_line():
    path = program("narrow_put")
    with pytest.warns(HwgenWarning) as record:
        graph = load_design(path)
    assert [w.lineno for w in record] == [_line(path, "WARN s")]
    assert graph.warnings == [
        "in task producer: the value put on stream 's' can reach -256..254, beyond its int8 "
        "[-128, 127], and wraps; declare the stream Int(9) or wider, or clamp the value "
        "(min/max)"]
