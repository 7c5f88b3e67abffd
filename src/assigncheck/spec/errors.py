"""assigncheck's errors, under one root (`AssigncheckError`). Bad input (`InputError`, also a `ValueError`): the
CLI turns each into one line on stderr and exit code 2. An assignor's failure on one problem (`AssignorFailed`,
`TargetFailure`): a finding, never a usage error."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assigncheck.spec.violations import Violation


class AssigncheckError(Exception):
    """The root of every error assigncheck raises on purpose."""


class InputError(AssigncheckError, ValueError):
    """Bad input from a user: a file, a flag, a target. `path` names the offending field."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


class FormatError(InputError):
    """A problem or assignment document that is not well-formed (docs/SPEC.md §1.3)."""


class WireFormatError(InputError):
    """Bytes that are not a valid Kafka consumer-protocol message."""


class TargetUnavailable(InputError):
    """An outside target that cannot run at all (no such program, a jar missing, nothing answers): a usage
    error, never a finding about a problem."""


class TargetFailure(AssigncheckError):
    """An outside target failed on one problem (crash, hang, over its CPU budget, a malformed answer): the
    checker reports it as H7. `cause` tells failures apart (`cmd.hang`, `java.lang.NullPointerException@...`)."""

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


class AssignorFailed(AssigncheckError):
    """One call of an assignor broke H7 (a crash, a hang, over its CPU budget, not an Assignment): raised by
    `assigncheck.run.calls.run_assignor`, carrying the violation."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(violation.message)
        self.violation = violation

__all__ = ["AssigncheckError", "AssignorFailed", "FormatError", "InputError", "TargetFailure", "TargetUnavailable",
           "WireFormatError"]
