"""Fixtures shared by every test directory."""
from __future__ import annotations

import faulthandler
from typing import Any, Iterator

import pytest

from pyslurm_ctld.core.invariants import violations
from pyslurm_ctld.core.state import ClusterState


@pytest.fixture(autouse=True)
def consistent_cluster_states(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every ClusterState a test built must be consistent when the test ends (core/invariants.py)."""
    built: list[ClusterState] = []
    original = ClusterState.__init__

    def recording_init(self: ClusterState, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        built.append(self)

    monkeypatch.setattr(ClusterState, "__init__", recording_init)
    yield
    monkeypatch.undo()
    problems = [line for state in built for line in violations(state)]
    assert not problems, "the cluster state is inconsistent:\n" + "\n".join(problems)


EXIT_GRACE_S = 120


def pytest_unconfigure(config: pytest.Config) -> None:
    """A test that leaves a gRPC server or a thread behind can keep the interpreter from exiting
    after the summary (a CI run once sat there until its time was up): if this process still
    lives EXIT_GRACE_S after the session, print every thread's stack and exit with status 1."""
    faulthandler.dump_traceback_later(EXIT_GRACE_S, exit=True)
