"""Session-wide hooks."""

import sys

import pytest

_status = {}


@pytest.fixture(scope="module")
def ray_session(request):
    """A local Ray for the tests of one module, with ``RAY_WORKERS`` CPUs (a module-level
    constant; 2 if the module sets none), always a Ray of its own (``address="local"``), never a
    cluster this machine may have started (``ray start``); its warm workers are released and the
    session shut down after the module."""
    import ray

    from experiments.run.runner import local_ray_options, release_workers

    workers = getattr(request.module, "RAY_WORKERS", 2)
    ray.init(**{"address": "local", **local_ray_options(workers=workers)})
    yield ray
    release_workers()
    ray.shutdown()


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
