"""Will a design fit the target device? A quick count from the task graph, before minutes go
into elaboration, Verilog and place-and-route: multipliers against DSP blocks, on-chip buffer
bits against block RAM."""
import math

from ..schedule import levels
from . import constraints

# What the devices offer (``constraints/devices/<device>.toml``): DSP blocks (ECP5 MULT18X18D,
# iCE40 SB_MAC16), block RAM bits (ECP5 DP16KD 18 kbit, iCE40 EBR 4 kbit) and the I/O pins of
# the package each is built for (nextpnr's count of IO cells; the default port budget).
CAPACITY = {d.name: {"DSP": d.dsp, "LUT": d.luts, "BRAM bits": d.brams * d.bram_bits, "pins": d.pins}
            for d in map(constraints.device, constraints.devices())}


def multipliers(graph):
    """Multiplies of two run-time values on DSP blocks (one each): over every task instance
    but those that build them in logic (``Graph.fabric``)."""
    return sum(levels.multipliers(inst) for inst in graph.instances.values()
               if inst.name not in graph.fabric)


def buffer_bits(graph):
    """Bits of the tensors' on-chip buffers, each holding two problems (double buffering)."""
    return sum(2 * math.prod(t.shape) * t.dtype.bits for t in graph.tensors.values())


def fit_warnings(graph, device):
    """One line per resource the design needs more of than ``device`` has."""
    have = CAPACITY.get(device)
    if have is None:
        return []
    need = {"DSP": multipliers(graph), "BRAM bits": buffer_bits(graph)}
    return [f"{graph.name} {graph.params} needs about {need[k]:,} {k} but {device} has "
            f"{have[k]:,}: it will not fit; make the sizes or the grid smaller"
            for k in need if need[k] > have[k]]
