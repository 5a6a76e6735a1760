"""The controller's records (jobs, nodes, associations, reservations), its events with their
versioned codec, its effects, and the job state transition table.
"""
