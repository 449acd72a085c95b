"""Run problems on an accelerator from Python, on a board or in simulation, with one API.

::

    from hwgen.driver import Accelerator
    with Accelerator.simulate("hwgen/examples/gemm_os.py", params={"M": 4, "N": 4, "K": 16}) as acc:
        C = acc.run(A=a, B=b)["C"]
    with Accelerator.open("build/gemm_os/bitstream_ulx3s-85f/design.json", "/dev/ttyUSB0") as acc:
        C = acc.run(A=a, B=b)["C"]

The design sits behind the UART bridge (`hwgen.rtl.bridge`) and speaks `hwgen.protocol`. The driver
sends every input tensor in frames of at most a chunk, at most ``WINDOW`` (2) unacknowledged frames
per port (the bridge acknowledges when its buffer has room for two more), sends its unacknowledged
frames again when the bridge answers with an error or stays silent, and collects the outputs.
Several problems are pipelined: ``run_many`` keeps every port busy across them.
"""
import os
from dataclasses import dataclass

import numpy as np

from .errors import HwgenError
from .flow.manifest import Manifest
from .host import element_type, join_tiles, split_tiles
from .protocol import (ACK, ERROR, ERRORS, OVERHEAD, WINDOW, Decoder, frame, from_bytes,
                       to_bytes)
from .serial_line import SerialLine

__all__ = ["Accelerator", "SerialLine"]


@dataclass(frozen=True)
class HostPort:
    """One tensor as the driver moves it: its port of the design (``manifest.Port``) and its
    entry on the bridge (``manifest.BridgePort``)."""
    name: str
    dir: str
    dtype: str
    shape: tuple
    id: int
    element_bytes: int
    chunk: int
    resident: bool = False          # loaded once (`Accelerator.load`), not with every problem

    @classmethod
    def of(cls, port, bridge):
        """The ``manifest.Port`` ``port`` with its entry on ``bridge``."""
        link = bridge.port(port.name, port.dir)
        return cls(port.name, port.dir, port.dtype, port.shape, link.id, link.element_bytes,
                   link.chunk, port.resident)


class Accelerator:
    """A bridged design: ``run(**inputs)`` on numpy arrays returns its outputs; its resident
    inputs (``ir.types.resident``: weights) are sent once, with ``load(**tensors)``, and stay
    on chip for every problem after.

    Parameters
    ----------
    manifest : Manifest or dict
        design.json of a bridged design (it has a ``bridge``), as a ``flow.manifest.Manifest``
        or the file's dict.
    line : transport
        ``write(bytes)``, ``read(timeout) -> bytes``, ``now() -> seconds``, ``close()``.
    timeout : float
        Seconds (of the line's time) without any answer before frames are sent again.
    retries : int
        Times frames are sent again before the run fails.
    progress : bool
        Show a progress bar of the output bytes received.
    """

    def __init__(self, manifest, line, timeout=1.0, retries=5, progress=False):
        if isinstance(manifest, dict):
            manifest = Manifest.from_json(manifest)
        _check_bridged(manifest)
        self.manifest, self.line, self.timeout, self.retries = manifest, line, timeout, retries
        self.progress = progress
        self._byte_time = 10 / manifest.bridge.baud     # start, 8 data and stop bits
        self.ports = [HostPort.of(p, manifest.bridge) for p in manifest.ports]
        self.inputs = [p for p in self.ports if p.dir == "in"]
        self.outputs = [p for p in self.ports if p.dir == "out"]
        self.loaded = set()         # the resident inputs loaded so far
        self._seq = {p.id: 0 for p in self.ports}
        self.errors = []            # error codes the bridge answered with, in order
        self._line_free = 0.0
        self.stats = {}             # of the last run: `_account`
        self.total = {k: 0 for k in _TOTALS}    # of every run so far

    @classmethod
    def open(cls, design_json, port, **kwargs):
        """The bitstream's design (its design.json) on a board at serial ``port``."""
        manifest = _read_manifest(design_json)
        _check_bridged(manifest)
        return cls(manifest, SerialLine(port, manifest.bridge.baud), **kwargs)

    @classmethod
    def simulate(cls, design, params=None, array=None, brams=None, line="bytes", **kwargs):
        """The design in Amaranth's simulator behind the same bridge: ``design`` is a program
        file (with ``params``, folded onto ``array`` and tiled within ``brams`` block RAMs as
        ``pipeline.load_design`` does), a design.json that records its ``source`` and how it
        was built (``build``), or a task graph. ``line``: "bytes" carries whole bytes at ten
        times the UART's fastest rate (``flow.bridge_sim``), "uart" simulates the UART bit by
        bit, as a board's design has it."""
        from .flow.bridge_sim import simulate
        from .pipeline import load_design
        source, build = None, None
        if isinstance(design, (str, os.PathLike)):
            source = str(design)
            build = {"params": params, "array": array, "brams": brams}
            if source.endswith(".json"):
                manifest = _read_manifest(source)
                if "source" not in manifest.extra:
                    raise HwgenError(f"{source} does not record its program ('source'); "
                                     "simulate the program file instead")
                source = manifest.extra["source"]
                build = manifest.extra.get("build", {"params": manifest.params})
            given = {k: v for k, v in build.items() if v is not None}
            if "array" in given:
                given["array"] = tuple(given["array"])         # a JSON list
            design = load_design(source, **given)
        info, transport = simulate(design, source=source, build=build, line=line)
        # Silence worth a few problems or 400 bytes of simulated time, not a board's second.
        kwargs.setdefault("timeout", max(4000, 4 * info.expected_cycles) / transport.clock_hz)
        return cls(info, transport, **kwargs)

    @classmethod
    def on_board(cls, graph, board, port, out_dir, progress=None, **kwargs):
        """Build ``graph``'s bridge bitstream for ``board``, program it (openFPGALoader, when
        installed; otherwise print the command) and open it at serial ``port``."""
        import shutil
        import subprocess
        from .flow.board import bitstream
        path, _ = bitstream(graph, out_dir, board, progress=progress)
        command = ["openFPGALoader", "-b", "ulx3s" if board.startswith("ulx3s") else board, path]
        if shutil.which(command[0]):
            if subprocess.run(command).returncode != 0:
                raise HwgenError(f"programming failed: {' '.join(command)}")
        else:
            print(f"openFPGALoader is not installed: program the board with\n  {' '.join(command)}"
                  "\n(or your own tool); running against whatever the board holds now")
        return cls.open(os.path.join(os.path.dirname(path), "design.json"), port, **kwargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.line.close()

    def load(self, **tensors):
        """Send resident inputs (numpy arrays by name): every problem after reads them, until
        they are loaded again. The design takes a new value once the problems before it are
        done."""
        resident = [p for p in self.inputs if p.resident]
        wrong = set(tensors) - {p.name for p in resident}
        if wrong:
            raise HwgenError(f"{sorted(wrong)} not resident: load() takes "
                             + (", ".join(p.name for p in resident) or "nothing in this design")
                             + "; send the others with run()")
        ports = [p for p in resident if p.name in tensors]
        self._exchange(self._frames([tensors], ports), 0)
        self.loaded |= {p.name for p in ports}

    def run(self, **inputs):
        """One problem: the output tensors (int64 arrays) by name."""
        return self.run_many([inputs])[0]

    def run_many(self, problems):
        """Several problems back to back; a list of their outputs. A tiled design (design.json's
        ``tiles``) takes and returns whole tensors: each problem runs as one problem of the
        design per tile (``host.split_tiles``/``join_tiles``)."""
        problems = list(problems)
        if not problems:
            raise HwgenError("run_many needs at least one problem")
        tiles = self.manifest.tiles
        if not tiles:
            return self._run_blocks(problems)
        blocks = [split_tiles(tiles, {p.name: self._checked(x, p, whole=True) for p in self.inputs})
                  for x in problems]
        outs = self._run_blocks([b for per in blocks for b in per])
        n = len(blocks[0])
        return [join_tiles(tiles, outs[k * n:(k + 1) * n]) for k in range(len(problems))]

    def _run_blocks(self, problems):
        """Problems of the design itself (tensors at its ports' shapes), back to back."""
        resident = [p.name for p in self.inputs if p.resident]
        for inputs in problems:
            given = set(inputs) & set(resident)
            if given:
                raise HwgenError(f"{sorted(given)} resident: load it once with "
                                 f"acc.load({next(iter(sorted(given)))}=...), then run "
                                 "problems without it")
            extra = set(inputs) - {p.name for p in self.inputs}
            if extra:
                raise HwgenError(f"unknown input(s) {sorted(extra)}; the design takes "
                                 + ", ".join(p.name for p in self.inputs))
        missing = [name for name in resident if name not in self.loaded]
        if missing:
            raise HwgenError(f"resident input(s) {missing} not loaded: call "
                             f"acc.load({missing[0]}=...) before running problems")
        sent = [p for p in self.inputs if not p.resident]
        received = self._exchange(self._frames(problems, sent), len(problems))
        results = []
        for n in range(len(problems)):
            out = {}
            for p in self.outputs:
                size = int(np.prod(p.shape)) * p.element_bytes
                out[p.name] = from_bytes(received[p.id][n * size:(n + 1) * size], p.dtype,
                                         p.shape)
            results.append(out)
        return results

    def _frames(self, problems, ports):
        """Port id -> the payloads of its frames for ``problems`` (input dicts), on
        ``ports``."""
        queues = {p.id: [] for p in self.inputs}
        for inputs in problems:
            for p in ports:
                data = to_bytes(self._checked(inputs, p), p.dtype)
                size = p.chunk * p.element_bytes
                queues[p.id] += [data[k:k + size] for k in range(0, len(data), size)]
        return queues

    def _checked(self, inputs, port, whole=False):
        """Input ``port``'s array in ``inputs``, checked: at the port's shape (``whole``: the
        whole tensor's of a tiled design, ``Manifest.whole_shape``), within its type."""
        name = port.name
        shape = self.manifest.whole_shape(name) if whole else port.shape
        if name not in inputs:
            raise HwgenError(f"missing input {name!r} (shape {shape}, {port.dtype})")
        value = np.asarray(inputs[name])
        if value.shape != shape or not np.issubdtype(value.dtype, np.integer):
            raise HwgenError(f"input {name!r} must be an integer array of shape {shape}, "
                             f"not {value.dtype} {value.shape}")
        low, high = value_range(port.dtype)
        if value.size and (value.min() < low or value.max() > high):
            raise HwgenError(f"input {name!r} has values outside {port.dtype} "
                             f"({low}..{high}): {value.min()}..{value.max()}")
        return value

    def _exchange(self, queues, problems):
        """Send every queued frame, ``WINDOW`` unacknowledged per port, and collect the
        outputs."""
        want = {p.id: problems * int(np.prod(p.shape)) * p.element_bytes for p in self.outputs}
        received = {i: bytearray() for i in want}
        outstanding = {i: [] for i in queues}      # (seq, frame) not yet acknowledged
        decoder = Decoder(max_payload=self.manifest.bridge.chunk_bytes)
        start = self.line.now()
        heard, retries = start, 0
        sent = {"frames": 0, "payload": sum(len(c) for q in queues.values() for c in q),
                "resent": 0, "last_ack": start, "first_out": None, "done": []}
        per_problem = {i: n // max(1, problems) for i, n in want.items()}
        from tqdm import tqdm
        bar = tqdm(total=sum(want.values()), unit="B", desc="results", leave=False,
                   mininterval=1, disable=not self.progress)
        while any(len(received[i]) < n for i, n in want.items()) or any(outstanding.values()) \
                or any(queues.values()):
            for i, queue in queues.items():
                while len(outstanding[i]) < WINDOW and queue:
                    outstanding[i].append((self._seq[i], frame(i, self._seq[i], queue.pop(0))))
                    self._seq[i] = (self._seq[i] + 1) % 256
                    self._send(outstanding[i][-1][1])
                    sent["frames"] += 1
            data = self.line.read(self.timeout / 20)
            if data:
                heard, retries = self.line.now(), 0
            for f in decoder.feed(data):
                self._take(f, outstanding, received, sent)
            complete = min((len(received[i]) // n for i, n in per_problem.items() if n),
                           default=0)
            sent["done"] += [self.line.now() - start] * (complete - len(sent["done"]))
            got = sum(map(len, received.values()))
            if got > bar.n:
                bar.update(got - bar.n)
            # Silence counts from when the line has carried what was written.
            if self.line.now() - max(heard, self._line_free) > self.timeout:
                retries += 1
                if retries > self.retries:
                    raise HwgenError(self._stuck(received, want, outstanding))
                self._resend(outstanding, sent)
                heard = self.line.now()
        bar.close()
        self._account(start, sent, received)
        return received

    def _take(self, f, outstanding, received, sent):
        if f.id == ERROR:
            self.errors.append(f.seq)
            self._resend(outstanding, sent)
        elif f.id & ACK and (f.id & ~ACK) in outstanding:
            # Acknowledges its frame and those before it (a stale repeat names an older one).
            pending = outstanding[f.id & ~ACK]
            while pending and (f.seq - pending[0][0]) % 256 < 128:
                pending.pop(0)
                sent["last_ack"] = self.line.now()
        elif f.id in received:
            if f.seq != self._seq[f.id]:
                raise HwgenError(f"output frame {f.seq} of {self.ports[f.id].name} arrived "
                                 f"where {self._seq[f.id]} was expected: a frame was lost")
            self._seq[f.id] = (self._seq[f.id] + 1) % 256
            received[f.id] += f.payload
            if sent["first_out"] is None:
                # When the frame began.
                sent["first_out"] = (self.line.now()
                                     - (len(f.payload) + OVERHEAD) * self._byte_time)
        else:
            raise HwgenError(f"the bridge sent an unknown frame {f}: is the board running the "
                             "bitstream of this design.json?")

    def _resend(self, outstanding, sent):
        for pending in outstanding.values():
            for _, data in pending:
                self._send(data)
                sent["resent"] += 1

    def _send(self, data):
        """Write ``data``; ``_line_free`` is when the line will have carried it."""
        self._line_free = max(self._line_free, self.line.now()) + len(data) * self._byte_time
        self.line.write(data)

    def _stuck(self, received, want, outstanding):
        waiting = [f"{self.ports[i].name}: {len(received[i])} of {n} bytes"
                   for i, n in want.items() if len(received[i]) < n]
        unacked = [self.ports[i].name for i, e in outstanding.items() if e]
        errors = ", ".join(ERRORS.get(c, str(c)) for c in self.errors[-3:]) or "none"
        return (f"no answer from the bridge for {self.timeout} s, {self.retries} times: outputs "
                f"waiting ({'; '.join(waiting) or 'none'}), frames unacknowledged "
                f"({', '.join(unacked) or 'none'}), last errors: {errors}")

    def _account(self, start, sent, received):
        """``stats``: bytes and seconds of the last run (``problem_seconds``: when each of its
        problems' outputs were all in, from the run's start), and the line's share of its rate;
        ``total``: the sums over every run."""
        line_rate = self.manifest.bridge.baud / 10
        inputs = max(sent["last_ack"] - start, 1e-12)
        out = sum(len(r) for r in received.values())
        outputs = max(self.line.now() - (sent["first_out"] or start), 1e-12)
        self.stats = {"seconds": self.line.now() - start, "problems": len(sent["done"]),
                      "problem_seconds": sent["done"], "frames_sent": sent["frames"],
                      "frames_resent": sent["resent"], "payload_bytes_in": sent["payload"],
                      "payload_bytes_out": out, "output_seconds": outputs,
                      "output_bytes_per_s": out / outputs,
                      "line_bytes_per_s": line_rate, "input_seconds": inputs,
                      "input_bytes_per_s": sent["payload"] / inputs,
                      "overhead_bytes_per_frame": OVERHEAD}
        for key in _TOTALS:
            self.total[key] += self.stats[key]


# What `Accelerator.total` sums over runs.
_TOTALS = ("problems", "seconds", "frames_sent", "frames_resent", "payload_bytes_in",
           "payload_bytes_out")


def value_range(dtype):
    """The least and greatest value of ``dtype``."""
    bits, signed = element_type(dtype)
    return (-(1 << bits - 1), (1 << bits - 1) - 1) if signed else (0, (1 << bits) - 1)


def _check_bridged(manifest):
    if manifest.bridge is None:
        raise HwgenError("this design.json has no 'bridge' key: build the design with the "
                         "bridge (make bitstream or make run) and use that design.json")


def _read_manifest(path):
    if not os.path.exists(path):
        raise HwgenError(f"{path} does not exist: build the design first (make bitstream or "
                         "make run writes it)")
    return Manifest.read(path)
