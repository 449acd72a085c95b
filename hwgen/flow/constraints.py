"""The flow's per-device and per-board constraints, read from the TOML files in ``constraints/``.

``constraints/devices/<device>.toml`` holds a device's family, nextpnr arguments, capacity and
(ECP5-85k) the DSP sites `floorplan` pins multipliers to; ``constraints/boards/<board>.toml`` a
board's amaranth-boards platform, device, bitstream packing, the bridge's clock choices and the
pins of the resources `board.BoardTop` requests. `check_platform` compares a board's pins with
the ones its platform declares, so an amaranth-boards release that moves a pin is caught.
"""
import functools
import importlib
import os
import tomllib
from dataclasses import dataclass

from amaranth.build import Pins, ResourceError, Subsignal

from ..errors import HwgenError
from .clocking import MHZ

CONSTRAINTS_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "constraints")


@dataclass(frozen=True)
class Device:
    """An FPGA as the flow targets it.

    Attributes
    ----------
    name, family : str
        ``ecp5-85k``; ``ecp5`` or ``ice40`` (the tools and primitives).
    nextpnr : tuple of str
        nextpnr's device and package arguments.
    dsp, luts, brams, bram_bits, pins : int
        DSP blocks, LUT4s, block RAMs, bits per block RAM, I/O pins of the package.
    dsp_sites : tuple of tuple of str
        nextpnr's DSP sites by DSP row, for `floorplan`; empty when multipliers are not pinned.
    logic_sites : tuple
        ``(columns, rows)`` of its logic tiles, for `floorplan`'s anchors; empty when none
        are pinned.
    """
    name: str
    family: str
    nextpnr: tuple
    dsp: int
    luts: int
    brams: int
    bram_bits: int
    pins: int
    dsp_sites: tuple = ()
    logic_sites: tuple = ()


@dataclass(frozen=True)
class Board:
    """A board as `board.bitstream` builds for it; frequencies in Hz.

    Attributes
    ----------
    name, device : str
        ``ulx3s-85f``; the `Device` it carries.
    platform : type
        The amaranth-boards platform class.
    clock_pin, clock_hz : str, int
        The oscillator (the platform's default clock).
    button, uart_rx, uart_tx : str
        The pins of button 0 (reset) and of uart 0.
    leds : tuple of str
        The pins of led 0, 1, ...
    clocks : tuple of (int, int)
        The bridge's ``(sync clock Hz, baud)`` choices in order of preference.
    ext : str
        The bitstream's file extension.
    pack : tuple of str
        The packing command, run as ``pack + (placed, bitstream)``.
    """
    name: str
    platform: type
    device: str
    clock_pin: str
    clock_hz: int
    button: str
    uart_rx: str
    uart_tx: str
    leds: tuple
    clocks: tuple
    ext: str
    pack: tuple

    def pins(self):
        """``{resource: pin}`` of the file, keyed as `platform_pins` keys them."""
        return {"clock": self.clock_pin, "button 0": self.button, "uart 0 rx": self.uart_rx,
                "uart 0 tx": self.uart_tx, **{f"led {k}": p for k, p in enumerate(self.leds)}}


# What a file may hold: a value's kind (its description and its test) or a nested table.
_INT = ("an integer", lambda v: type(v) is int)
_STR = ("a string", lambda v: type(v) is str)
_STRS = ("a list of strings", lambda v: type(v) is list and all(type(x) is str for x in v))
_INTS = ("a list of integers", lambda v: type(v) is list and all(type(x) is int for x in v))
_PAIRS = ("a list of [integer, integer]", lambda v: type(v) is list and all(
    type(x) is list and len(x) == 2 and all(type(y) is int for y in x) for x in v))
_DEVICE = {"family": _STR, "nextpnr": _STRS,
           "capacity": {"dsp": _INT, "luts": _INT, "brams": _INT, "bram_bits": _INT, "pins": _INT},
           "dsp_sites": {"rows_y": _INTS, "tiles_x": _INTS, "tile_sites": _PAIRS},
           "logic_sites": {"x": _PAIRS, "y": _PAIRS, "skip_y": _INTS}}
_BOARD = {"platform": _STR, "device": _STR, "bitstream": _STR, "pack": _STRS, "clocks": _PAIRS,
          "oscillator": {"pin": _STR, "mhz": _INT},
          "pins": {"button": _STR, "uart_rx": _STR, "uart_tx": _STR, "leds": _STRS}}
_OPTIONAL = {"dsp_sites", "logic_sites"}


def _read(path, schema):
    """The TOML file at ``path`` checked against ``schema``."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise HwgenError(f"{path}: not valid TOML: {e}") from None
    _check(path, data, schema, "")
    return data


def _check(path, table, schema, prefix):
    """A `HwgenError` naming ``path`` and the key when ``table`` does not follow ``schema``."""
    unknown = sorted(table.keys() - schema.keys())
    if unknown:
        raise HwgenError(f"{path}: unknown key {prefix + unknown[0]!r}; the keys are "
                         f"{', '.join(prefix + k for k in schema)}")
    for key, kind in schema.items():
        value = table.get(key)
        if value is None and key not in _OPTIONAL:
            raise HwgenError(f"{path}: key {prefix + key!r} is missing")
        if value is None:
            continue
        if isinstance(kind, dict):
            if type(value) is not dict:
                raise HwgenError(f"{path}: key {prefix + key!r} must be a table")
            _check(path, value, kind, f"{prefix}{key}.")
        elif not kind[1](value):
            raise HwgenError(f"{path}: key {prefix + key!r} must be {kind[0]}, got {value!r}")


def load_device(path):
    """The `Device` of the file at ``path`` (named after the file); ``dsp_sites`` become ECP5
    MULT18X18D site names, ``logic_sites`` the columns and rows of logic tiles."""
    data = _read(path, _DEVICE)
    have, sites, logic = data["capacity"], data.get("dsp_sites"), data.get("logic_sites")
    rows = () if sites is None else tuple(
        tuple(f"X{x + dx}/Y{y}/MULT18_{n}" for x in sites["tiles_x"] for dx, n in
              sites["tile_sites"]) for y in sites["rows_y"])
    tiles = () if logic is None else tuple(
        tuple(v for lo, hi in logic[axis] for v in range(lo, hi + 1)
              if axis == "x" or v not in logic["skip_y"]) for axis in ("x", "y"))
    return Device(_stem(path), data["family"], tuple(data["nextpnr"]), have["dsp"],
                  have["luts"], have["brams"], have["bram_bits"], have["pins"], rows, tiles)


def load_board(path):
    """The `Board` of the file at ``path`` (named after the file)."""
    data = _read(path, _BOARD)
    module, _, name = data["platform"].rpartition(".")
    try:
        platform = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        raise HwgenError(f"{path}: key 'platform': no class {data['platform']!r}; name an "
                         "amaranth-boards platform as module.Class") from None
    if data["device"] not in devices():
        raise HwgenError(f"{path}: key 'device': unknown DEVICE {data['device']!r}; use one "
                         f"of {', '.join(devices())}")
    osc, pins = data["oscillator"], data["pins"]
    return Board(_stem(path), platform, data["device"], osc["pin"], osc["mhz"] * MHZ,
                 pins["button"], pins["uart_rx"], pins["uart_tx"], tuple(pins["leds"]),
                 tuple((mhz * MHZ, baud) for mhz, baud in data["clocks"]), data["bitstream"],
                 tuple(data["pack"]))


def _stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def _names(kind):
    folder = os.path.join(CONSTRAINTS_DIR, kind)
    return sorted(_stem(f) for f in os.listdir(folder) if f.endswith(".toml"))


@functools.cache
def devices():
    """The device names, sorted."""
    return tuple(_names("devices"))


@functools.cache
def boards():
    """The board names, by device and then by name."""
    return tuple(sorted(_names("boards"), key=lambda b: (board(b).device, b)))


@functools.cache
def device(name):
    """The `Device` ``name``; a `HwgenError` naming the choices when there is none."""
    if name not in devices():
        raise HwgenError(f"unknown DEVICE {name!r}; use one of {', '.join(devices())}")
    return load_device(os.path.join(CONSTRAINTS_DIR, "devices", f"{name}.toml"))


@functools.cache
def board(name):
    """The `Board` ``name``; a `HwgenError` naming the choices when there is none."""
    if name not in _names("boards"):
        raise HwgenError(f"unknown BOARD {name!r}; use one of {', '.join(boards())}")
    return load_board(os.path.join(CONSTRAINTS_DIR, "boards", f"{name}.toml"))


def platform_pins(platform, leds):
    """``{resource: pin}`` as ``platform`` (an amaranth-boards platform) declares them for the
    resources `board.BoardTop` requests: the default clock, button 0, uart 0 and ``leds``
    LEDs. Several pins of one resource are joined by spaces."""
    def pins(name, number=0, sub=None):
        try:
            ios = platform.lookup(name, number).ios
        except ResourceError:
            raise HwgenError(f"{type(platform).__name__} has no resource {name} {number}; "
                             "the board file expects it") from None
        if sub is not None:
            ios = next((s.ios for s in ios if isinstance(s, Subsignal) and s.name == sub), [])
        return " ".join(n for io in ios if isinstance(io, Pins) for n in io.names)
    return {"clock": pins(platform.default_clk), "button 0": pins("button"),
            "uart 0 rx": pins("uart", sub="rx"), "uart 0 tx": pins("uart", sub="tx"),
            **{f"led {k}": pins("led", k) for k in range(leds)}}


def check_platform(spec, platform):
    """A `HwgenError` saying which pin, or the oscillator's frequency, differs between the
    `Board` ``spec`` and the amaranth-boards ``platform`` instance it builds on."""
    path = os.path.join("constraints", "boards", f"{spec.name}.toml")
    theirs = f"amaranth-boards' {type(platform).__name__}"
    given = platform_pins(platform, len(spec.leds))
    for resource, pin in spec.pins().items():
        if given[resource] != pin:
            raise HwgenError(f"{path} puts {resource} on pin {pin} but {theirs} has it on "
                             f"{given[resource] or 'none'}; check the board's schematic and "
                             "correct one of them")
    if platform.default_clk_frequency != spec.clock_hz:
        raise HwgenError(f"{path} gives the oscillator {spec.clock_hz / MHZ:g} MHz but {theirs} "
                         f"has {platform.default_clk_frequency / MHZ:g} MHz; check the board and "
                         "correct one of them")
