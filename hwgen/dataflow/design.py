"""A dataflow design point: which loop each PE-array axis runs, the innermost time loop, skews.

hwgen generates the *projection* family of space-time maps with block tiling::

    x = a,  y = b,  t1 = c + sx*a + sy*b,  t2.. = the other loops (outer time loops)

PE ``x`` runs a contiguous block of loop ``a`` (``a = x * block + a_tile``), so a tensor indexed
by ``a`` is an ordinary sharded layout ``S(axis)``; when ``a`` is larger than the array, its
tile loop joins the time loops. Skew ``sx = 1`` puts the axis in ``t1`` (neighbours one step
apart: systolic), ``sx = 0`` keeps it out (the whole row at once: multicast).

Every tensor's reuse follows from which of ``a``, ``b``, ``c`` it does not depend on:
lacking ``a`` it moves along x (``(1, 0 | sx)``), lacking ``b`` along y, lacking ``c`` it stays
(``(0, 0 | 1)``). ``entries`` classifies each tensor from the null space of ``A·T⁻¹`` on the
tiled loop nest (first principles), ``built`` from what the generator builds; ``missed`` lists
reuse the map offers that the hardware does not exploit (it reloads those values: correct, but
more reads).
``unrealisable`` says why a point cannot be built at all (an output would need an adder tree,
partial sums would need an accumulator buffer, ...).
"""
from dataclasses import dataclass
from functools import cached_property

from ..errors import HwgenError
from .entries import classify, match
from .expr import Access, Expr
from .spacetime import SpaceTime

AXES = ("x", "y")


def paddable(expr, loop):
    """Whether every tensor dimension ``loop`` indexes is exactly it (``A[i,k]``, not
    ``I[p+r]``): a loop the host can pad with zeros (``mapping.tiling``)."""
    col = expr.loops.index(loop)
    return all(row[col] == 0 or (row[col] == 1 and off == 0 and sum(map(abs, row)) == 1)
               for a in expr.accesses for row, off in zip(a.matrix, a.offset))


def lacks(expr, access, loop):
    """Whether ``access`` of ``expr`` does not depend on ``loop``."""
    col = expr.loops.index(loop)
    return all(row[col] == 0 for row in access.matrix)


@dataclass(frozen=True)
class Part:
    """One loop of the tiled nest: the spatial part of a loop (``axis`` set, ``trip`` PEs) or a
    time loop (the loop itself, or the tiles of a spatial loop: ``tile``)."""
    loop: str
    trip: int
    axis: int = None
    tile: bool = False

    @property
    def name(self):
        if self.axis is not None:
            return f"{self.loop}.{AXES[self.axis]}"
        return f"{self.loop}.t" if self.tile else self.loop


@dataclass(frozen=True, eq=False)
class Design:
    """One point of the design space.

    Parameters
    ----------
    expr : Expr
    sizes : dict
        Loop name -> trip count.
    array : tuple of int
        PEs along each axis: ``(X,)`` or ``(X, Y)``.
    space : tuple of str
        The loop each axis runs.
    inner : str
        The loop whose time part is ``t1``, the innermost time loop (a spatial loop's tiles).
    skew : tuple of int
        Per axis, 1 if the axis's loop enters ``t1`` (systolic), 0 if not (multicast).
    """
    expr: Expr
    sizes: dict
    array: tuple
    space: tuple
    inner: str
    skew: tuple

    def __post_init__(self):
        e, sizes = self.expr, self.sizes
        if len(self.array) not in (1, 2) or len(self.space) != len(self.array) or \
                len(self.skew) != len(self.array):
            raise HwgenError("a design point has one loop, one size and one skew per array axis "
                             "(1 or 2 axes)")
        for loop in self.space + (self.inner,):
            if loop not in e.loops:
                raise HwgenError(f"'{loop}' is not a loop of {e.text} ({', '.join(e.loops)})")
        if len(set(self.space)) != len(self.space):
            raise HwgenError(f"each array axis needs its own loop, got {', '.join(self.space)}")
        for axis, (loop, pes) in enumerate(zip(self.space, self.array)):
            if pes < 2 or sizes[loop] < 2:
                raise HwgenError(f"axis {AXES[axis]} runs loop {loop} of size {sizes[loop]} on "
                                 f"{pes} PEs: an array axis needs at least 2 of both")
        if self.skew_of(self.inner) is not None and self.block(self.inner) == 1:
            raise HwgenError(f"loop {self.inner} fits the array: it has no time part to be t1")

    # -- the tiled loop nest ---------------------------------------------------------------

    def pes(self, axis):
        """PEs used along ``axis`` (the array's size, or the loop's if smaller)."""
        return min(self.array[axis], self.sizes[self.space[axis]])

    def skew_of(self, loop):
        return self.skew[self.space.index(loop)] if loop in self.space else None

    def block(self, loop):
        """Iterations of ``loop`` each PE runs (1 for a loop not on an axis: all of them)."""
        if loop not in self.space:
            return self.sizes[loop]
        return -(-self.sizes[loop] // self.pes(self.space.index(loop)))

    @cached_property
    def padded(self):
        """This point with each spatial loop rounded up to a multiple of its PEs (the design
        ``pipeline.load_point`` builds for one that does not divide)."""
        if self.exact:
            return self
        sizes = dict(self.sizes, **{l: self.block(l) * self.pes(a)
                                    for a, l in enumerate(self.space)})
        return Design(self.expr, sizes, self.array, self.space, self.inner, self.skew)

    @property
    def exact(self):
        """Every spatial loop divides evenly over its PEs (required to generate hardware)."""
        return all(self.sizes[l] % self.pes(a) == 0 for a, l in enumerate(self.space))

    @property
    def reductions(self):
        """Loops the output does not depend on (summed over)."""
        used = {l for row in self.expr.output.matrix for l, c in zip(self.expr.loops, row) if c}
        return tuple(l for l in self.expr.loops if l not in used)

    @cached_property
    def nest(self):
        """The time loops outer to inner: loops the output keeps, then reductions, ``inner``
        last. A spatial loop contributes its tiles when it does not fit the array."""
        parts = []
        for loop in self.expr.loops:
            if loop in self.space:
                if self.block(loop) > 1:
                    parts.append(Part(loop, self.block(loop), tile=True))
            else:
                parts.append(Part(loop, self.sizes[loop]))
        red = set(self.reductions)
        order = sorted(parts, key=lambda p: (p.loop == self.inner, p.loop in red))
        return tuple(order)

    @property
    def iterations(self):
        """Time steps of one problem: the product of the time loops."""
        n = 1
        for p in self.nest:
            n *= p.trip
        return n

    @property
    def spatial(self):
        return tuple(Part(l, self.pes(a), axis=a) for a, l in enumerate(self.space))

    def depth(self, loop):
        """Depth of ``loop``'s time part in the nest, or None."""
        for d, p in enumerate(self.nest):
            if p.loop == loop:
                return d
        return None

    @property
    def reduction_depth(self):
        """Depth of the outermost time loop that sums into the output, or None."""
        red = set(self.reductions)
        depths = [d for d, p in enumerate(self.nest) if p.loop in red]
        return min(depths) if depths else None

    def lacks(self, access, loop):
        """Whether ``access`` does not depend on ``loop``."""
        return lacks(self.expr, access, loop)

    def flow(self, access):
        """The axis an input flows along from neighbour to neighbour (systolic: it does not
        depend on the axis's loop and the axis is in t1), or None: every PE reads it."""
        return next((ax for ax, l in enumerate(self.space)
                     if self.lacks(access, l) and self.skew[ax]), None)

    @cached_property
    def chain(self):
        """The axis the output's partial sums move along (it does not depend on that axis's
        loop), or None: each PE owns its output elements."""
        return next((ax for ax, l in enumerate(self.space)
                     if self.lacks(self.expr.output, l)), None)

    # -- space-time map and entries --------------------------------------------------------

    def spacetime_text(self):
        """The map in the user's notation over the original loops, e.g. ``x=j, y=i, t1=i+j+k``
        (a spatial loop in t1 stands for its tiles when it is also ``inner``)."""
        rows = [f"{AXES[a]}={l}" for a, l in enumerate(self.space)]
        t1 = [self.inner] + [l for l, s in zip(self.space, self.skew) if s and l != self.inner]
        return ", ".join(rows + ["t1=" + "+".join(sorted(t1, key=self.expr.loops.index))])

    def __str__(self):
        size = "x".join(map(str, self.array))
        return f"{self.spacetime_text()} on {size}"

    @cached_property
    def tiled(self):
        """``(Expr, SpaceTime)`` over the tiled nest: spatial parts, then time loops."""
        parts = self.spatial + self.nest
        names = tuple(p.name for p in parts)
        col = {l: i for i, l in enumerate(self.expr.loops)}

        def tile_access(a):
            rows = []
            for row in a.matrix:
                rows.append(tuple(row[col[p.loop]] * (self.block(p.loop) if p.axis is not None
                                                     and self.block(p.loop) > 1 else 1)
                                  for p in parts))
            return Access(a.tensor, tuple(rows), a.offset, a.text)

        expr = Expr(names, tile_access(self.expr.output),
                    tuple(tile_access(a) for a in self.expr.inputs), self.expr.text)
        n, space = len(parts), len(self.space)
        t_inner = space + len(self.nest) - 1
        rows = []
        for a in range(space):
            rows.append(tuple(int(i == a) for i in range(n)))
        rows.append(tuple(int(i == t_inner) + (self.skew[i] if i < space else 0)
                          for i in range(n)))
        for d in reversed(range(len(self.nest) - 1)):
            rows.append(tuple(int(i == space + d) for i in range(n)))
        return expr, SpaceTime(tuple(rows), names, space)

    @cached_property
    def entries(self):
        """Tensor -> ``AccessEntry`` from the null space of ``A·T⁻¹`` over the tiled nest."""
        expr, st = self.tiled
        return {a.tensor: classify(a, st) for a in expr.accesses}

    @cached_property
    def built(self):
        """Tensor -> the ``AccessEntry`` of the reuse the generator builds."""
        space = len(self.space)
        out = {}
        for a in self.expr.accesses:
            vectors = []
            for axis, loop in enumerate(self.space):
                if self.lacks(a, loop):
                    v = [0] * space + [self.skew[axis]]
                    v[axis] = 1
                    vectors.append(tuple(v))
            if self.lacks(a, self.inner):
                vectors.append(tuple([0] * space + [1]))
            out[a.tensor] = match(vectors, space, a.tensor)
        return out

    @cached_property
    def unrealisable(self):
        """Why hwgen cannot generate this point, or None."""
        out = self.expr.output
        lacking = [a for a, l in enumerate(self.space) if self.lacks(out, l)]
        if len(lacking) > 1:
            return "the output is reduced along both axes (needs a 2-D reduction network)"
        if any(self.skew[a] == 0 for a in lacking):
            return (f"the output is reduced along {AXES[lacking[0]]} in one step (needs an adder "
                    "tree; the systolic variant is generated)")
        red = set(self.reductions)
        if self.inner not in red and any(p.loop in red for p in self.nest):
            return (f"t1 runs {self.inner}, which the output keeps, while partial sums over "
                    f"{', '.join(p.loop for p in self.nest if p.loop in red)} come in other "
                    "time steps (needs an accumulator buffer)")
        for a in self.expr.inputs:
            if sum(self.lacks(a, l) and s for l, s in zip(self.space, self.skew)) > 1:
                return f"{a.tensor} would be systolic along both axes (not one of the 14 entries)"
        return None

    @cached_property
    def missed(self):
        """Tensor -> the entry of the reuse the map offers but the generator does not exploit
        (it loads those values again instead), e.g. a sliding window or neighbouring tiles."""
        return {name: entry for name, entry in self.entries.items()
                if entry.basis != self.built[name].basis}
