"""Session-wide hooks."""

import sys

import pytest

_status = {}


def pytest_sessionfinish(session, exitstatus):
    _status["code"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """The session's report is printed and written by now: end the process with its status the way
    the ``dynasty`` command ends, without the interpreter's teardown once Ray was imported, during
    which Ray's leftover native threads can crash the process
    (experiments.run.runner.end_process)."""
    if "code" in _status and "ray" in sys.modules:
        from experiments.run.runner import end_process

        end_process(_status["code"])
