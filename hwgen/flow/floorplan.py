"""An array's multipliers pinned to the DSP rows in the array's own shape, before nextpnr places.

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
"""
import json
import os
import re

from . import constraints

# The MULT18X18D sites by DSP row (nextpnr 0.11 names) of each device whose file lists them
# (``constraints/devices/<device>.toml``, ``[dsp_sites]``: ECP5-85k's three rows of 52).
DSP_SITES = {d.name: [list(row) for row in d.dsp_sites]
             for d in map(constraints.device, constraints.devices()) if d.dsp_sites}

# A multiplier of a task on a grid: ``<scope.>task_<i>[_<j>].mul<n>``.
_GRID_MULTIPLIER = re.compile(r"^(?P<task>.*?)(?P<index>(?:_\d+){1,2})\.mul(?P<unit>\d+)$")


def grids(cells):
    """The netlist's MULT18X18D cells by grid of tasks: ``{task: {(row, col, unit): cell}}``
    (a one-dimensional grid is one row)."""
    found = {}
    for name, cell in cells.items():
        m = _GRID_MULTIPLIER.match(name)
        if cell.get("type") == "MULT18X18D" and m:
            index = [int(i) for i in m["index"].split("_")[1:]]
            row, col = index if len(index) == 2 else (0, index[0])
            found.setdefault(m["task"], {})[(row, col, int(m["unit"]))] = name
    return found


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


def pin_multipliers(workdir, netlist, device):
    """Set the ``BEL`` of the multipliers of ``netlist``'s one grid of tasks (rewriting the
    file); returns ``(rows, cols)`` of the grid pinned, or ``None`` when nothing was."""
    if device not in DSP_SITES:
        return None
    path = os.path.join(workdir, netlist)
    with open(path) as f:
        design = json.load(f)
    top = next(m for m in design["modules"].values() if m.get("attributes", {}).get("top"))
    found = grids(top["cells"])
    if len(found) != 1:
        return None
    cells = next(iter(found.values()))
    unit = {u: k for k, u in enumerate(sorted({u for _, _, u in cells}))}   # mul1.. -> 0..
    cells = {(r, c, unit[u]): name for (r, c, u), name in cells.items()}
    rows, cols, units = (1 + max(k[i] for k in cells) for i in range(3))
    if len(cells) != rows * cols * units:                # not a full grid
        return None
    sites = DSP_SITES[device]
    places = layout(rows, cols, units, len(sites), len(sites[0]))
    if places is None:
        return None
    for key, name in cells.items():
        dsp_row, site = places[key]
        top["cells"][name]["attributes"]["BEL"] = sites[dsp_row][site]
    with open(path, "w") as f:
        json.dump(design, f)
    return rows, cols

