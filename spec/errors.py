"""Typed errors for bad input. The CLI turns each into one line on stderr and exit code 2."""

from __future__ import annotations


class InputError(ValueError):
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


class TargetFailure(Exception):
    """An outside target failed on one problem (crash, hang, over its CPU budget, a malformed answer): the
    checker reports it as H7. `cause` tells failures apart (`cmd.hang`, `java.lang.NullPointerException@...`)."""

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause
