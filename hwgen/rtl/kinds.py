"""Modules built once per kind: sibling modules whose hardware is the same share one.

A lockstep group gives each member its own module (``rtl.group``), a buffer each bank its own.
Siblings that differ only in the signals they connect to (the interior PEs of a systolic
array, the banks of a buffer) elaborate to equal fragments; for Verilog (``flow.verilog``)
`Kinds.share` replaces them by instances of one module per kind, so that netlisting, the
Verilog and the simulators' builds follow the number of kinds, not of PEs. Two fragments are of
one kind when their text is equal with every signal named by the order in which it first
appears (`structure`: statements, shapes, constants, instances' parameters, memories'
contents) and the same of their signals cross their edge. Amaranth's simulator and the formal
harnesses take the design as it is elaborated: the hardware is the same.
"""
import re
from collections import Counter
from dataclasses import dataclass, field

from amaranth.back import rtlil
from amaranth.hdl import ClockDomain, ClockSignal, Fragment, Instance, ResetSignal, Signal
# Elaborated fragments, their instances and memories are Amaranth 0.5's own (pinned in
# pyproject.toml): a module's ports named by hand take ``PortDirection``.
from amaranth.hdl._ir import PortDirection
from amaranth.hdl._mem import MemoryInstance

_TOKEN = re.compile(r"\x00(\d+)\x00")
_DOMAIN = re.compile(r"\((?:clk|rst) (\w+)\)")


@dataclass
class _Node:
    """One fragment, its own part (not its subfragments'): its text with each signal a token
    ``\\0<number>\\0`` (`_Pass`), the signals it shows and those it drives, by number."""
    lines: list
    shown: set
    driven: set
    subs: list = field(default_factory=list)    # the subfragments' _Node
    shareable: bool = True                       # no clock domain but sync, none defined


class _Pass:
    """Every fragment of a design as a `_Node`; while it runs, a signal's ``repr`` is its
    token (Amaranth's ``repr`` of values and statements shows every signal in them)."""

    def __init__(self, fragment):
        self.signals = []       # number -> Signal
        self.numbers = {}       # id of a signal -> its number
        original = Signal.__repr__
        Signal.__repr__ = lambda sig: self._token(sig)
        try:
            self.root = self._node(fragment)
        finally:
            Signal.__repr__ = original

    def _token(self, sig):
        number = self.numbers.get(id(sig))
        if number is None:
            number = self.numbers[id(sig)] = len(self.signals)
            self.signals.append(sig)
        return f"(sig \x00{number}\x00)"

    def _numbers(self, signals):
        return {self.numbers[id(s)] for s in signals}

    def _node(self, fragment):
        lines, driven = [], set()
        shareable = True
        if isinstance(fragment, Instance):
            lines.append(f"instance {fragment.type} {sorted(fragment.parameters.items())!r} "
                         f"{sorted(fragment.attrs.items())!r}")
            for name, (value, kind) in fragment.ports.items():
                lines.append(f"  {kind} {name} {value!r}")
                if kind == "o":
                    driven |= self._numbers(value._lhs_signals())
        elif isinstance(fragment, MemoryInstance):
            data = fragment._data
            lines.append(f"memory {data.shape!r} {data.depth} {list(data.init)!r} "
                         f"{sorted(fragment._attrs.items())!r}")
            for p in fragment._read_ports:
                lines.append(f"  read {p._domain} {p._addr!r} {p._data!r} {p._en!r} "
                             f"{p._transparent_for!r}")
                driven |= self._numbers(p._data._lhs_signals())
            for p in fragment._write_ports:
                lines.append(f"  write {p._domain} {p._addr!r} {p._data!r} {p._en!r}")
        else:
            shareable = type(fragment) is Fragment and not fragment.domains \
                and set(fragment.statements) <= {"comb", "sync"}
            for domain, statements in sorted(fragment.statements.items()):
                lines.append(f"domain {domain}")
                for stmt in statements:
                    lines.append(f"  {stmt!r}")
                    driven |= self._numbers(stmt._lhs_signals())
        text = "\n".join(lines)
        shareable = shareable and set(_DOMAIN.findall(text)) <= {"sync"}
        node = _Node(lines, {int(k) for k in _TOKEN.findall(text)}, driven,
                     shareable=shareable)
        if type(fragment) is Fragment:
            node.subs = [self._node(sub) for sub, _, _ in fragment.subfragments]
        return node


def _subtree(node):
    """``node`` and every `_Node` under it."""
    yield node
    for sub in node.subs:
        yield from _subtree(sub)


def _shows(node):
    """How many fragments under ``node`` (``node`` included) show each signal, by number."""
    return Counter(g for n in _subtree(node) for g in n.shown)


@dataclass
class Structure:
    """A fragment's text with its signals renamed (``s<k>`` in order of first appearance).

    Attributes
    ----------
    signals : list of Signal
        In that order.
    inputs, driven : set of int
        The signals (by position in ``signals``) the fragment reads but does not drive, and
        those it drives.
    """
    text: str
    signals: list
    inputs: set
    driven: set

    def key(self, outputs=frozenset()):
        """What two fragments of one kind have in common: this text, the signals' shapes and
        which of them cross the edge (the inputs and ``outputs``, by position)."""
        shapes = tuple((s.shape(), s.init, s.reset_less) for s in self.signals)
        return self.text, shapes, tuple(sorted(self.inputs)), tuple(sorted(outputs))


def _structure(signals, node):
    """The `Structure` of the fragment whose `_Node` is ``node``, and the signals' positions
    in it by number (``signals``: the `_Pass`'s)."""
    lines, shown, driven = [], set(), set()

    def walk(n):
        lines.extend(n.lines)
        shown.update(n.shown)
        driven.update(n.driven)
        for sub in n.subs:
            lines.append("sub")
            walk(sub)

    walk(node)
    order = {}
    text = _TOKEN.sub(lambda t: f"s{order.setdefault(int(t[1]), len(order))}", "\n".join(lines))
    return Structure(text, [signals[g] for g in order],
                     {order[g] for g in shown - driven}, {order[g] for g in driven}), order


def structure(fragment):
    """The `Structure` of ``fragment`` (an elaborated module)."""
    p = _Pass(fragment)
    return _structure(p.signals, p.root)[0]


@dataclass
class Kind:
    """One module that modules of a kind instantiate."""
    name: str
    ports: list             # Verilog port names, in the order of the modules' edge signals
    rtlil: str


class Kinds:
    """The kinds of a design's modules, for its Verilog.

    Parameters
    ----------
    name : str
        The design's top; a kind of the modules ``<path>.<stem>_<i>`` (``pe_3_4``, ``bank7``)
        is named ``<name>.<path>.<stem>_kind<k>``.
    """

    def __init__(self, name):
        self.name = name
        self.kinds = {}         # Structure.key -> Kind
        self.instances = {}     # Kind name -> how many modules instantiate it
        self.stems = {}         # stem -> (sibling modules, those of no shared kind, kinds)

    def __len__(self):
        return len(self.kinds)

    def summary(self):
        """``{stem: (modules, written)}``: of the sibling modules of each stem (``pe``,
        ``bank``) where some share a kind, how many there are and how many modules the Verilog
        has for them."""
        return {stem: (modules, alone + len(kinds))
                for stem, (modules, alone, kinds) in self.stems.items()}

    def rtlil(self):
        """Every kind's module, in RTLIL (none marked as the design's top)."""
        return "".join(k.rtlil for k in self.kinds.values())

    def module(self, path, stem, elaboratable, edge):
        """A module that modules of one kind instantiate, built once from ``elaboratable``
        (``rtl.members``: a kind of a group's members) and named ``<name>.<path>.<stem>_kind<k>``;
        its ports are ``edge`` (signal, "i" or "o"). Returns its `Kind`."""
        name = ".".join((self.name,) + tuple(path) + (f"{stem}_kind{len(self.kinds)}",))
        self.kinds[name] = _kind(name, Fragment.get(elaboratable, None), edge)
        return self.kinds[name]

    def count(self, stem, modules, alone, kinds):
        """Count ``modules`` sibling modules of ``stem``: ``alone`` of them built on their own,
        the others instances of ``kinds`` (`Kind` names), for the `summary`."""
        total, own, names = self.stems.get(stem, (0, 0, set()))
        self.stems[stem] = (total + modules, own + alone, names | set(kinds))

    def share(self, fragment, ports):
        """Replace, in the elaborated design ``fragment``, every module that has siblings of
        its kind by an instance of the kind; ``ports``: the design's port signals."""
        p = _Pass(fragment)
        uses = _shows(p.root)   # a port counts as one more fragment that shows its signal
        uses.update(p.numbers[id(s)] for s in ports if id(s) in p.numbers)
        self._share(p, fragment, p.root, (), uses)

    def _share(self, p, parent, node, path, uses):
        """Share among ``parent``'s subfragments (``node``: its `_Node`), then within those
        left as they are; ``path``: the names down to ``parent``."""
        alike = {}
        for k, ((sub, name, _), sub_node) in enumerate(zip(parent.subfragments, node.subs)):
            if type(sub) is Fragment and name is not None and \
                    all(n.shareable for n in _subtree(sub_node)):
                alike.setdefault(_outline(sub), []).append(k)
        shared = set()
        for ks in alike.values():
            if len(ks) > 1:
                shared |= self._instances(p, parent, node, path, ks, uses)
        stems = {}
        for k, (sub, name, _) in enumerate(parent.subfragments):
            if name is not None and (k in shared or type(sub) is Fragment):
                stems.setdefault(stem(name), []).append(k)
        for sibling, ks in stems.items():
            if len(ks) > 1 and shared & set(ks):
                self.count(sibling, len(ks), len(set(ks) - shared),
                           {parent.subfragments[k][0].type for k in ks if k in shared})
        for k, ((sub, name, _), sub_node) in enumerate(zip(parent.subfragments, node.subs)):
            if k not in shared and type(sub) is Fragment:
                self._share(p, sub, sub_node, path + (name or f"U${k}",), uses)

    def _instances(self, p, parent, node, path, ks, uses):
        """Instances of kinds for the subfragments ``ks`` of ``parent`` that share one with
        another; returns those replaced."""
        found = {}
        for k in ks:
            st, order = _structure(p.signals, node.subs[k])
            inner = _shows(node.subs[k])
            outputs = {order[g] for g in inner if order[g] in st.driven and uses[g] > inner[g]}
            found.setdefault(st.key(outputs), []).append((k, st, st.inputs | outputs))
        replaced = set()
        for key, subs in found.items():
            if len(subs) < 2:
                continue
            if key not in self.kinds:
                k, st, edge = subs[0]
                name = ".".join((self.name,) + path + (
                    f"{stem(parent.subfragments[k][1])}_kind{len(self.kinds)}",))
                self.kinds[key] = _kind(name, parent.subfragments[k][0],
                                        [(s, "i" if j in st.inputs else "o")
                                         for j, s in enumerate(st.signals) if j in edge])
            kind = self.kinds[key]
            self.instances[kind.name] = self.instances.get(kind.name, 0) + len(subs)
            for k, st, edge in subs:
                _, name, src_loc = parent.subfragments[k]
                ports = [("i" if j in st.inputs else "o", port, st.signals[j])
                         for port, j in zip(kind.ports, sorted(edge))]
                parent.subfragments[k] = (Instance(kind.name, ("i", "clk", ClockSignal()),
                                                   ("i", "rst", ResetSignal()), *ports),
                                          name, src_loc)
                replaced.add(k)
        return replaced


def stem(name):
    """``pe`` of ``pe_3_4``, ``bank`` of ``bank7``, ``copy`` of ``w_fan1_copy3``."""
    return re.sub(r"(_?\d+)+$", "", name).rsplit("_", 1)[-1] or "module"


def _outline(fragment):
    """What two fragments of one kind have in common, cheap to compute: where they come
    from, how many statements and subfragments they have."""
    return (type(fragment.origins[0]) if fragment.origins else None,
            tuple((d, len(s)) for d, s in sorted(fragment.statements.items())),
            len(fragment.subfragments))


def _kind(name, fragment, edge):
    """The `Kind` of the module elaborated as ``fragment``: its ports are ``edge`` (signal,
    "i" or "o"), named after the module's signals."""
    domain = ClockDomain("sync")
    fragment.add_domains(domain)
    ports = {"clk": (domain.clk, PortDirection.Input), "rst": (domain.rst, PortDirection.Input)}
    names = []
    for s, d in edge:
        stem = s.name or "port"
        port, k = stem, 1
        while port in ports:
            port, k = f"{stem}_{k}", k + 1
        names.append(port)
        ports[port] = (s, PortDirection.Input if d == "i" else PortDirection.Output)
    text = rtlil.convert(fragment, name=name, ports=ports, emit_src=False)
    text = text.replace(f"attribute \\top 1\nmodule \\{name}\n", f"module \\{name}\n")
    return Kind(name, names, text)
