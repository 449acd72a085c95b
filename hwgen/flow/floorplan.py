"""An array pinned in its own shape before nextpnr places: its multipliers to the DSP rows, or
anchors of its PEs to logic tiles where they multiply in logic.

Left alone, nextpnr's analytic placer scatters an array's MULT18X18D blocks over the device's
three DSP rows, and every link, buffer read and control register between them pays for the
distance. ``pin_multipliers`` gives each multiplier of a grid of tasks (``pe_<i>_<j>.mul<n>`` in
the synthesized netlist: the task instance's module, flattened) a site through nextpnr's ``BEL``
attribute: the array's rows in bands of ``band`` rows per DSP row, each column of a band on
neighbouring sites, so that a PE's vertical neighbour sits on the next site and its horizontal
one ``band`` sites on, the bands of the array one under the other on the same columns, and the
array in the middle of the device. A design with several grids, or one that does not fit, is
left to the placer as it is. Block RAMs stay the placer's: pinning each bank's blocks beside the
PE its data reaches first does not make the design faster.

A grid whose PEs multiply in logic has no blocks to pin; each PE is anchored instead by one of
its control lines' copies (``cond_..._ff0``: a kept flip-flop fed by a flip-flop, which nextpnr
places alone) on a logic site, the anchors spaced by the design's logic per PE and centred on
the device (``anchor_layout``), so that the array keeps its shape as a pinned DSP array does.
"""
import json
import math
import os
import re

from . import constraints

# The MULT18X18D sites by DSP row (nextpnr 0.11 names) of each device whose file lists them
# (``constraints/devices/<device>.toml``, ``[dsp_sites]``: ECP5-85k's three rows of 52).
DSP_SITES = {d.name: [list(row) for row in d.dsp_sites]
             for d in map(constraints.device, constraints.devices()) if d.dsp_sites}

# The logic sites of each device whose file lists them (``[logic_sites]``): its slice columns
# and rows, but the rows of block RAM and DSP tiles.
LOGIC_SITES = {d.name: d.logic_sites for d in map(constraints.device, constraints.devices())
               if d.logic_sites}

# A multiplier of a task on a grid: ``<scope.>task_<i>[_<j>].mul<n>``.
_GRID_MULTIPLIER = re.compile(r"^(?P<task>.*?)(?P<index>(?:_\d+){1,2})\.mul(?P<unit>\d+)$")
# A carry chain of a multiply in logic (``rtl.multiply._pairs``).
_IN_LOGIC = re.compile(r"\.mul\d+_r\d+_\d+$")
# A control line's copy in a task on a grid (``rtl.replica.kept``).
_GRID_ANCHOR = re.compile(r"^(?P<task>.*?)(?P<index>(?:_\d+){1,2})\.cond_[\d_]+d\d+_ff0$")


def grids(cells):
    """The netlist's MULT18X18D cells by grid of tasks: ``{task: {(row, col, unit): cell}}``
    (a one-dimensional grid is one row)."""
    found = {}
    for name, cell in cells.items():
        m = _GRID_MULTIPLIER.match(name)
        if cell.get("type") == "MULT18X18D" and m:
            found.setdefault(m["task"], {})[(*_position(m), int(m["unit"]))] = name
    return found


def anchors(cells):
    """One control-line copy per task instance of each grid: ``{task: {(row, col): cell}}``,
    the first by name."""
    found = {}
    for name in sorted(cells):
        m = _GRID_ANCHOR.match(name)
        if m and cells[name].get("type") == "TRELLIS_FF":
            found.setdefault(m["task"], {}).setdefault(_position(m), name)
    return found


def _position(match):
    index = [int(i) for i in match["index"].split("_")[1:]]
    return tuple(index) if len(index) == 2 else (0, index[0])


def layout(rows, cols, units, dsp_rows, sites_per_row):
    """``{(row, col, unit): (dsp_row, site)}`` for an array of ``rows`` x ``cols`` tasks with
    ``units`` multipliers each, or ``None`` when it does not fit."""
    per_band = sites_per_row // (cols * units)           # array rows one DSP row holds
    if per_band == 0 or -(-rows // per_band) > dsp_rows:
        return None
    bands = -(-rows // per_band)
    band = -(-rows // bands)                             # balanced: 12 rows -> 3 bands of 4
    first = (dsp_rows - bands + 1) // 2                  # the middle DSP rows
    left = (sites_per_row - cols * band * units) // 2    # and the middle of each
    return {(r, c, u): (first + r // band, left + ((c * band + r % band) * units + u))
            for r in range(rows) for c in range(cols) for u in range(units)}


def anchor_layout(rows, cols, tiles, sites):
    """``{(row, col): (x, y)}`` for the anchors of ``rows`` x ``cols`` PEs of ``tiles`` logic
    tiles each, on the ``sites`` ``(columns, rows)`` of logic tiles, centred; ``None`` when
    the array does not fit."""
    pitch_y = max(1, round(math.sqrt(tiles)))
    pitch = (max(1, math.ceil(tiles / pitch_y)), pitch_y)
    axes = []
    for n, step, free in zip((cols, rows), pitch, sites):
        if n * step > len(free):
            return None
        first = (len(free) - n * step) // 2
        axes.append([free[first + k * step + step // 2] for k in range(n)])
    return {(r, c): (axes[0][c], axes[1][r]) for r in range(rows) for c in range(cols)}


def pin_multipliers(workdir, netlist, device):
    """Set the ``BEL`` of the multipliers of ``netlist``'s one grid of tasks, or of its
    anchors where its PEs multiply in logic (rewriting the file); returns ``(rows, cols)`` of
    the grid pinned, or ``None`` when nothing was."""
    path = os.path.join(workdir, netlist)
    with open(path) as f:
        design = json.load(f)
    top = next(m for m in design["modules"].values() if m.get("attributes", {}).get("top"))
    pinned = _pin_blocks(top["cells"], device) or _pin_anchors(top["cells"], device)
    if pinned:
        with open(path, "w") as f:
            json.dump(design, f)
    return pinned


def _pin_blocks(cells, device):
    """The multipliers of the netlist's one grid on DSP sites: its ``(rows, cols)``, or None."""
    found = grids(cells) if device in DSP_SITES else {}
    if len(found) != 1:
        return None
    blocks = next(iter(found.values()))
    unit = {u: k for k, u in enumerate(sorted({u for _, _, u in blocks}))}  # mul1.. -> 0..
    blocks = {(r, c, unit[u]): name for (r, c, u), name in blocks.items()}
    rows, cols, units = (1 + max(k[i] for k in blocks) for i in range(3))
    if len(blocks) != rows * cols * units:               # not a full grid
        return None
    sites = DSP_SITES[device]
    places = layout(rows, cols, units, len(sites), len(sites[0]))
    if places is None:
        return None
    for key, name in blocks.items():
        dsp_row, site = places[key]
        cells[name]["attributes"]["BEL"] = sites[dsp_row][site]
    return rows, cols


def _pin_anchors(cells, device):
    """The anchors of the netlist's one grid of PEs that multiply in logic (and no DSP block)
    on logic sites: its ``(rows, cols)``, or None (a grid's first PE may have none: it leads
    the control lines)."""
    types = {c.get("type") for c in cells.values()}
    in_logic = any(_IN_LOGIC.search(name) for name in cells)
    found = anchors(cells) if device in LOGIC_SITES and in_logic and \
        "MULT18X18D" not in types else {}
    if len(found) != 1:
        return None
    pes = next(iter(found.values()))
    rows, cols = (1 + max(k[i] for k in pes) for i in range(2))
    if len(pes) < rows * cols - 1:
        return None
    luts = sum({"LUT4": 1, "CCU2C": 2}.get(c.get("type"), 0) for c in cells.values())
    ffs = sum(c.get("type") == "TRELLIS_FF" for c in cells.values())
    # a logic tile holds 8 LUTs and 8 flip-flops
    places = anchor_layout(rows, cols, max(luts, ffs) / (rows * cols) / 8, LOGIC_SITES[device])
    if places is None:
        return None
    for key, name in pes.items():
        cells[name]["attributes"]["BEL"] = "X{}/Y{}/SLICEA.FF0".format(*places[key])
    return rows, cols

