"""The one exception type a user sees: a mistake in their program, named by file and line."""


class HwgenError(Exception):
    """A user-facing error. ``loc`` is ``(file, line)`` of the user's code, when known."""

    def __init__(self, message, loc=None):
        self.message = message
        self.loc = loc
        super().__init__(self.__str__())

    def __str__(self):
        if self.loc is None:
            return self.message
        return f"{self.loc[0]}:{self.loc[1]}: {self.message}"


class HwgenTypeError(HwgenError):
    """A region or kernel parameter of the wrong type (for Allo, a type-inference error)."""


class HwgenWarning(UserWarning):
    """A likely mistake that still compiles (e.g. an accumulator that can overflow its type);
    reported at the user's line through Python's ``warnings``."""
