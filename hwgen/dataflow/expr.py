"""Tensor expressions: the loop nest ``C[i,j] += A[i,k] * B[k,j]`` as loops and affine accesses.

The text is parsed with Python's ``ast`` (it is a valid augmented assignment), so users write what
they would write in numpy-like pseudo code. Every index must be affine in the loop names
(``p+r``, ``2*p+r``, ``i-1``, ``3``); each access becomes an integer matrix (tensor dimensions x
loops) and an offset, which is all the space-time analysis needs.
"""
import ast
import re
from dataclasses import dataclass

from ..errors import HwgenError

__all__ = ["Access", "Expr", "parse_expr", "parse_sizes", "affine"]

EXAMPLE = "write it like C[i,j] += A[i,k] * B[k,j]"


@dataclass(frozen=True)
class Access:
    """One tensor access: index vector = ``matrix @ loops + offset``.

    Attributes
    ----------
    tensor : str
    matrix : tuple of tuple of int
        One row per tensor dimension, one column per loop of the expression.
    offset : tuple of int
        Constant part of each index.
    text : str
        The access as the user wrote it, for messages.
    """
    tensor: str
    matrix: tuple
    offset: tuple
    text: str

    @property
    def ndim(self):
        return len(self.matrix)

    def index(self, point):
        """The tensor index touched at loop iteration ``point`` (one value per loop)."""
        return tuple(sum(a * n for a, n in zip(row, point)) + o
                     for row, o in zip(self.matrix, self.offset))


@dataclass(frozen=True)
class Expr:
    """A perfect loop nest ``out[...] += in0[...] * in1[...]``.

    Attributes
    ----------
    loops : tuple of str
        Loop names in order of first appearance, the output's indices first.
    output : Access
    inputs : tuple of Access
    text : str
        The expression as given.
    """
    loops: tuple
    output: Access
    inputs: tuple
    text: str

    @property
    def accesses(self):
        """All accesses in the order written: output first, then the inputs."""
        return (self.output,) + self.inputs

    @property
    def tensors(self):
        """Tensor names in the order written."""
        return tuple(a.tensor for a in self.accesses)

    def access(self, tensor):
        """The access of ``tensor``."""
        for a in self.accesses:
            if a.tensor == tensor:
                return a
        raise HwgenError(f"'{tensor}' is not a tensor of {self.text}; "
                         f"its tensors are {', '.join(self.tensors)}")

    def check_sizes(self, sizes):
        """Validate loop sizes (a mapping or text for ``parse_sizes``); returns a dict."""
        if isinstance(sizes, str):
            sizes = parse_sizes(sizes)
        for name, value in sizes.items():
            if name not in self.loops:
                raise HwgenError(f"size given for '{name}', which is not a loop of {self.text}; "
                                 f"its loops are {', '.join(self.loops)}")
            _check_size(name, value)
        missing = [l for l in self.loops if l not in sizes]
        if missing:
            raise HwgenError(f"loop{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                             f"{'have' if len(missing) > 1 else 'has'} no size; add "
                             f"{' '.join(m + '=...' for m in missing)} to the sizes")
        return {l: sizes[l] for l in self.loops}

    def shapes(self, sizes):
        """Shape of every tensor when each loop ``l`` runs over ``range(sizes[l])``.

        A dimension's extent is ``max - min + 1`` of its index over the loop box, e.g.
        ``P + R - 1`` for ``I[c, p+r, q+s]`` (a constant offset shifts the range, it does not
        widen it).

        Returns
        -------
        dict of str to tuple of int
        """
        sizes = self.check_sizes(sizes)
        bounds = [sizes[l] - 1 for l in self.loops]
        return {a.tensor: tuple(1 + sum(abs(c) * b for c, b in zip(row, bounds))
                                for row in a.matrix)
                for a in self.accesses}

    def __str__(self):
        return self.text


def _check_size(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise HwgenError(f"size of loop '{name}' must be a positive integer, not {value!r}; "
                         f"write it like {name}=64")


def parse_sizes(text):
    """Parse loop sizes ``"i=64 j=64 k=64"`` (spaces and/or commas between them).

    Returns
    -------
    dict of str to int
    """
    sizes = {}
    for item in filter(None, re.split(r"[\s,;]+", text.strip())):
        m = re.fullmatch(r"([A-Za-z_]\w*)=(.*)", item)
        if not m:
            raise HwgenError(f"cannot read size '{item}'; write sizes like i=64 j=64 k=64")
        name, value = m.groups()
        if name in sizes:
            raise HwgenError(f"size of loop '{name}' given twice in '{text}'")
        try:
            value = int(value)
        except ValueError:
            raise HwgenError(f"size of loop '{name}' must be a positive integer, not "
                             f"'{value}'; write it like {name}=64") from None
        _check_size(name, value)
        sizes[name] = value
    return sizes


def affine(node, what):
    """Linear form of an index expression node: ``({name: coefficient}, constant)``.

    Names keep their order of first appearance (left to right). ``what`` names the index in the
    error raised when the expression is not affine.
    """
    if isinstance(node, ast.Name):
        return {node.id: 1}, 0
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return {}, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        coeffs, const = affine(node.operand, what)
        s = -1 if isinstance(node.op, ast.USub) else 1
        return {n: s * c for n, c in coeffs.items()}, s * const
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        lc, lk = affine(node.left, what)
        rc, rk = affine(node.right, what)
        s = 1 if isinstance(node.op, ast.Add) else -1
        for n, c in rc.items():
            lc[n] = lc.get(n, 0) + s * c
        return lc, lk + s * rk
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        lc, lk = affine(node.left, what)
        rc, rk = affine(node.right, what)
        if not lc or not rc:
            coeffs, scale = (rc, lk) if not lc else (lc, rk)
            const = lk * rk
            return {n: scale * c for n, c in coeffs.items()}, const
    raise HwgenError(f"{what} '{ast.unparse(node)}' is not affine; use loop names times integer "
                     "constants plus a constant, like p+r, 2*p+r or i-1")


def _access(node, src, role):
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        raise HwgenError(f"{role} '{ast.unparse(node)}' is not a tensor access like A[i,k]; "
                         + EXAMPLE)
    name = node.value.id
    text = ast.get_source_segment(src, node) or ast.unparse(node)
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    forms = []
    for e in elts:
        if isinstance(e, ast.Slice):
            raise HwgenError(f"index '{ast.unparse(e)}' of {text} is a slice; index every "
                             "dimension with a loop name or an affine expression like p+r")
        forms.append(affine(e, f"index of {text}"))
    return name, forms, text


def _factors(node):
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


def parse_expr(text):
    """Parse a tensor expression like ``C[i,j] += A[i,k] * B[k,j]``.

    Returns
    -------
    Expr

    Raises
    ------
    HwgenError
        On text that is not ``out[...] += in0[...] * in1[...]`` with affine indices.
    """
    src = text.strip()
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise HwgenError(f"cannot parse '{src}' ({e.msg}); {EXAMPLE}") from None
    if len(tree.body) != 1:
        raise HwgenError(f"'{src}' is not one statement; {EXAMPLE}")
    stmt = tree.body[0]
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        raise HwgenError(f"'{src}' assigns with '='; accumulate with '+=': {EXAMPLE}")
    if not isinstance(stmt, ast.AugAssign) or not isinstance(stmt.op, ast.Add):
        raise HwgenError(f"'{src}' is not an accumulation with '+='; {EXAMPLE}")
    factors = _factors(stmt.value)
    if len(factors) != 2:
        raise HwgenError(f"the right-hand side of '{src}' must be a product of exactly two tensor "
                         f"accesses, it has {len(factors)} factor{'s' if len(factors) > 1 else ''}"
                         f"; {EXAMPLE}")
    parsed = [_access(stmt.target, src, "output")]
    parsed += [_access(f, src, "factor") for f in factors]
    seen = {}
    for name, forms, t in parsed:
        if name in seen:
            raise HwgenError(f"tensor '{name}' appears twice ({seen[name]} and {t}); give every "
                             "access its own tensor name (the output must not also be an input)")
        seen[name] = t
    loops = {}
    for _, forms, _ in parsed:
        for coeffs, _ in forms:
            loops.update((n, None) for n in coeffs if n not in loops)
    loops = tuple(loops)
    accesses = [Access(name, tuple(tuple(c.get(l, 0) for l in loops) for c, _ in forms),
                       tuple(k for _, k in forms), t)
                for name, forms, t in parsed]
    return Expr(loops, accesses[0], tuple(accesses[1:]), src)
