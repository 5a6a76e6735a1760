"""The scheduling pass: pure `plan(snapshot) -> PassPlan` (dependencies, priority walk, backfill,
preemption) and what it needs (node fit, limits, priorities, fairshare). No ClusterState.
"""
