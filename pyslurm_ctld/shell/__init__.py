"""The controller's shell, the only asyncio, clock and filesystem code: commit = journal -> apply
-> perform the effects; the journal, the accounting outbox, the node links, the notifier.
"""
