"""The job fields `scontrol update jobid=N Key=Value` changes in pyslurm: scontrol refuses any other
key before asking, in Slurm's words, and the controller refuses it again from the wire. Stdlib only."""
from __future__ import annotations

JOB_UPDATE_KEYS = frozenset({"dependency", "arraytaskthrottle", "starttime", "account", "qos", "priority", "nice",
                             "timelimit", "timelimit+", "timelimit-", "partition", "numcpus", "reservation",
                             "licenses", "comment"})
