"""Whether an srun or salloc whose allocation was just granted is still there.

srun and salloc open an allocation response port before they submit (cli/allocation.py) and keep
it for their whole life; the controller connects to it when a pending allocation is granted, as
slurmctld sends RESPONSE_RESOURCE_ALLOCATION there. A client killed while its job pended leaves
nothing listening: the connection is refused, and slurmctld then kills the job ("Killing
interactive JobId=N: Communication connection failure") instead of holding its nodes until the
time limit. Only a refusal counts: a timeout or an unreachable network says nothing certain
about the client, and ending a live user's allocation for it would be worse than waiting.
"""
from __future__ import annotations

import asyncio

CONNECT_TIMEOUT = 10.0   # Slurm's MessageTimeout default
GONE = "Communication connection failure"   # slurm_strerror(SLURM_COMMUNICATIONS_CONNECTION_ERROR)


async def gone(host: str, port: int) -> bool:
    """True when nothing listens on the client's allocation response port any more."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), CONNECT_TIMEOUT)
    except ConnectionRefusedError:
        return True
    except (OSError, TimeoutError):
        return False
    writer.close()
    return False
