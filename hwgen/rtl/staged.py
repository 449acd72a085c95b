"""Values of a member's datapath at their pipeline levels."""


class Staged:
    """A value that exists at pipeline ``level``."""

    def __init__(self, value, level):
        self.value, self.level = value, level


def level_of(v):
    """The level of an emitted value (constants and delay-line taps exist at every level)."""
    return v.level if isinstance(v, Staged) else 0
