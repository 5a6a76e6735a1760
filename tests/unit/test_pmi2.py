"""The PMI wire protocol (pyslurm_common/pmi2.py): framing, commands, the fence barrier."""
from __future__ import annotations

import pytest

from pyslurm_common import pmi2

JOB = pmi2.PmiJob("7.0", 4, pmi2.process_mapping([2, 2]))


def v2(command: str, *pairs: tuple[str, str]) -> bytes:
    return pmi2.encode_v2(command, list(pairs))


def answers(node: pmi2.PmiNode, rank: int, data: bytes) -> list[tuple[str, dict[str, str]]]:
    out = node.receive(rank, data)
    assert all(isinstance(r, pmi2.Reply) for r in out)
    # The answer to init is a PMI-1 line even for a PMI-2 client; everything after it is framed.
    return [item for r in out for item in pmi2.ClientStream(version=1 if r.data.startswith(b"cmd=") else 2)
            .feed(r.data)]  # type: ignore[union-attr]


def started(version: int) -> pmi2.PmiNode:
    node = pmi2.PmiNode(JOB, [0, 1])
    for rank in (0, 1):
        reply = answers(node, rank, f"cmd=init pmi_version={version} pmi_subversion=0\n".encode())
        assert reply[0][0] == "response_to_init" and reply[0][1]["rc"] == "0"
    return node


def test_v2_frame_has_a_padded_length_and_doubles_semicolons() -> None:
    frame = v2("kvs-put", ("key", "a"), ("value", "x;y"))
    assert frame[:6] == b"29    " and frame[6:] == b"cmd=kvs-put;key=a;value=x;;y;"
    assert pmi2.decode_v2(frame[6:]) == ("kvs-put", {"key": "a", "value": "x;y"})


def test_stream_splits_partial_frames_and_switches_version_after_init() -> None:
    stream = pmi2.ClientStream()
    data = b"cmd=init pmi_version=2 pmi_subversion=0\n" + v2("job-getid")
    assert stream.feed(data[:10]) == []
    got = stream.feed(data[10:-3]) + stream.feed(data[-3:])
    assert [c for c, _ in got] == ["init", "job-getid"] and stream.version == 2


@pytest.mark.parametrize("bad", [b"abcdef", b"99999999", b"70000 "])
def test_bad_length_field_is_a_protocol_error(bad: bytes) -> None:
    with pytest.raises(pmi2.PmiProtocolError):
        pmi2.ClientStream(version=2).feed(bad + b"cmd=x;")


def test_process_mapping_is_slurms_vector() -> None:
    assert pmi2.process_mapping([2, 2]) == "(vector,(0,2,2))"
    assert pmi2.process_mapping([3, 3, 1]) == "(vector,(0,2,3),(2,1,1))"
    assert pmi2.parse_counts("2(x3),1") == [2, 2, 2, 1]
    with pytest.raises(ValueError):
        pmi2.parse_counts("2(x")


def test_v2_fullinit_jobid_and_attributes() -> None:
    node = started(2)
    (name, args), = answers(node, 1, v2("fullinit", ("pmirank", "1"), ("threaded", "FALSE")))
    assert name == "fullinit-response"
    assert (args["rc"], args["rank"], args["size"], args["appnum"]) == ("0", "1", "4", "0")
    assert "spawner-jobid" not in args     # not spawned
    assert answers(node, 1, v2("job-getid"))[0][1]["jobid"] == "7.0"
    attr = answers(node, 0, v2("info-getjobattr", ("key", "PMI_process_mapping")))[0][1]
    assert (attr["found"], attr["value"]) == ("TRUE", "(vector,(0,2,2))")
    assert answers(node, 0, v2("info-getjobattr", ("key", "nope")))[0][1]["found"] == "FALSE"
    spawn = answers(node, 0, v2("spawn", ("ncmds", "1")))[0]
    assert spawn[0] == "spawn-response" and spawn[1]["rc"] == "-1"


def test_puts_are_visible_only_after_every_node_passed_the_fence() -> None:
    nodes = [pmi2.PmiNode(JOB, [0, 1]), pmi2.PmiNode(JOB, [2, 3])]
    fence = pmi2.FenceRound(2)
    for node, ranks in zip(nodes, ([0, 1], [2, 3])):
        for rank in ranks:
            answers(node, rank, b"cmd=init pmi_version=2 pmi_subversion=0\n")
            assert answers(node, rank, v2("kvs-put", ("key", f"bc-{rank}"), ("value", f"addr;{rank}")))[0][1]["rc"] == "0"
    assert answers(nodes[0], 0, v2("kvs-get", ("key", "bc-2")))[0][1]["found"] == "FALSE"
    assert answers(nodes[0], 0, v2("kvs-fence")) == []
    assert not nodes[0].fence_ready                       # rank 1 has not entered yet
    assert answers(nodes[0], 1, v2("kvs-fence")) == []
    assert nodes[0].fence_ready
    assert fence.add(0, nodes[0].fence_payload()) is None  # node 1 still computing
    for rank in (2, 3):
        answers(nodes[1], rank, v2("kvs-fence"))
    merged = fence.add(1, nodes[1].fence_payload())
    assert merged is not None
    for node in nodes:
        released = node.fence_done(merged)
        assert sorted(r.rank for r in released) == sorted(node.ranks)
    value = answers(nodes[0], 1, v2("kvs-get", ("jobid", "7.0"), ("srcid", "1"), ("key", "bc-3")))[0][1]
    assert (value["found"], value["value"]) == ("TRUE", "addr;3")


def test_v1_client_conversation() -> None:
    node = started(1)
    assert answers(node, 0, b"cmd=get_maxes\n")[0][1]["vallen_max"] == "1024"
    assert answers(node, 0, b"cmd=get_my_kvsname\n")[0][1]["kvsname"] == "7.0"
    assert answers(node, 0, b"cmd=get_universe_size\n")[0][1]["size"] == "4"
    assert answers(node, 0, b"cmd=put kvsname=7.0 key=k value=v\n")[0][1]["rc"] == "0"
    assert answers(node, 0, b"cmd=barrier_in\n") == []
    assert answers(node, 1, b"cmd=barrier_in\n") == []
    released = node.fence_done(pmi2.FenceRound(1).add(0, node.fence_payload()) or b"")
    assert [r.data for r in released] == [b"cmd=barrier_out rc=0\n"] * 2
    assert answers(node, 1, b"cmd=get kvsname=7.0 key=k\n")[0][1]["value"] == "v"
    assert answers(node, 1, b"cmd=get kvsname=7.0 key=PMI_process_mapping\n")[0][1]["value"] == "(vector,(0,2,2))"
    assert answers(node, 1, b"cmd=finalize\n")[0][0] == "finalize_ack"


def test_abort_and_bounds() -> None:
    node = started(2)
    out = node.receive(0, v2("abort", ("isworld", "TRUE"), ("msg", "boom")))
    assert out == [pmi2.Abort(0, 1, "boom")]
    too_long = answers(node, 1, v2("kvs-put", ("key", "k"), ("value", "x" * (pmi2.MAX_VALUE + 1))))[0][1]
    assert too_long["rc"] == "-1"
    with pytest.raises(pmi2.PmiProtocolError):
        pmi2.FenceRound(1).add(0, b'{"k": 1}')
    with pytest.raises(pmi2.PmiProtocolError):
        pmi2.ClientStream().feed(b"x" * (pmi2.MAX_MESSAGE + 1))
