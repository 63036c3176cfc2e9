"""The aggregate bandwidths on the way from a job's nodes to the disks: client NICs, routers,
the storage fabric, the servers and the targets written. The least of them is the most the
job could write on the machine (its peak)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from iotwin.model.platforms import Platform


def nodes_used(platform: Platform, work: Mapping[str, Any]) -> int:
    per_node = int(work.get("ranks_per_node") or platform.data["compute"]["cores_per_node"])
    return math.ceil(int(work["ranks"]) / per_node)


def bandwidth_ceilings(platform: Platform, nodes: int, targets: int, servers: int
                       ) -> dict[str, float]:
    """The aggregate bandwidths on the way from ``nodes`` client nodes to the disks, when the
    data lands on ``targets`` OSTs behind ``servers`` servers."""
    data = platform.data
    fs, network = data["filesystem"], data["network"]
    ceilings = {"client NICs": nodes * data["compute"]["nic_mbs"],
                "OSTs written": targets * fs["target_mbs"],
                "servers written": servers * fs["server_mbs"],
                "storage fabric": network["storage_fabric_mbs"]}
    routers = data.get("routers")
    if routers:
        ceilings["routers"] = routers_used(routers, nodes) * routers["bandwidth_mbs"]
    return ceilings


def peak_mbs(platform: Platform, work: Mapping[str, Any]) -> float:
    """The least aggregate bandwidth from the workload's nodes to all the disks."""
    fs = platform.data["filesystem"]
    return float(min(bandwidth_ceilings(platform, nodes_used(platform, work), fs["targets"],
                                        fs["servers"]).values()))


def routers_used(routers: Mapping[str, Any], nodes: int) -> int:
    """The routers a job of ``nodes`` nodes writes through. Client-side routers (BG/P I/O
    nodes) serve psets: a job gets the psets of its partition, at least
    ``min_partition_nodes`` big, and its nodes are spread over them (iosim's place_job)."""
    count = int(routers["count"])
    if routers.get("side") != "client":
        return count
    partition = max(nodes, int(routers.get("min_partition_nodes") or 0))
    return min(count, math.ceil(partition / routers["nodes_per_router"]), nodes)
