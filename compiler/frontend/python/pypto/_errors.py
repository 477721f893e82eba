"""Exceptions raised by pypto, carrying the kernel line they are about."""


class PtoError(Exception):
    """Base of pypto's own errors."""


class KernelError(PtoError, ValueError):
    """A kernel did something that cannot be compiled: an op whose inputs do
    not fit, a bad tile shape, a misuse of the API. `file`, `line` and
    `column` point at the kernel line (helpers the user wrote count as the
    kernel; frames inside pypto do not)."""

    def __init__(self, message, file="", line=0, column=0):
        location = f"{file}:{line}: " if file else ""
        super().__init__(f"{location}{message}")
        self.message = message
        self.file = file
        self.line = line
        self.column = column


class KernelTimeout(PtoError):
    """Raised inside a kernel that ran past its time limit or was cancelled."""
