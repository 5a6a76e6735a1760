"""The stepd fork server (pyslurm_d/stepd_server.py): what it loads once for every stepd it forks."""
from __future__ import annotations

import subprocess
import sys

WARMED = """
import sys
from pyslurm_d import stepd_server
before = "encodings.idna" in sys.modules
stepd_server._warm_up()
print(before, "encodings.idna" in sys.modules)
"""


def test_the_server_loads_the_idna_codec_each_stepd_would_load_for_srun() -> None:
    """getaddrinfo encodes srun's host with the idna codec: imported in the server, not in every stepd."""
    done = subprocess.run([sys.executable, "-c", WARMED], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]
