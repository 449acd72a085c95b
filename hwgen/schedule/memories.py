"""Which ECP5 primitive a buffer memory becomes: Yosys's ``memory_libmap`` cost rules with the
Lattice libraries, written down once so that the resource model (``dataflow.resources``) counts
what the hardware (``rtl.block_ram``) builds."""

# DP16KD's configurations (data bits, entries); PDPW16KD adds 36 x 512 with separate read and
# write port groups.
DP16KD_SHAPES = ((1, 16384), (2, 8192), (4, 4096), (9, 2048), (18, 1024))
PDPW16KD_SHAPE = (36, 512)
# A block in pseudo-dual-port mode written 36 bits wide and read 9 bits wide: four elements of
# at most 9 bits per block, a read returning one of them (``rtl.block_ram``). A word of one
# element is read 36 bits wide.
NARROW_ELEMENTS = 4


def memory_kind(entries, width, reads):
    """How a memory with one write port and ``reads`` read ports maps: ``(kind, cells, rows)``
    with kind ``"lutram"`` (cells: TRELLIS_DPR16X4), ``"bram"`` (DP16KD), ``"bram36"``
    (PDPW16KD) or ``"ff"`` (registers), and ``rows`` the cells one read port muxes between."""
    reads = max(1, reads)
    best = (entries * width * 1.0, "ff", 0, entries)         # soft logic: 1 per bit
    rows = -(-entries // 16)                                 # DPR16X4: 16 x 4, async read
    cells = rows * -(-width // 4) * reads
    c = 4 * cells + (rows - 1) * width * reads / 2 + (rows / 2 if rows > 1 else 0) + 2 * reads
    if c < best[0]:
        best = (c, "lutram", cells, rows)
    for bits, depth in DP16KD_SHAPES + (PDPW16KD_SHAPE,):
        # A PDPW16KD read that must not see the same cycle's write is emulated (write delayed,
        # bypass).
        rows = -(-entries // depth)
        cells = rows * -(-width // bits) * reads
        emu = 2 * (3 + 4 * reads) if bits == 36 else 2 * 4 * reads
        c = 128 * cells + (rows - 1) * width * reads / 2 + (rows / 2 if rows > 1 else 0) + emu
        if c < best[0]:
            best = (c, "bram" if bits < 36 else "bram36", cells, rows)
    return best[1:]


def dp16kd_columns(bits, width, element=None):
    """Blocks side by side, ``bits`` wide each, that hold a word of ``width`` bits made of
    ``element``-bit elements (default: one element), each element whole in its block (or, wider
    than a block, in blocks of its own): a read picks an element from one block. At 36 bits,
    `NARROW_ELEMENTS` per block, each in a 9-bit slot."""
    element = element or width
    if narrow_read(bits, width, element):
        return -(-(width // element) // NARROW_ELEMENTS)
    if element > bits:
        return (width // element) * -(-element // bits)
    return -(-(width // element) // (bits // element))


def narrow_read(bits, width, element=None):
    """Whether blocks ``bits`` wide holding words of ``width`` bits, ``element``-bit elements,
    are read an element at a time (9 bits) rather than whole."""
    return bits == PDPW16KD_SHAPE[0] and width // (element or width) > 1


def dp16kd_shape(entries, width, element=None, narrow=True):
    """The DP16KD configuration ``(bits, depth)`` that holds ``entries`` x ``width`` (words of
    ``element``-bit elements, `dp16kd_columns`) in the fewest blocks (ties: the fewer rows, so
    the fewer read muxes). Words of elements of at most 9 bits may be written 36 bits wide and
    read one element at a time (``PDPW16KD_SHAPE``, unless not ``narrow``): a bank of at most
    512 words of 16 int8 elements takes 4 blocks rather than 8. A word of one element may be
    written and read 36 bits wide: an int32 in one block rather than two."""
    shapes = DP16KD_SHAPES
    one = width // (element or width) == 1
    if one or (narrow and element and element <= 9):
        shapes += (PDPW16KD_SHAPE,)
    return min(shapes, key=lambda s: (-(-entries // s[1]) * dp16kd_columns(s[0], width, element),
                                      -(-entries // s[1])))


# A buffer's memory (an input's bank, an output's bank or row of banks) goes into explicit
# DP16KD blocks (``rtl.block_ram``; a copy per read port, as Yosys copies a memory per read)
# where Yosys would choose a block RAM itself (with the block's output register unused, and for
# a PDPW16KD an emulated read-before-write the buffer never needs, with registers and a
# bypass after the block's long clock-to-output), and an input's also
# where LUT-RAM would take at least this many TRELLIS_DPR16X4 cells (six LUTs each) per block,
# so that an operand does not fill the PEs' fabric with LUT-RAM while block RAMs stand idle.
# (An output's LUT-RAM stays: its blocks would shrink the tiles a block budget fits,
# ``mapping.tiling``.)
CELLS_PER_BLOCK = 8


def buffer_memory(entries, width, reads, element=None, output=False):
    """``memory_kind`` for a buffer's memory on ECP5 (an ``output``'s, or an input's), or
    ``("dp16kd", blocks, rows)`` when ``rtl.block_ram.DP16KDMemory`` builds it (the read's
    registers are the block's; its words are ``element``-bit elements, `dp16kd_columns`)."""
    kind, cells, rows = memory_kind(entries, width, reads)
    if kind == "ff":
        return kind, cells, rows
    def blocks(narrow):
        bits, depth = dp16kd_shape(entries, width, element, narrow)
        rows = -(-entries // depth)
        return rows * dp16kd_columns(bits, width, element) * max(1, reads), rows

    # Block RAM or LUT-RAM is chosen on the blocks of words read whole: reading one element per
    # block (fewer blocks) changes how a memory is built, not where.
    if kind != "lutram" or (not output and cells >= CELLS_PER_BLOCK * blocks(False)[0]):
        return ("dp16kd", *blocks(True))
    return kind, cells, rows


def block_rams(entries, width):
    """Block RAMs a memory of ``entries`` x ``width`` with one read port takes (0 where
    ``memory_kind`` would rather build it from LUT RAM or registers)."""
    kind, cells, _ = memory_kind(entries, width, 1)
    return cells if kind.startswith("bram") else 0
