"""The controller's slurm.conf settings, parsed once, with file:line errors.
"""
