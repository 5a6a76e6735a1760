"""What every part of the controller's gRPC service shares: the controller it serves, who asks
(privileged, operator), and where a caller's address is.

Permissions: any authenticated user may submit and read; only the owner or a privileged user
(root, SlurmUser) may cancel, signal or hold a job, or see the live usage of its steps (sstat);
node and node-agent RPCs are for privileged callers only.
"""
from __future__ import annotations

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc_auth import Serving, caller
from pyslurm_common.users import user_name

from ..core.access import is_privileged
from ..core.state import ClusterState
from ..shell.controller import Controller
from ..translate.job_info_cache import JobInfoCache


class ServicerBase:
    def __init__(self, ctl: Controller, serving: Serving) -> None:
        self.ctl = ctl
        self.serving = serving    # RPCs in progress (sdiag's server thread count)
        self.job_infos = JobInfoCache()   # GetJobs' messages, per version of each job

    @property
    def state(self) -> ClusterState:
        return self.ctl.state

    def _require_privileged(self) -> None:
        """Administrators' requests (nodes, reconfigure): anyone else is Slurm 22.05's `Invalid user id`."""
        if not is_privileged(self.state, caller().uid):
            raise SlurmError(Strerror.INVALID_USER_ID)

    def _operator(self, uid: int) -> bool:
        """root, SlurmUser, or AdminLevel Operator/Administrator in accounting."""
        return is_privileged(self.state, uid) or self.state.associations.is_operator(user_name(uid))

    def _coordinated(self, uid: int) -> frozenset[str]:
        """The accounts the caller coordinates (with their sub-accounts), as accounting last said."""
        return self.state.associations.coord_accounts(user_name(uid))


def srun_address(peer: str, controller_addr: str) -> str:
    """Where a step's nodes reach srun: the address its request came from (through the auth
    agent on srun's host), or, for an srun on the controller's host that came over loopback
    (127.0.1.1 for the host name on Debian), the controller's address, which every node reaches."""
    host = peer_host(peer)
    if host == "::1" or host.startswith("127."):
        return controller_addr or host
    return host


def peer_host(peer: str) -> str:
    """The address in a gRPC peer string (`ipv4:10.0.0.5:41234`, `ipv6:[::1]:41234`)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    return "127.0.0.1"
