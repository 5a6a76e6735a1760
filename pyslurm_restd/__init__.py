"""pyslurmrestd: slurmrestd's role. Slurm's REST API (data parsers v0.0.44 and v0.0.43) in front of
the controller and the accounting daemon, OpenMetrics, and a status page."""
