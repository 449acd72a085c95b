"""``design.json`` as typed objects: what a generated design tells its hosts.

`Manifest` is built from the plan (``verilog.manifest``) and read back from a file only where a
file is read (`Manifest.read`); ``to_json`` gives the file's dict, key for key and in its order,
so a manifest read and written again is the same file. Keys the type does not know (added by
later extensions) are kept as they are, after the known ones. A design.json of the contract's
minimal form (another design with the same host interface: top, verilog, clock, reset, ports,
expected_cycles) reads too: the keys hwgen adds are optional (None where absent, and not
written back).
"""
import json
from dataclasses import MISSING, dataclass, field, fields

from ..errors import HwgenError


# A field the file holds only when it differs from its default (a key added by an extension).
_OPTIONAL = {"optional": True}


@dataclass(frozen=True, kw_only=True)
class Port:
    """One host port: a tensor's stream, ``lanes`` elements per beat (``row_pad`` padding
    elements after each row of an input's innermost dimension). A ``resident`` input is sent
    once and serves every problem after, until it is sent again (``ir.types.resident``)."""
    name: str
    dir: str                    # "in" or "out"
    dtype: str
    shape: tuple
    lanes: int
    row_pad: int = field(default=None, metadata=_OPTIONAL)     # None: 0, not in the file
    payload: str                # the Verilog signals of the stream
    valid: str
    ready: str
    resident: bool = field(default=False, metadata=_OPTIONAL)

    @property
    def signal(self):
        """The stem of the port's Verilog signals (``A`` of ``A__payload``)."""
        return self.payload.removesuffix("__payload")


@dataclass(frozen=True)
class Stream:
    """A stream built as a FIFO, and the FIFO's instance in the top."""
    name: str
    depth: int
    instance: str


@dataclass(frozen=True)
class Schedule:
    """What the schedule built: lockstep groups, the cycles the array takes per problem, and
    the streams lowered to registers and to FIFOs."""
    groups: int
    array_cycles: int
    register_streams: int
    fifo_streams: int


@dataclass(frozen=True)
class BridgePort:
    """One host port on the bridge: its frames' ``id`` (the port's index in the manifest's
    ``ports``), bytes per element and at most ``chunk`` elements per frame."""
    name: str
    dir: str                    # "in" or "out"
    id: int
    element_bytes: int
    chunk: int


@dataclass(frozen=True)
class Bridge:
    """The UART host bridge a board's design sits behind (``rtl.bridge``)."""
    clock_hz: int
    baud: float
    divisor: int | None         # None: a simulated line of whole bytes, no UART
    timeout_cycles: int
    chunk_bytes: int
    window: int
    ports: tuple                # BridgePort

    @classmethod
    def from_json(cls, data):
        """The bridge of ``design.json``'s ``bridge`` dict (``rtl.bridge.Bridged.manifest``)."""
        return cls(**dict(data, ports=tuple(BridgePort(**p) for p in data["ports"])))

    def port(self, name, direction):
        """The bridge's entry for the host port ``name`` of ``direction``."""
        for p in self.ports:
            if (p.name, p.dir) == (name, direction):
                return p
        raise HwgenError(f"the bridge has no {direction} port {name!r}: is design.json's "
                         "bridge that of its design?")


@dataclass(frozen=True, kw_only=True)
class Manifest:
    """One design's ``design.json`` (the keys hwgen adds to the contract's are optional)."""
    top: str
    verilog: tuple
    target: str = field(default=None, metadata=_OPTIONAL)
    clock: str
    reset: str
    params: dict = field(default=None, metadata=_OPTIONAL)
    ports: tuple                # Port
    streams: tuple = field(default=None, metadata=_OPTIONAL)     # Stream
    expected_cycles: int
    interval_cycles: int = field(default=None, metadata=_OPTIONAL)
    schedule: Schedule = field(default=None, metadata=_OPTIONAL)
    tiles: dict = field(default=None, metadata=_OPTIONAL)   # a tiled design: the tiles' order
    bridge: Bridge = field(default=None, metadata=_OPTIONAL)
    extra: dict = field(default_factory=dict)   # other keys, in the file's order

    def port(self, name, direction=None):
        """The port ``name`` (of ``direction``, for an in-out tensor's two)."""
        for p in self.ports:
            if p.name == name and direction in (None, p.dir):
                return p
        raise HwgenError(f"design {self.top!r} has no port {name!r}; its ports are "
                         + ", ".join(sorted({p.name for p in self.ports})))

    def whole_shape(self, name):
        """The shape of tensor ``name`` as the host gives or takes it: in a tiled design the
        whole problem's (``tiles``), otherwise its port's."""
        return tuple(self.tiles["tensors"][name]["shape"]) if self.tiles else self.port(name).shape

    def to_json(self):
        """The dict ``design.json`` holds."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "extra":
                out.update(value)
            elif not (f.metadata.get("optional") and value is None):
                out[f.name] = _plain(value)
        return out

    @classmethod
    def from_json(cls, data, where="design.json"):
        """The manifest of a ``design.json`` dict; a missing or malformed key is a
        HwgenError naming ``where`` and the key."""
        if not isinstance(data, dict):
            raise HwgenError(f"{where} must hold a JSON object, not {type(data).__name__}")
        known = {f.name for f in fields(cls)} - {"extra"}
        required = [f.name for f in fields(cls) if f.name != "extra" and
                    f.default is MISSING and f.default_factory is MISSING]
        try:
            values = {k: data[k] for k in known if k in data}
            missing = [k for k in required if k not in data]
            if missing:
                raise KeyError(missing[0])
            values["verilog"] = tuple(data["verilog"])
            values["ports"] = tuple(Port(**dict(p, shape=tuple(p["shape"])))
                                    for p in data["ports"])
            if "streams" in data:
                values["streams"] = tuple(Stream(**s) for s in data["streams"])
            if "schedule" in data:
                values["schedule"] = Schedule(**data["schedule"])
            if "bridge" in data:
                values["bridge"] = Bridge.from_json(data["bridge"])
            if data.get("tiles"):
                _check_tiles(data["tiles"], values["ports"])
            return cls(**values, extra={k: v for k, v in data.items() if k not in known})
        except KeyError as e:
            raise HwgenError(f"{where} has no key {e.args[0]!r}: is it a hwgen design.json?") \
                from None
        except TypeError as e:
            raise HwgenError(f"{where} is malformed ({e})") from None

    @classmethod
    def read(cls, path):
        """The manifest in the file ``path``."""
        try:
            with open(path) as f:
                data = json.load(f)
        except OSError as e:
            raise HwgenError(f"cannot read {path}: {e.strerror}") from None
        except ValueError as e:
            raise HwgenError(f"{path} is not JSON: {e}") from None
        return cls.from_json(data, path)

    def write(self, path):
        """Write the manifest to ``path`` as ``design.json`` is written."""
        with open(path, "w") as f:
            json.dump(self.to_json(), f, indent=1)
            f.write("\n")


def _check_tiles(tiles, ports):
    """Look up what the host reads of ``tiles``, a KeyError or TypeError where it is missing:
    each loop's parameter, count and size, and each port's whole shape and dimensions."""
    for loop in tiles["loops"]:
        loop["param"], loop["count"], loop["size"]
    for p in ports:
        tiles["tensors"][p.name]["shape"], tiles["tensors"][p.name]["dims"]


def _plain(value):
    """``value`` as JSON holds it: dataclasses as dicts, tuples as lists."""
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)
                if not (f.metadata.get("optional") and getattr(value, f.name) == f.default)}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
