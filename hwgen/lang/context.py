"""The state of lowering one task body at one grid position (``TaskContext``).

``body.TaskLowerer`` builds one context per task instance and hands it to each of its small
lowerers (expressions, numbers, helpers, assignments, blocks, branches, loops, streams): they
read and update this one object instead of attributes shared through a common base, so what a
lowerer may touch is written down here, in one place.
"""
import ast
from dataclasses import dataclass, field


@dataclass(eq=False)
class TaskContext:
    """What the lowerers of one task instance share. Set once: the region's ``parser``
    (``frontend._RegionParser``: locations, errors, the region's scope, the fold state), the
    task's ``fn``, its ``pid`` in ``grid`` and ``name``, the ``tensors`` it sees, the region's
    ``streams`` and the ``channels`` shared by the region's instances; with ``fold``, the
    task's virtual grid, the instance at ``pid`` of the smaller ``grid`` runs the virtual
    instances folded onto it (``lang.fold``). The rest grows and shrinks while the body is
    lowered."""

    parser: object
    fn: ast.FunctionDef
    pid: tuple
    grid: tuple
    tensors: dict               # the name the body uses -> Tensor
    streams: dict               # the region's stream declarations: name -> (StreamType, loc)
    channels: dict              # channel name -> Channel, for every instance of the region
    fold: tuple = None          # the task's virtual grid, when it is folded onto ``grid``
    name: str = field(init=False)   # the instance's name: prefix, task, grid position
    consts: dict = field(default_factory=dict)      # compile-time names -> values
    vars: dict = field(default_factory=dict)        # run-time locals -> IntType
    arrays: dict = field(default_factory=dict)      # local arrays -> TensorType
    contents: dict = field(default_factory=dict)    # read-only local arrays -> their elements
    calls: list = field(default_factory=list)       # regions called: (region, tensors, node)
    assigned: set = field(default_factory=set)      # locals that hold a value here
    loops: list = field(default_factory=list)       # enclosing run-time loops, outermost first
    loop_values: list = field(default_factory=list)     # (start, step) per loop
    trips: list = field(default_factory=list)       # trip count (or range) per loop
    conditional: int = 0        # depth of enclosing run-time if/else
    n_conds: int = 0            # hidden locals made so far (numbers their names)
    context: list = field(default_factory=list)     # predicates of enclosing loop-variable ifs
    pid_alias: dict = field(default_factory=dict)   # a folded grid index -> its loop's variable
    n_fold: int = 0             # fold loops around the body (the outermost loops)
    inline_env: tuple = ()      # name -> IR expression, one frame per inlined helper call
    closed: set = field(default_factory=set)        # closed streams this body closed so far
    read: set = field(default_factory=set)          # closed streams a `for v in s:` read
    dynamic: bool = False       # in a loop whose count depends on data
    defs: dict = field(default_factory=dict)        # local -> the sum of products it holds

    def __post_init__(self):
        self.name = self.parser.prefix + self.fn.name + \
            (f"[{','.join(map(str, self.pid))}]" if self.grid else "")

    def error(self, message, node):
        """Raise ``message`` at ``node``, naming the task instance (and its fold)."""
        if self.fold and "compile" in message:
            message += f" (task {self.fn.name} is folded from grid {list(self.fold)} onto " \
                       f"{list(self.grid)}: its grid indices are loop variables)"
        self.parser.error(f"in task {self.name}: {message}", node)

    def folded_axes(self):
        """The grid axes whose virtual instances share a physical one."""
        return [d for d in range(len(self.grid)) if self.fold and self.fold[d] > self.grid[d]]
