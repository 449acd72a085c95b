"""Exercise a design from the host: random problems through an ``Accelerator``, each compared
with the functional interpreter, and where the time went (``hwgen run``)."""
import numpy as np

from .driver import value_range
from .host import tile_order


def exercise(acc, graph, problems=5, seed=0, say=print):
    """Run ``problems`` random problems on ``acc`` back to back (its resident inputs loaded
    once, before them) and compare each with the functional interpreter; print what was
    sent, what came back and where the time went. Returns whether every problem matched."""
    from .flow.tiles import run_whole
    rng = np.random.default_rng(seed)

    def draw(ports):
        return {p.name: rng.integers(*value_range(p.dtype), endpoint=True,
                                     size=acc.manifest.whole_shape(p.name)) for p in ports}
    resident = draw(p for p in acc.inputs if p.resident)
    if resident:
        acc.load(**resident)            # once, for every problem
    cases = [draw(p for p in acc.inputs if not p.resident) for _ in range(problems)]
    outputs = acc.run_many(cases)
    good = True
    for n, (inputs, got) in enumerate(zip(cases, outputs)):
        want = run_whole(graph, {**inputs, **resident})
        wrong = [name for name in got if not np.array_equal(got[name], want[name])]
        good &= not wrong
        say(f"problem {n}: " + ("PASS" if not wrong else f"FAIL ({', '.join(wrong)} differ)"))
    s, bridge, tiles = acc.stats, acc.manifest.bridge, acc.manifest.tiles
    per = len(tile_order(tiles)) if tiles else 1
    compute = problems * per * acc.manifest.interval_cycles / bridge.clock_hz
    say(f"{s['payload_bytes_in']} payload bytes in ({s['frames_sent']} frames, "
        f"{s['frames_resent']} sent again), {s['payload_bytes_out']} out, in {s['seconds']:.4f} s "
        f"of the line's time: {problems / s['seconds']:.1f} problems/s")
    line = s["line_bytes_per_s"]
    say(f"payload rate: in {s['input_bytes_per_s'] / 1e3:.1f} kB/s "
        f"({s['input_bytes_per_s'] / line:.1%}), out {s['output_bytes_per_s'] / 1e3:.1f} kB/s "
        f"({s['output_bytes_per_s'] / line:.1%}) of the {line / 1e3:.0f} kB/s line "
        f"({bridge.baud / 1e6:g} Mbaud); the design computes {compute * 1e6:.1f} us of the "
        f"{s['seconds'] * 1e6:.0f} us ({compute / s['seconds']:.2%}), the rest is transfer")
    return good
