"""What ``df.build`` returns: modules that run a region on numpy arrays, in place, as Allo's."""
import json
import os

import numpy as np

from ..check import check
from ..errors import HwgenError, HwgenTypeError
from ..ir import floats
from ..ir.interp import run
from ..ir.types import FloatType
from ..lang.frontend import Region

RTL_TARGETS = ("verilator", "rtl")
VENDOR_TARGETS = ("vitis_hls", "vhls", "ihls", "tapa", "aie", "aie-mlir", "catapult", "xls")


class AlloTypeError(HwgenTypeError, SystemExit):
    """Allo ends the program on a type error (``sys.exit(1)``); on the Allo surface so does
    hwgen's, printing it, while ``except HwgenError`` still catches it."""

    def __init__(self, message, loc=None):
        super().__init__(message, loc)
        self.code = str(self)


def checked_graph(region):
    """The checked task graph of ``region``, a parameter type error ending the program as
    Allo's does."""
    try:
        return check(region.graph())
    except HwgenTypeError as e:
        raise AlloTypeError(e.message, e.loc) from None


def describe(graph):
    """A few lines on a checked task graph: its tensors, task instances and streams."""
    lines = [f"hwgen task graph of region '{graph.name}':"]
    lines += [f"  {t.direction:3} {t.name}: {t.type!r}" for t in graph.tensors.values()]
    tasks = sorted({inst.task for inst in graph.instances.values()})
    lines.append(f"  {len(graph.instances)} task instance(s) of {', '.join(tasks)}; "
                 f"{len(graph.channels)} stream(s)")
    return "\n".join(lines)


class _Module:
    """A region bound to a target; ``mod(*arrays)`` in the region's parameter order."""

    def __init__(self, top):
        self.top = top
        self.graph = checked_graph(top)

    def bind(self, arrays):
        """name -> array of the call's positional arrays, checked against the region."""
        tensors = list(self.graph.tensors.values())
        if len(arrays) != len(tensors):
            raise HwgenError(f"{self.top.name}() takes {len(tensors)} arrays "
                             f"({', '.join(t.name for t in tensors)}), got {len(arrays)}")
        bound = {}
        for t, a in zip(tensors, arrays):
            if not isinstance(a, np.ndarray) or a.shape != tuple(t.shape):
                got = a.shape if isinstance(a, np.ndarray) else type(a).__name__
                raise HwgenError(f"argument '{t.name}' must be a numpy array of shape "
                                 f"{tuple(t.shape)}, got {got}")
            bound[t.name] = a
        return bound

    def __call__(self, *arrays):
        bound = self.bind(arrays)
        inputs = {t.name: bound[t.name] for t in self.graph.inputs}
        for name, value in self.execute(inputs).items():
            dtype = self.graph.tensors[name].dtype
            if isinstance(dtype, FloatType):
                value = floats.from_bits(value, dtype)
            np.copyto(bound[name], value, casting="unsafe")


class SimulatorModule(_Module):
    """``target="simulator"``: hwgen's functional interpreter. With ``HWGEN_ALLO_RTL`` set
    to a file name, the module's first call also runs the generated RTL (Verilator) on the same
    arrays and appends a JSON line to that file: the region, and "pass", "refused" (the
    hardware rule the region breaks) or "differs" (an error is raised as well: a hwgen bug)."""

    checked = False

    def execute(self, inputs):
        outputs = run(self.graph, inputs)
        log = os.environ.get("HWGEN_ALLO_RTL")
        if log and not self.checked:
            self.checked = True
            self.cross_check(inputs, outputs, log)
        return outputs

    def cross_check(self, inputs, outputs, log):
        from ..flow.rtl_run import RTLMismatch, run_rtl
        entry = {"region": self.top.name, "file": self.top.file}
        try:
            got = run_rtl(self.graph, inputs)
            same = all(np.array_equal(got[k], v) for k, v in outputs.items())
            entry.update(result="pass" if same else "differs")
        except RTLMismatch as e:
            entry.update(result="differs", why=str(e))
        except HwgenError as e:
            entry.update(result="refused", why=str(e))
        with open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")
        if entry["result"] == "differs":
            raise HwgenError(f"the RTL of {self.top.name} differs from the interpreter")


class RTLModule(_Module):
    """``target="verilator"``: the generated Verilog, simulated by Verilator."""

    def __init__(self, top, project=None, sim="verilator"):
        super().__init__(top)
        self.project, self.sim = project, sim

    def execute(self, inputs):
        from ..flow.rtl_run import run_rtl
        return run_rtl(self.graph, inputs, self.project, self.sim)


class UnavailableModule:
    """An Allo target that needs a vendor tool hwgen does not drive: running it or reading its
    generated code is an error. ``module`` (Allo's compiled IR) is hwgen's task graph."""

    def __init__(self, top, target):
        self._top, self._target = top, target
        self.module = describe(checked_graph(top))

    def _refuse(self):
        raise HwgenError(f"target {self._target!r} needs a vendor tool (AMD Vitis HLS or the "
                         "AIE tools) that hwgen does not drive; build with "
                         "target='simulator' (the interpreter) or target='verilator' (hwgen's "
                         "generated RTL)")

    def __call__(self, *arrays):
        self._refuse()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._refuse()


def build(top, target="vitis_hls", **options):
    """A callable module of region ``top`` for ``target`` (``allo.dataflow`` lists them)."""
    if not isinstance(top, Region):
        raise HwgenError(f"df.build() takes a @df.region(), got {top!r}")
    if target == "simulator":
        return SimulatorModule(top)
    if target in RTL_TARGETS:
        return RTLModule(top, **options)
    if target in VENDOR_TARGETS:
        return UnavailableModule(top, target)
    raise HwgenError(f"unknown target {target!r}; hwgen serves 'simulator' (its interpreter) and "
                     f"'verilator' (its generated RTL)")
