"""A second "machine" for integration tests: a network namespace with its own address.

`separate_host()` creates a namespace joined to this host by a veth pair (this host gets
`<prefix>.1`, the namespace `<prefix>.2`, a /24 between them) with pyroute2, and removes
both on exit. Processes started through `command()` (`nsenter --net`) see only the
namespace's network: they reach the controller over the veth link, as a node in the next
rack would over the LAN. The filesystem is shared, so each "host" gets its own copy of
the configuration directory the way an admin would copy it.
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Iterator

from pyroute2 import IPRoute, NetNS, netns


@dataclass(frozen=True)
class SeparateHost:
    namespace: str
    address: str          # the namespace's own address
    gateway: str          # this host's address on the link between them
    link: str = ""        # this host's end of the link (an interface name, for MPI's -iface)

    def command(self, *argv: str) -> list[str]:
        # nsenter switches the network namespace only; `ip netns exec` would also remount
        # /sys, hiding the cgroup hierarchies the node agent needs.
        return ["nsenter", f"--net=/run/netns/{self.namespace}", "--", *argv]


@contextlib.contextmanager
def separate_host(prefix: str) -> Iterator[SeparateHost]:
    """`prefix` is the first three octets of an unused /24, e.g. ``10.251.7``."""
    tag = f"{os.getpid() % 10000}{prefix.rsplit('.', 1)[-1]}"
    name, outside, inside = f"pyslurm-h{tag}", f"psh{tag}", f"psn{tag}"
    netns.create(name)
    try:
        with IPRoute() as ipr:
            ipr.link("add", ifname=outside, kind="veth", peer=inside)
            (peer,) = ipr.link_lookup(ifname=inside)
            ipr.link("set", index=peer, net_ns_fd=name)
            (host_end,) = ipr.link_lookup(ifname=outside)
            ipr.addr("add", index=host_end, address=f"{prefix}.1", prefixlen=24)
            ipr.link("set", index=host_end, state="up")
        with NetNS(name) as ns:
            (lo,) = ns.link_lookup(ifname="lo")
            ns.link("set", index=lo, state="up")
            (end,) = ns.link_lookup(ifname=inside)
            ns.addr("add", index=end, address=f"{prefix}.2", prefixlen=24)
            ns.link("set", index=end, state="up")
            # Everything else (the controller's address on another link, say) goes through us.
            ns.route("add", dst="default", gateway=f"{prefix}.1")
        yield SeparateHost(name, f"{prefix}.2", f"{prefix}.1", outside)
    finally:
        with IPRoute() as ipr, contextlib.suppress(Exception):
            for index in ipr.link_lookup(ifname=outside):   # deleting one end removes the pair
                ipr.link("del", index=index)
        netns.remove(name)
