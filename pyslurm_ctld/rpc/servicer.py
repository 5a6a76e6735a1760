"""The controller's gRPC service (proto/ctld.proto's Controller), one part per concern: jobs,
steps, nodes, the cluster's configuration, reports and event triggers. Each RPC parses the message, checks who
asks, calls one core decider, commits what it returns and replies.
"""
from __future__ import annotations

from pyslurm_common.rpc import ctld_pb2_grpc

from .allocation_rpcs import AllocationRpcs
from .cluster_rpcs import ClusterRpcs
from .node_rpcs import NodeRpcs
from .report_rpcs import ReportRpcs
from .trigger_rpcs import TriggerRpcs


class ControllerServicer(AllocationRpcs, NodeRpcs, ClusterRpcs, ReportRpcs, TriggerRpcs,
                         ctld_pb2_grpc.ControllerServicer):
    """Every RPC of the Controller service; the parts share `ServicerBase`."""
