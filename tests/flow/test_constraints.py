"""The constraint files: board pins equal amaranth-boards' resources, device sites agree with the
capacity, bad names and malformed files are clear errors, and the tables the flow reads are the
values they were before the files."""
import dataclasses
import os

import pytest
from amaranth_boards.icebreaker import ICEBreakerPlatform
from amaranth_boards.ulx3s import ULX3S_85F_Platform

from hwgen.errors import HwgenError
from hwgen.flow import board, constraints, fit, floorplan, pnr
from hwgen.flow.board import BoardTop, _platform_files
from hwgen.mapping.fusion import DEVICE_BRAMS


def _names(ios, sub=None):
    """The pin names of a resource's ``ios`` (of its subsignal ``sub``)."""
    if sub is not None:
        ios = next(s.ios for s in ios if getattr(s, "name", None) == sub)
    return [n for io in ios for n in io.names]


@pytest.mark.parametrize("name", constraints.boards())
def test_board_pins_are_amaranth_boards_resources(name):
    spec = constraints.board(name)
    platform = spec.platform()
    assert _names(platform.lookup(platform.default_clk, 0).ios) == [spec.clock_pin]
    assert platform.default_clk_frequency == spec.clock_hz
    assert _names(platform.lookup("button", 0).ios) == [spec.button]
    uart = platform.lookup("uart", 0).ios
    assert (_names(uart, "rx"), _names(uart, "tx")) == ([spec.uart_rx], [spec.uart_tx])
    assert [_names(platform.lookup("led", k).ios)[0] for k in range(len(spec.leds))] == \
        list(spec.leds)
    constraints.check_platform(spec, platform)


def test_a_moved_pin_is_named():
    spec = constraints.board("ulx3s-85f")
    moved = dataclasses.replace(spec, uart_rx="N2")
    with pytest.raises(HwgenError, match=r"ulx3s-85f.toml puts uart 0 rx on pin N2 but "
                       r"amaranth-boards' ULX3S_85F_Platform has it on M1"):
        constraints.check_platform(moved, spec.platform())
    with pytest.raises(HwgenError, match="led 2 on pin A1 .* has it on C1"):
        constraints.check_platform(dataclasses.replace(spec, leds=("B2", "C2", "A1")),
                                   spec.platform())
    with pytest.raises(HwgenError, match="oscillator 24 MHz .* has 25 MHz"):
        constraints.check_platform(dataclasses.replace(spec, clock_hz=24_000_000),
                                   spec.platform())


def test_the_flow_checks_the_pins_when_it_builds(tmp_path, monkeypatch):
    moved = dataclasses.replace(constraints.board("icebreaker"), button="11")
    monkeypatch.setattr(constraints, "board", lambda name: moved)
    top = BoardTop("icebreaker", None, 12_000_000)      # the check comes before the core
    with pytest.raises(HwgenError, match="puts button 0 on pin 11 but .* has it on 10"):
        _platform_files(top, board.BOARDS["icebreaker"], str(tmp_path))


@pytest.mark.parametrize("name", constraints.devices())
def test_device_sites_agree_with_the_capacity(name):
    d = constraints.device(name)
    sites = [s for row in d.dsp_sites for s in row]
    assert len(set(sites)) == len(sites)
    assert len(sites) in (0, d.dsp)
    assert DEVICE_BRAMS[name] == d.brams        # mapping's budget (mapping cannot import flow)


def test_ecp5_has_156_dsp_sites_in_three_rows():
    d = constraints.device("ecp5-85k")
    assert d.dsp == 156 and [len(row) for row in d.dsp_sites] == [52, 52, 52]
    assert d.dsp_sites[0][:5] == ("X4/Y10/MULT18_0", "X5/Y10/MULT18_1", "X8/Y10/MULT18_4",
                                  "X9/Y10/MULT18_5", "X13/Y10/MULT18_0")
    assert d.dsp_sites[2][-1] == "X119/Y58/MULT18_5"
    assert constraints.device("ice40-up5k").dsp_sites == ()


def test_unknown_names_name_the_choices():
    with pytest.raises(HwgenError, match="unknown DEVICE 'xc7a35t'; use one of ecp5-85k, "
                       "ice40-up5k$"):
        constraints.device("xc7a35t")
    with pytest.raises(HwgenError, match="unknown BOARD 'arty'; use one of ulx3s-85f, "
                       "icebreaker$"):
        constraints.board("arty")


def _real(kind, name):
    with open(os.path.join(constraints.CONSTRAINTS_DIR, kind, f"{name}.toml")) as f:
        return f.read()


DEVICE_FAULTS = [
    ("dsp = 156", "dsp = [156", r"not valid TOML"),
    ("dsp = 156\n", "", r"key 'capacity\.dsp' is missing"),
    ("pins = 365", "pins = '365'", r"key 'capacity\.pins' must be an integer, got '365'"),
    ("rows_y", "row_y", r"unknown key 'dsp_sites\.row_y'"),
]
BOARD_FAULTS = [
    ("ULX3S_85F_Platform", "ULX3S_86F_Platform", r"key 'platform': no class"),
    ('device = "ecp5-85k"', 'device = "ecp5-25k"', r"key 'device': unknown DEVICE 'ecp5-25k'"),
    ("[[60, 3_000_000], [45, 3_000_000]]", "[[60, 3_000_000], [45]]",
     r"key 'clocks' must be a list of \[integer, integer\]"),
    ('uart_tx = "L4"\n', "", r"key 'pins\.uart_tx' is missing"),
    ('[oscillator]', 'oscillator = 25\n[oscillatorx]', r"unknown key 'oscillatorx'"),
    ('[oscillator]                                    # the platform\'s default clock, clk25\n'
     'pin = "G2"\nmhz = 25\n', "oscillator = 25\n", r"key 'oscillator' must be a table"),
]


@pytest.mark.parametrize("kind,name,old,new,message",
                         [("devices", "ecp5-85k", *f) for f in DEVICE_FAULTS] +
                         [("boards", "ulx3s-85f", *f) for f in BOARD_FAULTS])
def test_a_malformed_file_names_the_file_and_key(tmp_path, kind, name, old, new, message):
    path = tmp_path / f"{name}.toml"
    text = _real(kind, name)
    assert old in text
    path.write_text(text.replace(old, new, 1))
    load = constraints.load_device if kind == "devices" else constraints.load_board
    with pytest.raises(HwgenError, match=f"^{path}: .*{message}"):
        load(str(path))


# The tables as they were written in the modules before the constraint files.
DEVICES = {"ecp5-85k": {"family": "ecp5", "args": ["--85k", "--package", "CABGA381"]},
           "ice40-up5k": {"family": "ice40", "args": ["--up5k", "--package", "sg48"]}}
CAPACITY = {"ecp5-85k": {"DSP": 156, "LUT": 83640, "BRAM bits": 208 * 18432, "pins": 365},
            "ice40-up5k": {"DSP": 8, "LUT": 5280, "BRAM bits": 30 * 4096, "pins": 39}}
DSP_SITES = {"ecp5-85k": [[f"X{x + dx}/Y{y}/MULT18_{n}"
                           for x in (4, 13, 22, 31, 40, 49, 58, 69, 78, 87, 96, 105, 114)
                           for dx, n in ((0, 0), (1, 1), (4, 4), (5, 5))] for y in (10, 34, 58)]}
MHZ = 1_000_000
BOARDS = {
    "ulx3s-85f": {"platform": ULX3S_85F_Platform, "device": "ecp5-85k", "family": "ecp5",
                  "leds": 8, "ext": "bit", "pack": ["yowasp-ecppack", "--compress"],
                  "clocks": [(60 * MHZ, 3_000_000), (45 * MHZ, 3_000_000)]},
    "icebreaker": {"platform": ICEBreakerPlatform, "device": "ice40-up5k", "family": "ice40",
                   "leds": 2, "ext": "bin", "pack": ["yowasp-icepack"],
                   "clocks": [(24 * MHZ, 3_000_000), (12 * MHZ, 1_000_000)]},
}


def test_the_tables_are_what_they_were():
    for table, reference in ((pnr.DEVICES, DEVICES), (fit.CAPACITY, CAPACITY),
                             (floorplan.DSP_SITES, DSP_SITES), (board.BOARDS, BOARDS)):
        assert table == reference and list(table) == list(reference)
    assert repr(board.BOARDS) == repr(BOARDS)           # tuples stay tuples, lists lists
    assert all(pnr.device_info(d) == DEVICES[d] for d in DEVICES)
    assert all(board.board_spec(b) == BOARDS[b] for b in BOARDS)
    assert DEVICE_BRAMS == {"ecp5-85k": 208, "ice40-up5k": 30}
