"""The messages between pyslurmd and a stepd (pyslurm_d/step_messages.py): the launch request and
the step's result, their one codec, and the spool files an earlier pyslurmd wrote."""
from __future__ import annotations

import dataclasses
import json
import socket

import pytest

from pyslurm_d import stepd_server
from pyslurm_d.step_messages import Launch, MessageError, StepdPlace, StepResult, decode, encode

LAUNCH = Launch(job_id=12, uid=1001, gid=1001, user_name="alice", node_name="n1", script_path="",
                argv=["hostname"], environment=["PATH=/usr/bin"], work_dir="/home/alice", std_out="",
                std_err="", std_in="", append=False, umask=0o22, kill_wait=30, step="3", task_ids=[2, 3],
                node_index=1, num_tasks=4, io_host="10.0.0.1", io_port=40001, io_key="k", memory_bytes=2 ** 30,
                memory_swap_bytes=None, cpu_ids=[0, 1], denied_devices=["/dev/nvidia1"])

# As the previous pyslurmd wrote them (dicts through json.dumps), byte for byte.
OLD_RESULT_JSON = ('{"job_id": 12, "step": "3", "exit_code": 0, "exit_signal": 9, "start_time": 1700000000, '
                   '"end_time": 1700000060, "launch_failed": false, "error": "", "cancelled": true, '
                   '"kill_task_failed": false, "out_of_memory": false, "max_rss_kb": 2048, '
                   '"user_cpu_usec": 1500, "system_cpu_usec": 300}')
OLD_END_JSON = ('{"job_id": 12, "exit_code": 2, "exit_signal": 0, "start_time": 1700000000, "end_time": 1700000060, '
                '"launch_failed": false, "error": "", "cancelled": false, "kill_task_failed": false, '
                '"out_of_memory": true, "max_rss_kb": 4096, "user_cpu_usec": 7, "system_cpu_usec": 8, "step": "batch", '
                '"gpus": [{"index": 0, "samples": 3, "util_ave": 50, "util_max": 90, "mem_ave_bytes": 1, '
                '"mem_max_bytes": 2, "power_max_mw": 3, "lost": false, "foreign_pids": []}], "epilog_failed": true}')
OLD_LOST_END_JSON = ('{"job_id": 5, "exit_code": 0, "exit_signal": 9, "launch_failed": false, "stepd_lost": true, '
                     '"error": "stepd ended without a result", "start_time": 0, "end_time": 1700000000, '
                     '"step": "batch", "gpus": []}')


def test_a_launch_and_a_result_travel_whole() -> None:
    assert decode(Launch, encode(LAUNCH)) == LAUNCH
    place = StepdPlace(step_dir="/var/spool/pyslurm/d/job00012.3", cgroup_root="/sys/fs/cgroup")
    assert decode(StepdPlace, encode(place)) == place
    result = StepResult(job_id=12, step="3", exit_code=1, cancelled=True, gpus=[{"index": 0, "samples": 1}])
    assert decode(StepResult, encode(result).encode()) == result
    assert "\n" not in encode(LAUNCH)     # one line on the fork server's connection


def test_the_files_an_earlier_pyslurmd_wrote_are_read() -> None:
    result = decode(StepResult, OLD_RESULT_JSON)
    assert (result.step, result.exit_signal, result.cancelled, result.max_rss_kb, result.epilog_failed) == (
        "3", 9, True, 2048, False)
    end = decode(StepResult, OLD_END_JSON)
    assert (end.step, end.exit_code, end.out_of_memory, end.epilog_failed, end.gpus[0]["util_max"]) == (
        "batch", 2, True, True, 90)
    lost = decode(StepResult, OLD_LOST_END_JSON)
    assert (lost.stepd_lost, lost.exit_signal, lost.error) == (True, 9, "stepd ended without a result")


def test_a_field_this_reader_does_not_know_is_ignored() -> None:
    newer = {**json.loads(encode(LAUNCH)), "cpu_freq": "high"}
    assert decode(Launch, json.dumps(newer)) == LAUNCH


@pytest.mark.parametrize(("kind", "text"), [
    (StepResult, '{"job_id": 7, "exit'),                       # torn
    (StepResult, '[1, 2]'),                                    # not an object
    (StepResult, '{"exit_code": 1}'),                          # no job id
    (StepResult, '{"job_id": "7"}'),                           # a string for a number
    (StepResult, '{"job_id": true}'),                          # a boolean for a number
    (StepResult, '{"job_id": 7, "gpus": [1]}'),                # GPU figures that are not objects
    (Launch, json.dumps({**dataclasses.asdict(LAUNCH), "uid": None})),
    (Launch, json.dumps({**dataclasses.asdict(LAUNCH), "argv": "hostname"})),
    (Launch, json.dumps({**dataclasses.asdict(LAUNCH), "memory_bytes": 1.5})),
    (Launch, b"\xff"),
])
def test_what_is_not_a_message_is_refused(kind: type[Launch] | type[StepResult], text: str | bytes) -> None:
    with pytest.raises(MessageError):
        decode(kind, text)


def test_the_fork_server_refuses_a_launch_it_cannot_read_before_it_forks() -> None:
    ours, servers = socket.socketpair()
    with ours, servers:
        place = StepdPlace(step_dir="/nonexistent", cgroup_root="/nonexistent")
        ours.sendall(f'{encode(place)}\n{{"job_id": "12"}}\n'.encode())
        with pytest.raises(MessageError, match="job_id"):
            stepd_server._fork_stepd(servers, servers)   # raised in the server: no stepd was forked
