"""The controller's core: the cluster's state (`state.ClusterState`), the one mutator that applies
journaled events to it (`apply.apply`), and the deciders that check requests against it. No asyncio,
clock, files or wire: the shell (controller.py) performs the effects and keeps the journal.
"""
