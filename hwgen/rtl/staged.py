"""Values of a member's datapath at their pipeline levels."""


class Staged:
    """A value that exists at pipeline ``level``."""

    def __init__(self, value, level):
        self.value, self.level = value, level


class Cleared(Staged):
    """``value``, at ``level``, is ``kept`` where ``clear`` is low and 0 where it is high (a
    variable set to 0 under a predicate): an adder that takes it can clear it in its own logic
    (``arith.add_cleared``)."""

    def __init__(self, value, level, kept, clear):
        super().__init__(value, level)
        self.kept, self.clear = kept, clear


def level_of(v):
    """The level of an emitted value (constants and delay-line taps exist at every level)."""
    return v.level if isinstance(v, Staged) else 0
