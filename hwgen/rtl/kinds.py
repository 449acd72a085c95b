"""Members built once per kind: task instances whose hardware is the same share one module.

A lockstep group gives each member its own module (``rtl.group``). Members that differ only in
the signals they connect to (the interior PEs of a systolic array) elaborate to equal
fragments; for Verilog, the group instantiates one module per kind (``Kinds``), so that
netlisting, the Verilog and the simulators' builds follow the number of kinds, not of PEs.
Two fragments are of one kind when their text is equal with every signal renamed in the order
it first appears (`structure`: statements, shapes, constants, instances' parameters, memories'
contents) and the same of their signals cross their edge. Amaranth's simulator takes the
members' own modules (``Group(kinds=None)``): the hardware is the same.
"""
import re
from dataclasses import dataclass

from amaranth.back import rtlil
from amaranth.hdl import ClockDomain, ClockSignal, Fragment, Instance, ResetSignal
from amaranth.hdl._ast import ClockSignal as _Clock, ResetSignal as _Reset, SignalDict, SignalSet
from amaranth.hdl._ir import PortDirection
from amaranth.hdl._mem import MemoryInstance

_TOKEN = re.compile(r"\x00(\d+)\x00")


@dataclass
class Structure:
    """A fragment's text with its signals renamed (``s<k>`` in order of first appearance)."""
    text: str
    signals: list           # the signals, in that order
    driven: SignalSet       # signals the fragment drives
    used: SignalSet         # signals it reads

    def key(self, edge=None):
        """What two members of one kind have in common: this text, the signals' shapes and
        which of them cross the edge (``edge``: a ``SignalDict``, signal -> "i" or "o")."""
        edge = SignalDict() if edge is None else edge
        shapes = tuple((s.shape(), s.init, s.reset_less) for s in self.signals)
        return self.text, shapes, tuple((k, edge[s]) for k, s in enumerate(self.signals)
                                        if s in edge)


def _signals(value):
    """The signals of a value, statement or instance port (clock and reset: none)."""
    if isinstance(value, (_Clock, _Reset)):
        return SignalSet()
    return value._rhs_signals()


def _parts(fragment):
    """``(text lines, driven, used)`` of ``fragment`` and its subfragments, with the signals
    already renamed."""
    lines, driven, used = [], SignalSet(), SignalSet()
    if isinstance(fragment, Instance):
        lines.append(f"instance {fragment.type} {sorted(fragment.parameters.items())!r} "
                     f"{sorted(fragment.attrs.items())!r}")
        for name, (value, kind) in fragment.ports.items():
            lines.append(f"  {kind} {name} {value!r}")
            if kind == "o":
                driven |= value._lhs_signals()
            else:
                used |= _signals(value)
        return lines, driven, used
    if isinstance(fragment, MemoryInstance):
        data = fragment._data
        lines.append(f"memory {data.shape!r} {data.depth} {list(data.init)!r} "
                     f"{sorted(fragment._attrs.items())!r}")
        for p in fragment._read_ports:
            lines.append(f"  read {p._domain} {p._addr!r} {p._data!r} {p._en!r} "
                         f"{p._transparent_for!r}")
            driven |= p._data._lhs_signals()
            used |= p._addr._rhs_signals() | p._en._rhs_signals()
        for p in fragment._write_ports:
            lines.append(f"  write {p._domain} {p._addr!r} {p._data!r} {p._en!r}")
            used |= p._addr._rhs_signals() | p._data._rhs_signals() | p._en._rhs_signals()
        return lines, driven, used
    assert type(fragment) is Fragment and not fragment.domains, fragment
    for domain, statements in sorted(fragment.statements.items()):
        lines.append(f"domain {domain}")
        for stmt in statements:
            lines.append(f"  {stmt!r}")
            driven |= stmt._lhs_signals()
            used |= stmt._rhs_signals()
    for sub, _, _ in fragment.subfragments:      # names are not structure
        lines.append("sub")
        sub_lines, sub_driven, sub_used = _parts(sub)
        lines += sub_lines
        driven |= sub_driven
        used |= sub_used
    return lines, driven, used


def structure(fragment):
    """The `Structure` of ``fragment`` (an elaborated member)."""
    _, driven, used = _parts(fragment)
    everything = list(driven | used)
    names = [s.name for s in everything]
    try:
        for k, s in enumerate(everything):
            s.name = f"\x00{k}\x00"
        text = "\n".join(_parts(fragment)[0])
    finally:
        for s, name in zip(everything, names):
            s.name = name
    order = {}
    for k in _TOKEN.findall(text):
        order.setdefault(int(k), len(order))
    text = _TOKEN.sub(lambda t: f"s{order[int(t[1])]}", text)
    return Structure(text, [everything[k] for k in order], driven, used)


@dataclass
class Kind:
    """One module that members of a kind instantiate."""
    name: str
    ports: list             # Verilog port names, in the order of the members' edge signals
    rtlil: str


class Kinds:
    """The kinds of members of one design, for its Verilog.

    Parameters
    ----------
    name : str
        The design's top; kinds are named ``<name>.<group>.<task>_kind<k>``.
    """

    def __init__(self, name):
        self.name = name
        self.kinds = {}         # Structure.key -> Kind

    def __len__(self):
        return len(self.kinds)

    def rtlil(self):
        """Every kind's module, in RTLIL (none marked as the design's top)."""
        return "".join(k.rtlil for k in self.kinds.values())

    def share(self, core, members, interface):
        """``core`` (the group's own fragment) with an instance of each member's kind.

        Parameters
        ----------
        core : Fragment
            The group without its members: controller, shared lines, links, stall.
        members : dict
            ``(group, task, instance name) -> Fragment``: each member's elaborated module.
        interface : iterable of Signal
            The group's ports: driven by a member, they leave it.
        """
        _, _, outside = _parts(core)
        for s in interface:
            outside.add(s)
        shapes = {key: structure(f) for key, f in members.items()}
        for st in shapes.values():
            outside |= SignalSet(s for s in st.used if s not in st.driven)
        for (group, task, name), st in shapes.items():
            edge = SignalDict((s, "i") for s in st.used if s not in st.driven)
            edge.update((s, "o") for s in st.driven if s in outside)
            key = st.key(edge)
            if key not in self.kinds:
                kind_name = f"{self.name}.{group}.{task}_kind{len(self.kinds)}"
                self.kinds[key] = _kind(kind_name, members[(group, task, name)],
                                        [(s, edge[s]) for s in st.signals if s in edge])
            kind = self.kinds[key]
            ports = [(edge[s], port, s) for port, s in
                     zip(kind.ports, (s for s in st.signals if s in edge))]
            core.add_subfragment(Instance(kind.name, ("i", "clk", ClockSignal()),
                                          ("i", "rst", ResetSignal()), *ports), name)
        return core


def _kind(name, fragment, edge):
    """The `Kind` of the member elaborated as ``fragment``: its ports are ``edge`` (signal ->
    "i" or "o"), named after the member's signals."""
    domain = ClockDomain("sync")
    fragment.add_domains(domain)
    ports = {"clk": (domain.clk, PortDirection.Input), "rst": (domain.rst, PortDirection.Input)}
    names = []
    for s, d in edge:
        port, k = s.name, 1
        while port in ports:
            port, k = f"{s.name}_{k}", k + 1
        names.append(port)
        ports[port] = (s, PortDirection.Input if d == "i" else PortDirection.Output)
    text = rtlil.convert(fragment, name=name, ports=ports, emit_src=False)
    text = text.replace(f"attribute \\top 1\nmodule \\{name}\n", f"module \\{name}\n")
    return Kind(name, names, text)
