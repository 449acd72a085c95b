"""FIFO depth advice (schedule.depths): the fewest entries at which a stalling stream's producer
no longer stalls, checked against the plan and the generated hardware."""
import dataclasses
import os

import numpy as np

from hwgen.pipeline import load_design
from hwgen.rtl.simhelpers import run_top
from hwgen.rtl.top import Top
from hwgen.schedule import plan
from hwgen.schedule.depths import depth_advice
from tests.conftest import example, random_inputs

PROGRAMS = os.path.join(os.path.dirname(__file__), os.pardir, "programs")


def _deepened(graph, name, depth):
    channel = graph.channels[name]
    deeper = dataclasses.replace(channel, type=dataclasses.replace(channel.type, depth=depth))
    return graph.with_(channels={**graph.channels, name: deeper})


def test_a_stalling_fifo_gets_the_fewest_entries_that_stop_the_stall():
    graph = load_design(os.path.join(PROGRAMS, "shallow_fifo.py"))
    [advice] = depth_advice(plan(graph))
    assert (advice.stream, advice.depth, advice.interval) == ("h", 4, 402)
    assert (advice.better_depth, advice.better_interval) == (7, 364)
    assert advice.loc[1] == 11 and "declare it with depth 7" in advice.message()
    assert plan(_deepened(graph, "h", 6)).interval_cycles > 364
    # The hardware at the advised depth takes problems at the advised interval.
    top = Top(plan(_deepened(graph, "h", 7)))
    problems = [random_inputs(graph, seed) for seed in range(3)]
    _, _, done = run_top(top, problems)
    assert list(np.diff(done)) == [364, 364]


def test_no_advice_where_no_stream_stalls():
    assert depth_advice(plan(load_design(example("digits"), {"B": 2}))) == []
    assert depth_advice(plan(load_design(example("gemm_os"), {"M": 2, "N": 2, "K": 3}))) == []
