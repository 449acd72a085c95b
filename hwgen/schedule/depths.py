"""FIFO depths from the schedule: where a stream's declared depth makes its producer stall, the
fewest entries at which problems come no faster (the cycle model is exact, so this is the
depth the hardware needs, not a guess)."""
import dataclasses
from dataclasses import dataclass

from ..errors import HwgenError
from .plan import plan

__all__ = ["DepthAdvice", "depth_advice", "least_depth"]

# The deepest FIFO tried; a deeper one costs more memory than the stalls it saves.
MOST = 4096
# Advice only where it saves this share of the interval or more.
WORTH = 0.05


@dataclass(frozen=True)
class DepthAdvice:
    """Stream ``stream`` (declared at ``loc``) at ``depth`` gives ``interval`` cycles per
    problem back to back; ``better_depth`` entries give ``better_interval``, the least any
    depth up to `MOST` gives."""
    stream: str
    loc: tuple
    depth: int
    interval: int
    better_depth: int
    better_interval: int

    def message(self):
        return (f"stream '{self.stream}' at depth {self.depth} stalls its producer: "
                f"interval_cycles {self.interval:,}; at depth {self.better_depth} (the fewest "
                f"entries that reach it) {self.better_interval:,}, "
                f"{self.interval / self.better_interval:.2f}x faster back to back: declare it "
                f"with depth {self.better_depth}")


def depth_advice(built):
    """A `DepthAdvice` for each FIFO stream of the plan ``built`` whose depth costs `WORTH`
    of its interval or more, each stream deepened alone."""
    graph, advice = built.graph, []
    for name in built.schedule.fifos:
        found = least_depth(graph, name)
        if found is None or found[1] > (1 - WORTH) * built.interval_cycles:
            continue
        channel = graph.channels[name]
        advice.append(DepthAdvice(name, channel.loc, channel.depth, built.interval_cycles,
                                  *found))
    return advice


def least_depth(graph, name):
    """``(depth, interval)``: the fewest entries of stream ``name`` (no fewer than declared)
    at which problems come as fast as at any depth up to `MOST`, and that interval; None where
    the stream is `MOST` deep or deeper, or no depth builds."""
    channel = graph.channels.get(name)
    if channel is None or channel.depth >= MOST:
        return None
    best = _interval(graph, name, MOST)
    if best is None:
        return None
    if _interval(graph, name, channel.depth) == best:       # the common case: deep enough
        return channel.depth, best
    low, high = channel.depth, MOST            # interval(low) is worse, interval(high) best
    while high - low > 1:
        middle = (low + high) // 2
        if _interval(graph, name, middle) == best:
            high = middle
        else:
            low = middle
    return high, best


def _interval(graph, name, depth):
    """interval_cycles with stream ``name`` at ``depth`` (None where that does not build)."""
    channel = graph.channels[name]
    deeper = dataclasses.replace(channel, type=dataclasses.replace(channel.type, depth=depth))
    try:
        return plan(graph.with_(channels={**graph.channels, name: deeper})).interval_cycles
    except HwgenError:
        return None
