"""The host side of the stream contract, once, for every simulator and driver.

A tensor travels in row-major order, ``lanes`` elements per beat packed little-endian
(element 0 in the low bits), two's complement (a float element: its IEEE-754 bit pattern); an input whose rows (innermost dimension) ``lanes``
does not divide ends every row with ``row_pad`` padding elements (design.json), so that rows
fill whole beats. `pack` and `unpack` convert between elements and beats, `beats` counts them. `Source` and `Sink` decide, cycle by cycle, what a host drives on one stream port:
a simulator testbench (Amaranth or cocotb) calls ``step()`` before a clock edge, drives what it
returns, samples the other side's handshake and reports it with ``edge()``::

    src = Source(pack(values, "int8", lanes=2), gap=0.3, seed=1)
    while not src.done:
        valid, payload = src.step()
        ...drive valid and payload, wait for the clock edge, sample ready...
        src.edge(ready)

A design whose tensors do not fit on chip declares ``tiles`` in design.json: the whole
problem's tensors, and loops over tile indices (outer first, ``{"param", "count", "size"}``).
The host runs one problem of the design per tile, in that order, sending each input's block
(rows ``t * size`` to ``(t + 1) * size`` of every dimension named after a tiled parameter,
zero beyond the tensor's end) and receiving each output's block: `split_tiles` and
`join_tiles`.

Pure Python (no simulator imports), so the cocotb process can import it too.
"""
import operator
import random

import numpy as np

from .errors import HwgenError

# Float elements travel as their IEEE-754 bit patterns (unsigned).
FLOAT_BITS = {"float32": 32, "bfloat16": 16, "float16": 16}

__all__ = ["element_type", "beats", "pack", "unpack", "Source", "Sink", "fifo_state",
           "tile_order", "split_tiles", "join_tiles"]


def element_type(dtype):
    """Bits and signedness of an element type.

    Parameters
    ----------
    dtype : str or object
        A name such as ``"int8"`` or ``"uint16"`` (as in ``design.json``), or anything with
        ``bits`` and ``signed`` attributes (``hwgen.ir.types.IntType``). A float type
        (``"float32"``, ``"bfloat16"``, ``"float16"``) travels as its IEEE-754 bit pattern, an
        unsigned integer of its width.

    Returns
    -------
    bits : int
    signed : bool
    """
    if hasattr(dtype, "bits") and hasattr(dtype, "signed"):
        return int(dtype.bits), bool(dtype.signed)
    name = str(dtype)
    if name in FLOAT_BITS:
        return FLOAT_BITS[name], False
    signed = not name.startswith("uint")
    digits = name[4:] if not signed else name[3:] if name.startswith("int") else ""
    if not digits.isdigit() or int(digits) < 1:
        raise HwgenError(f"unknown element type {dtype!r}; use e.g. 'int8' or 'uint16'")
    return int(digits), signed


def _check_lanes(lanes):
    if isinstance(lanes, bool) or not isinstance(lanes, (int, np.integer)) or lanes < 1:
        raise HwgenError(f"lanes must be a positive integer, not {lanes!r}")
    return int(lanes)


def beats(shape, lanes, row_pad=0):
    """Beats that carry one tensor of ``shape`` (a port of design.json: its ``shape``,
    ``lanes`` and ``row_pad``, 0 when absent)."""
    n = int(np.prod(shape))
    rows = n // shape[-1] if len(shape) else 1
    return (n + rows * row_pad) // _check_lanes(lanes)


def pack(values, dtype, lanes, row_pad=0):
    """Pack elements into beats, ``lanes`` per beat, element 0 in the low bits.

    Parameters
    ----------
    values : array_like of int
        The elements in stream order (any shape; flattened row-major).
    dtype : str or IntType
        The element type, see `element_type`.
    lanes : int
        Elements per beat; must divide the number of elements (with padding).
    row_pad : int
        Zeros appended to each row (last axis of ``values``) before packing.

    Returns
    -------
    list of int
        One non-negative integer per beat, ``bits * lanes`` bits wide.

    Raises
    ------
    HwgenError
        When ``lanes`` does not divide the element count or a value does not fit ``dtype``.
    """
    bits, signed = element_type(dtype)
    lanes = _check_lanes(lanes)
    if isinstance(row_pad, bool) or not isinstance(row_pad, (int, np.integer)) or row_pad < 0:
        raise HwgenError(f"row_pad must be a non-negative integer, not {row_pad!r}")
    flat = np.asarray(values)
    if row_pad:
        flat = np.pad(flat.reshape(-1, flat.shape[-1] if flat.ndim else 1), ((0, 0), (0, row_pad)))
    flat = flat.reshape(-1)
    if len(flat) % lanes:
        raise HwgenError(f"{lanes} lanes must divide the {len(flat)} elements to pack")
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    mask = (1 << bits) - 1
    beats, beat, k = [], 0, 0
    for v in flat.tolist():
        try:
            v = operator.index(v)
        except TypeError:
            raise HwgenError(f"cannot pack {v!r}: elements must be integers") from None
        if not lo <= v <= hi:
            name = f"{'int' if signed else 'uint'}{bits}"
            raise HwgenError(f"value {v} does not fit {name} (range {lo}..{hi})")
        beat |= (v & mask) << (k * bits)
        k += 1
        if k == lanes:
            beats.append(beat)
            beat, k = 0, 0
    return beats


def unpack(beats, dtype, lanes):
    """Unpack beats into elements, wrapping each to ``dtype`` (two's complement if signed).

    Parameters
    ----------
    beats : iterable of int
        Beat payloads as unsigned integers; bits above ``bits * lanes`` are ignored.
    dtype : str or IntType
        The element type, see `element_type`.
    lanes : int
        Elements per beat.

    Returns
    -------
    numpy.ndarray
        ``len(beats) * lanes`` elements, 1-D, in stream order.
    """
    bits, signed = element_type(dtype)
    lanes = _check_lanes(lanes)
    mask, sign = (1 << bits) - 1, 1 << (bits - 1)
    out = []
    for beat in beats:
        beat = operator.index(beat)
        for k in range(lanes):
            v = (beat >> (k * bits)) & mask
            out.append(v - (1 << bits) if signed and v & sign else v)
    return np.array(out, dtype=np.int64 if bits <= 63 else object)


def _check_gap(gap):
    if not 0 <= gap < 1:
        raise HwgenError(f"gap must be a probability in [0, 1), not {gap!r}")
    return float(gap)


class Source:
    """The host driving one input stream: sends ``beats`` in order, with random valid gaps.

    Parameters
    ----------
    beats : list of int
        The payloads to send (see `pack`).
    gap : float
        Probability in ``[0, 1)`` that valid is low in a cycle with a beat still to send.
    seed : int or float or str
        Seed of the source's own ``random.Random``.

    Attributes
    ----------
    taken : int
        Beats the design has accepted so far (``beats[:taken]``).
    total : int
        ``len(beats)``.
    """

    def __init__(self, beats, gap=0.0, seed=0):
        self.beats = list(beats)
        self.gap = _check_gap(gap)
        self.rng = random.Random(seed)
        self.taken = 0
        self.total = len(self.beats)
        self.valid = False

    @property
    def done(self):
        """Whether every beat has been accepted."""
        return self.taken == self.total

    def step(self):
        """What to drive in the coming cycle.

        Returns
        -------
        valid : bool
        payload : int
            The next beat (``0`` once done; it does not matter while valid is low).
        """
        if self.done:
            self.valid = False
            return False, 0
        self.valid = self.rng.random() >= self.gap
        return self.valid, self.beats[self.taken]

    def edge(self, ready):
        """Report ``ready`` as sampled at the clock edge.

        Returns
        -------
        bool
            Whether the beat driven in this cycle was taken (valid and ready).
        """
        taken = self.valid and bool(ready)
        self.taken += taken
        return taken


class Sink:
    """The host draining one output stream: takes ``total`` beats, with random back-pressure.

    Parameters
    ----------
    total : int
        Beats to receive; ready stays low after the last one.
    gap : float
        Probability in ``[0, 1)`` that ready is low in a cycle with a beat still to receive.
    seed : int or float or str
        Seed of the sink's own ``random.Random``.

    Attributes
    ----------
    received : list of int
        The payloads taken so far, in order (see `unpack`).
    taken : int
        ``len(received)``.
    """

    def __init__(self, total, gap=0.0, seed=0):
        self.total = int(total)
        self.gap = _check_gap(gap)
        self.rng = random.Random(seed)
        self.received = []
        self.ready = False

    @property
    def taken(self):
        return len(self.received)

    @property
    def done(self):
        """Whether every beat has been received."""
        return self.taken == self.total

    def step(self):
        """Whether to assert ready in the coming cycle."""
        self.ready = not self.done and self.rng.random() >= self.gap
        return self.ready

    def edge(self, valid, payload):
        """Report ``valid`` and ``payload`` as sampled at the clock edge.

        Returns
        -------
        bool
            Whether a beat was taken (valid and ready); its payload is then in ``received``.
        """
        taken = self.ready and bool(valid)
        if taken:
            self.received.append(int(payload))
        return taken


def fifo_state(name, level, depth):
    """How a stuck run reports one internal FIFO stream: ``"s full (2/2)"``."""
    state = "full" if level == depth else "empty" if level == 0 else "partly full"
    return f"{name} {state} ({level}/{depth})"


def tile_order(tiles):
    """The tile indices (parameter -> index) of a ``tiles`` declaration, in the order the host
    runs them: the first loop outermost."""
    order = [{}]
    for loop in tiles["loops"]:
        order = [dict(t, **{loop["param"]: i}) for t in order for i in range(loop["count"])]
    return order


def _block(tiles, name, at):
    """Per dimension of tensor ``name``: the whole tensor's slice of tile ``at`` and its size
    in the design."""
    size = {loop["param"]: loop["size"] for loop in tiles["loops"]}
    spec = tiles["tensors"][name]
    return [(slice(at[p] * size[p], min((at[p] + 1) * size[p], n)), size[p]) if p in size
            else (slice(0, n), n) for n, p in zip(spec["shape"], spec["dims"])]


def split_tiles(tiles, arrays):
    """Whole tensors (name -> array) as one problem per tile (name -> block, padded with
    zeros to the design's shape), in ``tile_order``."""
    problems = []
    for at in tile_order(tiles):
        problem = {}
        for name, whole in arrays.items():
            parts = _block(tiles, name, at)
            block = np.zeros([n for _, n in parts], dtype=np.asarray(whole).dtype)
            view = np.asarray(whole)[tuple(s for s, _ in parts)]
            block[tuple(slice(0, k) for k in view.shape)] = view
            problem[name] = block
        problems.append(problem)
    return problems


def join_tiles(tiles, problems):
    """The whole tensors from one problem's outputs per tile (name -> block), in
    ``tile_order``: each tile's block in its place, its padding dropped."""
    out = {}
    for at, problem in zip(tile_order(tiles), problems):
        for name, block in problem.items():
            whole = out.setdefault(name, np.zeros(tiles["tensors"][name]["shape"],
                                                  dtype=np.asarray(block).dtype))
            parts = [s for s, _ in _block(tiles, name, at)]
            whole[tuple(parts)] = np.asarray(block)[tuple(slice(0, s.stop - s.start)
                                                          for s in parts)]
    return out
