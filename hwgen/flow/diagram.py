"""A picture of a task graph: task instances on their grids, streams, tensors and their layouts.

Everything is laid out in inches (one data unit is one inch), so fonts and arrow heads keep their
size whatever the grid: a big grid gets smaller cells, and what no longer fits is left out (a
box's name, then its grid position) or summed up (a stream's label goes to its frame's caption).
Only matplotlib's ``Figure`` is used, never ``pyplot``: no display, no global figure state.
"""
import functools
import os
from collections import Counter, defaultdict

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle
from matplotlib.path import Path
from matplotlib.textpath import text_to_path

from ..errors import HwgenError
from ..ir.layout import tensor_accesses

FORMATS = ("svg", "png")
BOX = 0.66                                  # instance box side, as a fraction of its cell
FS_STREAM = 7.0
REG, FIFO, PLAIN, WIRE = "#1f5fbf", "#d95f02", "#444444", "#8a8a8a"
TINTS = ("#eef3fb", "#fbf1e8", "#eef7ee", "#f5eefa", "#fbf8e6")


@functools.lru_cache(maxsize=None)
def _width(text, size):
    """Width in inches of ``text`` at ``size`` points (the default font)."""
    props = FontProperties(size=size)
    return text_to_path.get_text_width_height_descent(text, props, ismath=False)[0] / 72


def _n(count, word):
    return f"{count} {word}{'' if count == 1 else 's'}"


def _colour(kind):
    return {"register": REG, "fifo": FIFO}.get(kind, PLAIN)


def _cell(inst):
    """Column and row of ``inst`` on its task's grid; axes past the second tile sideways."""
    pid, grid = inst.pid, inst.grid
    if len(pid) < 2:
        return float(pid[0]) if pid else 0.0, 0.0
    tile = 0
    for p, g in zip(pid[2:], grid[2:]):
        tile = tile * g + p
    return tile * (grid[1] + 0.5) + pid[1], float(pid[0])


def _control(p, q, rad):
    """The control point of matplotlib's ``arc3`` connection from ``p`` to ``q``."""
    return (p[0] + q[0]) / 2 + rad * (q[1] - p[1]), (p[1] + q[1]) / 2 - rad * (q[0] - p[0])


def _bezier(p, q, rad, t):
    """Points at parameters ``t`` on the ``arc3`` curve from ``p`` to ``q``, one row each."""
    t = np.asarray(t, float)[:, None]
    return (1 - t) ** 2 * np.array(p) + 2 * (1 - t) * t * np.array(_control(p, q, rad)) \
        + t ** 2 * np.array(q)


def _edge(p, towards, side):
    """Where the ray from the centre ``p`` of a box of ``side`` towards ``towards`` leaves it."""
    dx, dy = towards[0] - p[0], towards[1] - p[1]
    t = side / 2 / max(abs(dx), abs(dy), 1e-9)
    return p[0] + dx * t, p[1] + dy * t


def _caption(fam, chans, kinds, to):
    """One caption line summing up the streams ``chans`` of the stream array ``fam``."""
    kind = Counter(kinds[c.name] for c in chans)
    depths = sorted({c.depth for c in chans})
    d = f"d={depths[0]}" + (f"..{depths[-1]}" if len(depths) > 1 else "")
    what = ", ".join(_n(n, "register" if k == "register" else "FIFO")
                     for k, n in kind.items() if k) or _n(len(chans), "stream")
    return (f"{fam}: {chans[0].dtype.name} {d}, {what}" + (f" to {to}" if to else ""),
            _colour(next(iter(kind))) if len(kind) == 1 else PLAIN)


class _Frame:
    """One task's frame: its instances' cells, box size and font, captions and place."""

    def __init__(self, task, insts, cell, index):
        self.task, self.insts, self.tint = task, insts, TINTS[index % len(TINTS)]
        self.cells = {i.name: _cell(i) for i in insts}
        self.ncols = max(c for c, _ in self.cells.values()) + 1
        self.nrows = max(r for _, r in self.cells.values()) + 1
        grid = insts[0].grid
        self.title = f"{task}  mapping={list(grid)}" if grid else task
        longest = max((i.name for i in insts), key=len)
        if len(insts) <= 8:             # few boxes: make room for a readable name
            cell = max(cell, (_width(longest, 8) + 0.12) / BOX)
        self.cell, self.box, self.captions = cell, cell * BOX, []
        self.font, self.show = min(9.0, 0.88 * self.box / _width(longest, 1)), "name"
        if self.font < 5.5:             # then only the grid position, or nothing
            self.font = min(8.0, 0.88 * self.box / _width(",".join(["00"] * len(grid)), 1))
            self.show = "pid" if self.font >= 5 else None

    def size(self):
        content = max(self.ncols * self.cell, _width(self.title, 9),
                      *(_width(t, 7.5) for t, _ in self.captions))
        return content + 0.3, self.nrows * self.cell + 0.45 + 0.18 * len(self.captions)

    def place(self, x, y):
        """Put the frame's lower-left corner at ``(x, y)``; compute the instance centres."""
        self.x, self.y = x, y
        self.w, self.h = self.size()
        left, top = x + (self.w - self.ncols * self.cell) / 2, y + self.h - 0.36
        self.centre = {n: (left + (c + 0.5) * self.cell, top - (r + 0.5) * self.cell)
                       for n, (c, r) in self.cells.items()}


class _Diagram:
    """The layout (frames on shelves, tensor columns, routing lanes) and drawing of a graph."""

    def __init__(self, graph, kinds):
        self.graph, self.kinds = graph, kinds
        tasks = defaultdict(list)
        for inst in graph.instances.values():
            tasks[inst.task].append(inst)
        cols = [max(_cell(i)[0] for i in insts) + 1 for insts in tasks.values()]
        rows = [max(_cell(i)[1] for i in insts) + 1 for insts in tasks.values()]
        cell = min(1.1, max(0.42, 8.0 / max(cols + rows + [sum(cols) * (sum(cols) <= 12)])))
        self.frames = {t: _Frame(t, insts, cell, k) for k, (t, insts) in enumerate(tasks.items())}
        self.of = {i.name: self.frames[i.task] for i in graph.instances.values()}
        self._stream_labels()
        self._layout()

    def _stream_labels(self):
        """Streams labelled on their arrow; the others are summed up in their frame's caption."""
        chans, of = self.graph.channels.values(), self.of
        between = Counter((of[c.producer].task, of[c.consumer].task) for c in chans)
        self.labelled, summed = set(), defaultdict(list)
        for ch in chans:
            fp, fc = of[ch.producer], of[ch.consumer]
            (xp, yp), (xc, yc) = fp.cells[ch.producer], fc.cells[ch.consumer]
            room = (max(abs(xp - xc), abs(yp - yc)) - BOX) * fp.cell
            if (between[(fp.task, fc.task)] <= 3 if fp is not fc else
                    room >= _width(f"{ch.dtype.name} d={ch.depth}", FS_STREAM) + 0.1):
                self.labelled.add(ch.name)
            else:
                summed[(fp.task, ch.name.split("[")[0], fc.task)].append(ch)
        for (task, fam, to), group in summed.items():
            self.frames[task].captions.append(
                _caption(fam, group, self.kinds, to if to != task else None))

    def _layout(self):
        """Place frames, tensor columns and routing lanes (inches; y grows upwards)."""
        # Frames left to right in graph order, on a new shelf when the row gets too wide.
        sizes = {t: f.size() for t, f in self.frames.items()}
        hgap = 0.8 + max([_width(n.split("[")[0], FS_STREAM) for n in self.labelled] + [0.4])
        limit = max(max(w for w, _ in sizes.values()), 1.6 * max(h for _, h in sizes.values()), 9)
        self.shelves = [[]]
        for t, (w, _) in sizes.items():
            row = self.shelves[-1]
            if row and sum(sizes[r][0] + hgap for r in row) + w > limit:
                self.shelves.append(row := [])
            row.append(t)
        # Tensor-task lines: straight to a frame at its shelf's edge, else in a lane below it.
        access = defaultdict(dict)          # (tensor, task) -> instance names, in graph order
        for tname, inst, *_ in tensor_accesses(self.graph):
            access[(tname, inst.task)][inst.name] = None
        self.conns, lanes, notes = [], Counter(), Counter()
        for (tname, task), names in access.items():
            side = "in" if self.graph.tensors[tname].direction == "in" else "out"
            shelf = tuple(next(s for s in self.shelves if task in s))
            lane = None
            if shelf[0 if side == "in" else -1] != task:
                lane = (lanes[side], lanes[shelf])
                lanes.update((side, shelf))
            n, verb = len(self.frames[task].insts), "read" if side == "in" else "written"
            note = f"{verb} by {len(names)} of {n}" if len(names) < n else ""
            if note and lane is None:
                notes[side] = max(notes[side], _width(note, 6.5) + 0.3)
            self.conns.append((tname, task, side, list(names), lane, note))
        # Tensor columns left and right, routing gutters, then the shelves between them.
        ts = self.graph.tensors.values()
        self.tensors = {"in": [t for t in ts if t.direction == "in"],
                        "out": [t for t in ts if t.direction != "in"]}
        self.labels = {t.name: f"{t.name}: {t.type!r}" for t in ts}
        self.colw = {s: max([_width(self.labels[t.name], 8) + 0.24 for t in group] + [0])
                     for s, group in self.tensors.items()}
        gutter = {s: max(0.6 + 0.14 * lanes[s], notes[s]) if self.tensors[s] else 0
                  for s in ("in", "out")}
        y = 0.0
        for shelf in self.shelves:
            x = self.colw["in"] + gutter["in"]
            for t in shelf:
                self.frames[t].place(x, y - sizes[t][1])
                x += sizes[t][0] + hgap
            y -= max(sizes[t][1] for t in shelf) + 0.5 + 0.14 * lanes[tuple(shelf)]
        self.xr = max(f.x + f.w for f in self.frames.values()) + gutter["out"]
        self.bounds = [(0.0, y + 0.3), (self.xr + self.colw["out"], 0.0)]

    def draw_frames(self, ax):
        """Task frames with title and captions, and one box per instance at its grid place."""
        self.box, self.taken = {}, []      # instance boxes; texts that stream labels avoid
        for f in self.frames.values():
            ax.add_patch(FancyBboxPatch((f.x, f.y), f.w, f.h, fc=f.tint, ec="#7a8699", lw=1.0,
                                        boxstyle="round,pad=0,rounding_size=0.12", zorder=1))
            back = dict(boxstyle="square,pad=0.05", fc=f.tint, ec="none", alpha=0.8)
            ax.text(f.x + 0.12, f.y + f.h - 0.08, f.title, fontsize=9, weight="bold", va="top",
                    zorder=5, bbox=back)
            self.taken.append((f.x + 0.1, f.y + f.h - 0.26, f.x + 0.14 + _width(f.title, 9),
                               f.y + f.h - 0.06))
            for k, (text, colour) in enumerate(reversed(f.captions)):
                ax.text(f.x + 0.12, f.y + 0.1 + 0.18 * k, text, fontsize=7.5, color=colour,
                        va="bottom", zorder=5, bbox=back)
                self.taken.append((f.x + 0.1, f.y + 0.08 + 0.18 * k,
                                   f.x + 0.14 + _width(text, 7.5), f.y + 0.26 + 0.18 * k))
            for inst in f.insts:
                (cx, cy), half = f.centre[inst.name], f.box / 2
                self.box[inst.name] = (cx - half, cy - half, cx + half, cy + half)
                ax.add_patch(Rectangle((cx - half, cy - half), f.box, f.box, fc="white",
                                       ec="#33415c", lw=0.8, zorder=3))
                if f.show:
                    text = inst.name if f.show == "name" else ",".join(map(str, inst.pid))
                    ax.text(cx, cy, text, fontsize=f.font, ha="center", va="center", zorder=5)

    def _blocked(self, p, q, rad, ends):
        """Whether the arc from ``p`` to ``q`` crosses an instance box other than its ends."""
        r = np.array([b for n, b in self.box.items() if n not in ends] or [(0, 0, 0, 0)])
        x, y = np.hsplit(_bezier(p, q, rad, np.linspace(0.05, 0.95, 19)), 2)
        return bool(((x > r[:, 0]) & (x < r[:, 2]) & (y > r[:, 1]) & (y < r[:, 3])).any())

    def _label(self, ax, p, q, rad, text, colour, side):
        """Put ``text`` beside the arc, on its outer side (or ``side``, for a straight arrow
        shifted off the centre line), where it covers no box and no other text."""
        w, h = _width(max(text.split("\n"), key=len), FS_STREAM) + 0.06, 0.27
        ox, oy = np.subtract(_bezier(p, q, rad, [0.5])[0], np.add(p, q) / 2) if rad else side
        flat, up, right = abs(q[0] - p[0]) >= abs(q[1] - p[1]), oy >= 0, ox >= 0
        taken = np.array(list(self.box.values()) + self.taken)
        for t in (0.5, 0.35, 0.65, 0.2, 0.8):
            x, y = _bezier(p, q, rad, [t])[0]
            x0, y0 = (x - w / 2, y + 0.04 if up else y - 0.04 - h) if flat else \
                (x + 0.05 if right else x - 0.05 - w, y - h / 2)
            if not ((x0 < taken[:, 2]) & (x0 + w > taken[:, 0]) & (y0 < taken[:, 3])
                    & (y0 + h > taken[:, 1])).any():
                break
        self.taken.append((x0, y0, x0 + w, y0 + h))
        self.bounds += [(x0, y0), (x0 + w, y0 + h)]
        ax.text(x0 + w / 2, y0 + h / 2, text, fontsize=FS_STREAM, color=colour, zorder=6,
                ha="center", va="center", linespacing=1.1,
                bbox=dict(boxstyle="round,pad=0.05", fc="white", ec="none", alpha=0.8))

    def draw_streams(self, ax):
        """Arrows over the boxes: side by side when they share both ends, curved when a
        straight one would cross a box."""
        chans = self.graph.channels.values()
        pairs = defaultdict(list)
        for c in chans:
            pairs[frozenset((c.producer, c.consumer))].append(c.name)
        for ch in chans:
            fp, fc, kind = self.of[ch.producer], self.of[ch.consumer], self.kinds[ch.name]
            p, q = fp.centre[ch.producer], fc.centre[ch.consumer]
            key, shift = frozenset((ch.producer, ch.consumer)), (0, 0)
            if len(pairs[key]) > 1 and len(key) == 2:      # parallel, in a fixed order
                a, b = (self.of[n].centre[n] for n in sorted(key))
                n = np.array([a[1] - b[1], b[0] - a[0]]) / np.hypot(b[0] - a[0], b[1] - a[1])
                k = pairs[key].index(ch.name) - (len(pairs[key]) - 1) / 2
                shift = n * k * min(0.14, 0.8 * min(fp.box, fc.box) / len(pairs[key]))
                p, q = tuple(p + shift), tuple(q + shift)
            adjacent = fp is fc and max(abs(p[0] - q[0]), abs(p[1] - q[1])) <= fp.cell * 1.01
            rad = 0.0 if adjacent else next((r for r in (0.0, 0.25, -0.25, 0.45, -0.45, 0.7, -0.7)
                                             if not self._blocked(p, q, r, key)), 0.3)
            if ch.producer == ch.consumer:
                h, rad = fp.box / 2, 1.6
                ends = (p[0] + h, p[1] + h / 2), (p[0] + h / 2, p[1] + h)
            else:       # leave each box along the arc's tangent
                c = _control(p, q, rad)
                ends = _edge(p, c, fp.box), _edge(q, c, fc.box)
            ax.add_artist(FancyArrowPatch(
                *ends, shrinkA=1.5, shrinkB=1.5, arrowstyle="-|>", color=_colour(kind),
                connectionstyle=f"arc3,rad={rad}", mutation_scale=max(6.0, min(12.0, 11 * fp.cell)),
                lw=1.3 if fp.cell > 0.6 else 0.9, zorder=4, ls="--" if kind == "fifo" else "-"))
            self.bounds.append(tuple(_bezier(p, q, rad, [0.5])[0]))
            if ch.name in self.labelled:
                bound = f" ≤{ch.bound}" if ch.bound is not None else ""   # a closed stream
                self._label(ax, p, q, rad, f"{ch.name}\n{ch.dtype.name} d={ch.depth}{bound}",
                            _colour(kind), shift)

    def draw_tensors(self, ax):
        """Inputs on the left, outputs on the right, level with the instances that use them."""
        want, tbox = {}, {}
        for tname, task, side, names, lane, note in self.conns:
            f = self.frames[task]
            want.setdefault(tname, f.y if lane else np.mean([f.centre[n][1] for n in names]))
        for side, group in self.tensors.items():
            last, x, w = None, 0.0 if side == "in" else self.xr, self.colw[side] - 0.1
            for t in sorted(group, key=lambda t: -want.get(t.name, 0)):
                yt = want.get(t.name, 0.0)
                last = yt = yt if last is None else min(yt, last - 0.5)
                tbox[t.name] = x, yt, w
                self.bounds += [(x, yt - 0.2), (x + w, yt + 0.2)]
                ax.add_patch(FancyBboxPatch(
                    (x, yt - 0.16), w, 0.32, boxstyle="round,pad=0,rounding_size=0.06", zorder=3,
                    lw=1.0, ec="#6b6b4b", fc="#fff7d6" if side == "in" else "#e4f5e4"))
                ax.text(x + 0.07, yt, self.labels[t.name], fontsize=8, va="center", zorder=5)
        for tname, task, side, names, lane, note in self.conns:
            f, (x, yt, w) = self.frames[task], tbox[tname]
            fx, fy = np.mean([f.centre[n] for n in names], axis=0)
            fy = min(max(yt, f.y + 0.15), f.y + f.h - 0.15)     # level with the tensor if it can
            if lane is None:
                pts = [(x + w, yt), (f.x, fy)] if side == "in" else [(f.x + f.w, fy), (x, yt)]
            else:       # down the gutter, along a lane under the shelf, up into the frame
                gx = x + w + 0.3 + 0.14 * lane[0] if side == "in" else x - 0.3 - 0.14 * lane[0]
                shelf = next(s for s in self.shelves if task in s)
                low = min(self.frames[t].y for t in shelf) - 0.25 - 0.14 * lane[1]
                fx = min(max(fx + 0.14 * lane[1], f.x + 0.2), f.x + f.w - 0.2)
                pts = [(x + w, yt), (gx, yt), (gx, low), (fx, low), (fx, f.y)]
                pts = pts if side == "in" else [(fx, f.y), (fx, low), (gx, low), (gx, yt), (x, yt)]
            ax.add_artist(FancyArrowPatch(path=Path(pts), arrowstyle="-|>", mutation_scale=10,
                                          color=WIRE, lw=1.1, zorder=2))
            if note:        # on the segment next to the tensor, or along the lane
                k = (len(pts) - 2 if side == "in" else 0) if lane is None else 2 - (side == "out")
                (ux, uy), (vx, vy) = pts[k:k + 2]
                ax.text((ux + vx) / 2, (uy + vy) / 2 + 0.04, note, fontsize=6.5, color="#555555",
                        ha="center", va="bottom", zorder=5)


def _stream_kinds(graph, sched):
    """The schedule (``sched``, else computed, else None if that fails), the streams it lowers
    to registers, and each stream's kind: "register", "fifo", or None without a schedule."""
    if sched is None:
        from ..schedule import schedule
        try:
            sched = schedule(graph)
        except HwgenError:
            sched = None
    regs = {n for g in sched.groups for n in g.links} if sched else set()
    kinds = {n: ("register" if n in regs else "fifo") if sched else None for n in graph.channels}
    return sched, regs, kinds


def _fit(fig, ax, d):
    """Size the figure to the drawing (inches), plus a title and a legend strip; return its
    total height."""
    xs = [x for x, _ in d.bounds] + [f.x + f.w for f in d.frames.values()]
    ys = [y for _, y in d.bounds] + [f.y + f.h for f in d.frames.values()]
    xmin, xmax, ymin, ymax = min(xs) - 0.2, max(xs) + 0.2, min(ys) - 0.2, max(ys) + 0.3
    width, height, head, foot = max(xmax - xmin, 6.0), ymax - ymin, 0.7, 0.45
    total, pad = height + head + foot, (max(xmax - xmin, 6.0) - (xmax - xmin)) / 2
    fig.set_size_inches(width, total)
    ax.set_position((0, foot / total, 1, height / total))
    ax.set_xlim(xmin - pad, xmax + pad)
    ax.set_ylim(ymin, ymax)
    return total


def _annotate(fig, graph, sched, regs, kinds, total):
    """The title (name, sizes), a line counting instances and streams, and the legend."""
    params = " ".join(f"{k}={v}" for k, v in graph.params.items())
    fig.text(0.5, 1 - 0.12 / total, f"{graph.name}  {params}", ha="center", va="top",
             fontsize=13, weight="bold")
    nreg = len(regs & set(kinds))
    detail = (f": {nreg} lowered to registers (lockstep), {_n(len(kinds) - nreg, 'FIFO')}"
              if sched else ": register/FIFO choice unknown (the schedule failed)") if kinds else ""
    fig.text(0.5, 1 - 0.42 / total, f"{_n(len(graph.instances), 'task instance')}, "
             f"{_n(len(kinds), 'stream')}{detail}", ha="center", va="top", fontsize=9,
             color="#333333")
    handles = ([Line2D([], [], color=REG, lw=1.5, label="stream lowered to a register"),
                Line2D([], [], color=FIFO, lw=1.5, ls="--", label="stream as a FIFO")] if sched
               else [Line2D([], [], color=PLAIN, lw=1.5, label="stream")])
    handles.append(Line2D([], [], color=WIRE, lw=1.1, label="tensor read / write"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0.02 / total))


def draw(graph, path, sched=None):
    """Draw ``graph`` (an ``ir.Graph``, e.g. from ``hwgen.pipeline.load_design``) to ``path``
    (str or os.PathLike; its extension, ``.svg`` or ``.png``, chooses the format) and return
    ``path``. ``sched`` (a ``schedule.Schedule``) tells register streams from FIFOs; it is
    computed when omitted (and left out if that fails)."""
    ext = os.path.splitext(str(path))[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise HwgenError(f"cannot draw {str(path)!r}: unknown picture format "
                         f"{'.' + ext if ext else '(no extension)'}; use .svg or .png")
    sched, regs, kinds = _stream_kinds(graph, sched)
    fig = Figure()
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    d = _Diagram(graph, kinds)
    d.draw_frames(ax)
    d.draw_streams(ax)
    d.draw_tensors(ax)
    _annotate(fig, graph, sched, regs, kinds, _fit(fig, ax, d))
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "hwgen"}):
            fig.savefig(path, format=ext, dpi=120, metadata={"Date": None} if ext == "svg" else {})
    except OSError as e:
        raise HwgenError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    return path
