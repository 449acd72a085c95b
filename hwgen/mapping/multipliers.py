"""DSP blocks or logic: which task instances' multiplies get a DSP block each and which are
built in the fabric (``rtl.multiply``'s ``fabric``), and the LUTs a multiply in logic takes.

The instances take DSP blocks in the graph's order while the budget lasts; the rest build their
multiplies in logic (``Graph.fabric``). `fabric_luts` counts the LUT4s of one such multiply as
``rtl.multiply`` builds it on ECP5 and nextpnr packs it: carry chains of one LUT per bit, the
first level adding rows two by two, the next levels adding those pairwise, each chain cut at the
product's width, and two CCU2C more per chain (nextpnr's packer starts every chain with a
feed-in cell and ends it with a feed-out cell). tests/mapping/test_multipliers.py holds the
count to Yosys's netlist.
"""
from ..ir.graph import stmt_exprs
from ..ir.preds import trips_under
from ..ir.ranges import StreamRanges, bits_needed
from ..schedule.levels import is_runtime_product, multipliers


def operand_bits(graph):
    """Instance name -> the operands of each of its multiplies of two run-time values, each
    ``(bits, signed)``, from the ranges of the values they multiply."""
    ranges, widths = StreamRanges(graph, per_restart=False), {}
    for inst in graph.instances.values():
        of = ranges.of(inst)
        for seg in inst.segments:
            for stmt in seg.body:
                trips = trips_under(stmt.pred, seg.trips)
                for e in stmt_exprs(stmt):
                    if is_runtime_product(e):
                        pair = [of.expr(v, trips) for v in (e.lhs, e.rhs)]
                        widths.setdefault(inst.name, []).append(tuple(map(_bits, pair)))
    return widths


def _bits(r):
    """``(bits, signed)`` of a value in the range ``r`` (None: unknown, 32 bits)."""
    if r is None:
        return 32, True
    return (r[1].bit_length(), False) if r[0] >= 0 else (bits_needed(r), True)


def fabric_luts(x, y):
    """LUT4s of a multiply in logic of operands ``(bits, signed)`` (``rtl.multiply._fabric``:
    a row per bit of the narrower operand)."""
    (x, _), (y, y_signed) = sorted((x, y), reverse=True)
    width = x + y

    def chain(bits):
        return bits + bits % 2 + 4      # CCU2C cells of two bits each, and the feed cells

    terms, luts = [], 0
    for i in range(0, y, 2):
        rows = min(2, y - i)                # two rows a chain; the sign row alone, negated
        if rows == 1 and not y_signed:      # an odd row alone: its register's synchronous
            terms.append((x, i))            # reset clears it (one LUT for the reset)
            luts += 1
            continue
        bits = min(x + rows, width - i)
        terms.append((bits, i))
        luts += chain(bits)
    while len(terms) > 1:
        level = []
        for k in range(0, len(terms) - 1, 2):
            (v, at), (w, up) = terms[k], terms[k + 1]
            low = up - at
            bits = min(max(max(v - low, 1), w) + 1, width - up)
            luts += chain(bits)
            level.append((min(low + bits, width - at), at))
        terms = level + terms[len(terms) - len(terms) % 2:]
    return luts


def assign(graph, dsps):
    """``graph`` with the instances whose multiplies do not fit the first ``dsps`` DSP blocks
    (in instance order) built in logic (``fabric``)."""
    used, fabric = 0, []
    for inst in graph.instances.values():
        n = multipliers(inst)
        if used + n <= dsps:
            used += n
        else:
            fabric.append(inst.name)
    return graph.with_(fabric=frozenset(fabric))
