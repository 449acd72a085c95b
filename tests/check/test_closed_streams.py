"""Dynamic dataflow: closed streams (``Stream[T, depth, bound]``, ``close()``, ``for v in s:``,
``s.more()``) and ``while`` loops, in the language and its checks, the interpreter against
numpy, and hardware's refusal, each at the line."""
import textwrap

import numpy as np
import pytest

from hwgen import HwgenError
from hwgen.cli import main
from hwgen.ir.interp import run
from hwgen.pipeline import load_design, load_module
from hwgen.schedule import plan
from tests.conftest import EXAMPLES, example_inputs, golden

DYNAMIC = f"{EXAMPLES}/dynamic"

PRODUCER = """
for i in range(N):
    x: int8 = X[i]
    if x > 0:
        s.put(x)
s.close()
"""
CONSUMER = """
total: int32 = 0
for v in s:
    total += v
Y[0] = total
"""


def source(producer=PRODUCER, consumer=CONSUMER, stream="Stream[int8, 2, N]"):
    """A filter program with the given task bodies (``# LINE`` marks the line an error names);
    a stream ``t`` where they use one."""
    def body(text):
        return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * 12)
    t = "Stream[int8, 2]" if "t." in producer + consumer else "None"
    return f"""import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 8):
    @hwgen.region
    def filter(X: int8[N], Y: int32[1]):
        s = {stream}
        t = {t}

        @hwgen.task
        def producer():
{body(producer)}

        @hwgen.task
        def consumer():
{body(consumer)}

    return filter
"""


def write(tmp_path, text):
    path = tmp_path / "prog.py"
    path.write_text(text)
    return str(path)


def marked(text):
    return next(n for n, line in enumerate(text.splitlines(), 1) if "# LINE" in line)


@pytest.mark.parametrize("name", ["stream_filter", "top_k", "histogram", "merge", "spmv", "bfs"])
def test_examples_equal_numpy_with_empty_and_full_streams(name):
    """All-minimum and all-maximum inputs give empty streams (an empty graph, empty rows) in
    some examples and streams of their full bound in others."""
    path = f"{DYNAMIC}/{name}.py"
    module = load_module(path)
    for sizes in module.TEST_SIZES:
        graph = load_design(path, sizes, module=module)
        for seed, extreme in ((0, True), (1, True), (2, False), (3, False)):
            inputs = example_inputs(module, graph, seed + (extreme and seed), extreme)
            out = run(graph, inputs)
            for key, want in golden(module, graph, inputs).items():
                assert np.array_equal(out[key], want), (name, sizes, seed)


def test_guarded_puts_take_their_branch(tmp_path):
    producer = """
    for i in range(N):
        x: int8 = X[i]
        if x > 0:
            s.put(x)
        elif x < -100:
            s.put(1)
        else:
            pass
    s.close()
    """
    graph = load_design(write(tmp_path, source(producer)))
    X = np.array([5, -120, 0, -3, 7, -101, 2, -100])
    assert run(graph, {"X": X})["Y"][0] == 5 + 1 + 7 + 1 + 2


def test_hwgen_check_compares_then_names_what_hardware_refuses(capsys):
    assert main(["check", f"{DYNAMIC}/stream_filter.py", "--params", "N=13"]) == 0
    out, _ = capsys.readouterr()
    assert "PASS stream_filter" in out and "the schedule builds it" in out
    assert main(["check", f"{DYNAMIC}/merge.py"]) == 2
    out, err = capsys.readouterr()
    assert "PASS merge" in out
    assert "merge.py:38: in task merger: hardware reads a closed stream with `for v in s:` " \
           "only yet" in err


@pytest.mark.parametrize("producer,consumer,stream,words", [
    ("for i in range(N):\n    s.put(X[i])  # LINE\n", CONSUMER, None,
     "never closes it: close it (`s.close()`) after its last put"),
    (PRODUCER + "s.put(1)  # LINE\n", CONSUMER, None, "'s' is put after its close()"),
    (PRODUCER + "s.close()  # LINE\n", CONSUMER, None, "'s' is closed twice"),
    ("for i in range(N):\n    s.put(X[i])\n    s.close()  # LINE\n", CONSUMER, None,
     "closed inside a loop or a run-time condition"),
    ("for i in range(N):\n    s.put(X[i])\ns.close()  # LINE\n", CONSUMER, "Stream[int8, 2]",
     "has a fixed count per problem and is not closed"),
    ("for i in range(N):\n    s.put(X[i])\n", "total: int32 = 0\nfor v in s:  # LINE\n"
     "    total += v\nY[0] = total\n", "Stream[int8, 2]",
     "reads a closed stream: declare the most values per problem"),
    (PRODUCER, CONSUMER.replace("Y[0] = total", "for w in s:  # LINE\n    total += w\n"
                                "Y[0] = total"), None, "is read by a second `for` loop"),
    (PRODUCER, "total: int32 = 0\nfor i in range(2):\n    for v in s:  # LINE\n"
     "        total += v\nY[0] = total\n", None, "runs at the top of a task body"),
    (PRODUCER, "n: int32 = 0\nwhile n < 3:  # LINE\n    n += 1\nfor v in s:\n    n += v\n"
     "Y[0] = n\n", None, "write `while hwgen.bounded(n < 3, max_iterations=N):`"),
    (PRODUCER, "n: int32 = 0\nwhile hwgen.bounded(n < 3, max_iterations=N - 9):  # LINE\n"
     "    n += 1\nfor v in s:\n    n += v\nY[0] = n\n", None,
     "max_iterations must be a positive compile-time integer, got `N - 9`"),
    (PRODUCER, "n: int32 = 0\nfor v in s:\n    n += v\n    t.put(v)  # LINE\nY[0] = n\n"
     "for i in range(2):\n    t.get()\n", None,
     "a put on stream 't' in a loop whose count depends on data would run"),
    (PRODUCER + "t.put(1)\n", "n: int32 = t.more()  # LINE\nfor v in s:\n    n += v\n"
     "Y[0] = n\n", None,
     "asks a closed stream (Stream[int8, 4, 256]) whether another value comes"),
    ("for i in range(N):\n    s.put(X[i])\n    s.put(X[i])  # LINE\ns.close()\n", CONSUMER,
     None, "takes at most 8 values per problem (its bound), but producer puts 16"),
    (PRODUCER, CONSUMER, "Stream[int8, 2, 0]  # LINE", "bound (the most values per problem)"),
    (PRODUCER, "for v in s:\n    last: int32 = v\nY[0] = last  # LINE\n", None,
     "'last' is read before it is assigned"),
])
def test_wrong_closed_streams_are_refused_at_the_line(tmp_path, producer, consumer, stream,
                                                      words):
    text = source(producer, consumer, stream or "Stream[int8, 2, N]")
    with pytest.raises(HwgenError) as e:
        load_design(write(tmp_path, text))
    assert words in str(e.value)
    assert e.value.loc[1] == marked(text), str(e.value)


def test_a_while_loop_stops_at_its_max_iterations(tmp_path):
    consumer = """
    total: int32 = 0
    n: int32 = 0
    for v in s:
        total += v
    while hwgen.bounded(n < total, max_iterations=4):  # LINE
        n += 1
    Y[0] = n
    """
    text = source(consumer=consumer)
    graph = load_design(write(tmp_path, text))
    assert run(graph, {"X": np.array([1, 3, 0, 0, 0, 0, 0, 0])})["Y"][0] == 4
    with pytest.raises(HwgenError) as e:
        run(graph, {"X": np.array([1, 4, 0, 0, 0, 0, 0, 0])})
    assert "the loop runs more than its 4 iterations per problem" in str(e.value)
    assert e.value.loc[1] == marked(text)



SCAN = """import hwgen
from hwgen import int8, int32


def build(N: int = 6):
    @hwgen.region
    def scan(X: int8[N], Y: int32[2]):
        @hwgen.task
        def scanner():
            i: int32 = 0
            total: int32 = 0
            found: int32 = -1
            while hwgen.bounded(i < N, max_iterations=N):
                x: int32 = X[i]
                i += 1
                if x == 0:
                    continue
                if x < 0:
                    found = i - 1
                    break
                total += x
            Y[0] = total
            Y[1] = found

    return scan
"""


def test_break_and_continue_in_a_while_loop(tmp_path):
    graph = load_design(write(tmp_path, SCAN))
    for X in ([1, 0, 2, -3, 4, 0], [0, 0, 0, 0, 0, 0], [5, 6, 0, 7, 8, 9], [-1, 2, 3, 4, 5, 6]):
        X = np.array(X)
        negative = np.flatnonzero(X < 0)
        end = negative[0] if negative.size else len(X)
        want = [X[:end].sum(), negative[0] if negative.size else -1]
        assert list(run(graph, {"X": X})["Y"]) == want, X


def test_a_break_in_an_inner_loop_stays_unsupported(tmp_path):
    text = SCAN.replace("                if x == 0:\n                    continue\n",
                        "                for k in range(2):\n"
                        "                    break  # LINE\n")
    with pytest.raises(HwgenError) as e:
        load_design(write(tmp_path, text))
    assert "unsupported Python construct in a task body: break" in str(e.value)
    assert e.value.loc[1] == marked(text)


def test_a_while_loop_on_a_tensor_value_builds(tmp_path):
    text = """import hwgen
from hwgen import int8, int32


def build(N: int = 4):
    @hwgen.region
    def count(X: int8[N], Y: int32[1]):
        @hwgen.task
        def counter():
            n: int32 = 0
            while hwgen.bounded(n < X[0], max_iterations=127):  # LINE
                n += 1
            Y[0] = n

    return count
"""
    graph = load_design(write(tmp_path, text))
    assert run(graph, {"X": np.array([5, 0, 0, 0])})["Y"][0] == 5
    assert plan(graph).expected_cycles > 127      # its max_iterations, whatever the data


def test_a_get_in_a_branch_reads_only_where_the_branch_runs(tmp_path):
    """``if c: x = s.get()`` with ``x`` first assigned there: the get runs where ``c`` holds."""
    consumer = """
    total: int32 = 0
    more: uint1 = s.more()
    while hwgen.bounded(more, max_iterations=N + 1):
        if more:
            x: int32 = s.get()
            total += x
        more = s.more()
    Y[0] = total
    """
    text = source(consumer=consumer).replace("import Stream, int8, int32",
                                             "import Stream, int8, int32, uint1")
    graph = load_design(write(tmp_path, text))
    for X in (np.arange(8) - 3, np.full(8, -1), np.full(8, 5)):
        assert run(graph, {"X": X})["Y"][0] == X[X > 0].sum()


def test_a_stream_type_takes_at_most_three_arguments():
    from hwgen import Stream, int8
    with pytest.raises(HwgenError, match=r"as Stream\[int8, 4, 256\]; got 4 arguments"):
        Stream[int8, 4, 256, 1]


def test_more_values_than_the_bound_stop_the_interpreter_at_the_put(tmp_path):
    text = source(PRODUCER.replace("s.put(x)", "s.put(x)  # LINE"), stream="Stream[int8, 2, 3]")
    graph = load_design(write(tmp_path, text))
    assert run(graph, {"X": np.array([1, 2, 3, -1, -1, -1, -1, -1])})["Y"][0] == 6
    with pytest.raises(HwgenError) as e:
        run(graph, {"X": np.array([1, 2, 3, 4, -1, -1, -1, -1])})
    assert "'s' takes more than its bound of 3 values in one problem" in str(e.value)
    assert e.value.loc[1] == marked(text)


def test_reading_a_closed_stream_wrongly_stops_the_interpreter(tmp_path):
    """A get that finds the close, a read after the close, values left at the end."""
    text = source(consumer="Y[0] = s.get()  # LINE\n")
    graph = load_design(write(tmp_path, text))
    with pytest.raises(HwgenError) as e:
        run(graph, {"X": np.full(8, -1)})
    assert "a get on stream 's' finds its close: the producer put fewer values" in str(e.value)
    assert e.value.loc[1] == marked(text)
    with pytest.raises(HwgenError, match=r"'s' still holds 1 element\(s\) at the end of the "
                                         r"problem: consumer reads a closed stream to its close"):
        run(graph, {"X": np.array([1] + [-1] * 7)})
    with pytest.raises(HwgenError, match=r"producer waits to put on 's' \(full \(2 of 2\); "
                                         "consumer has finished the problem without reading it"):
        run(graph, {"X": np.full(8, 1)})
    text = source(consumer=CONSUMER.replace("Y[0] = total", "y: int8 = s.more()  # LINE\n"
                                                            "Y[0] = total"))
    graph = load_design(write(tmp_path, text))
    with pytest.raises(HwgenError) as e:
        run(graph, {"X": np.arange(8)})
    assert "stream 's' is read after its close in this problem" in str(e.value)
    assert e.value.loc[1] == marked(text)


def test_a_deadlock_on_data_is_stopped_with_its_streams_named(tmp_path):
    """The producer waits for ``t`` before it closes ``s``; the consumer puts on ``t`` only
    after its loop over ``s`` ends: no static check can see it, the interpreter stops it."""
    producer = PRODUCER.replace("s.close()", "y = t.get()\ns.close()")
    consumer = CONSUMER.replace("Y[0] = total", "t.put(1)\nY[0] = total")
    graph = load_design(write(tmp_path, source(producer, consumer)))
    with pytest.raises(HwgenError) as e:
        run(graph, {"X": np.arange(8)})
    assert "deadlock" in str(e.value)
    assert "consumer waits to get on 's' (empty)" in str(e.value)
    assert "producer waits to get on 't' (empty)" in str(e.value)


def test_folding_a_grid_that_closes_streams_is_refused_at_the_stream(tmp_path):
    text = """import hwgen
from hwgen import Stream, int8, int32


def build(N: int = 4):
    @hwgen.region
    def rows(X: int8[2, N], Y: int32[2]):
        s = Stream[int8, 2, N][2]

        @hwgen.task(mapping=[2])
        def producer():
            i = hwgen.get_pid()
            for k in range(N):
                x: int8 = X[i, k]
                if x > 0:
                    s[i].put(x)  # LINE
            s[i].close()

        @hwgen.task(mapping=[2])
        def consumer():
            i = hwgen.get_pid()
            total: int32 = 0
            for v in s[i]:
                total += v
            Y[i] = total

    return rows
"""
    path = write(tmp_path, text)
    graph = load_design(path)
    assert list(run(graph, {"X": np.array([[1, -2, 3, 0], [-1, -1, 5, 5]])})["Y"]) == [4, 10]
    with pytest.raises(HwgenError) as e:
        load_design(path, array=(1,))
    assert "folding a task grid onto an array does not build them yet" in str(e.value)
    assert e.value.loc[1] == marked(text)


def test_bounded_called_from_python_says_where_it_belongs():
    import hwgen
    with pytest.raises(HwgenError, match=r"only has a meaning inside a @hwgen.task body, as "
                                         r"`while hwgen.bounded\(cond, max_iterations=N\):`"):
        hwgen.bounded(True, max_iterations=4)
