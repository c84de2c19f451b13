"""Progress and error lines on stderr."""

from __future__ import annotations

import sys
import threading

SAYING = threading.Lock()


def say(message: str) -> None:
    """One line on stderr, whole: chapters render in threads, and print() writes the line and its
    newline separately, so two threads' lines could run into one."""
    with SAYING:
        sys.stderr.write(message + "\n")
        sys.stderr.flush()


def interrupt(signum, frame):
    """A SIGTERM handler: stop as on Ctrl-C, so that temporary files are removed, nothing half-done is
    published and training workers are stopped, not left to run on."""
    raise KeyboardInterrupt
