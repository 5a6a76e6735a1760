"""sdiag's command line: every option of Slurm 22.05's sdiag(1), as plain data.

Rows as in sbatch.py, in the order of Slurm's long_options (-h is --help here)."""
from ..getopt_long import NONE, REQUIRED

PROG = 'sdiag'
OPTIONS = (
    ('all', 'a', NONE, 'all', (),
     '  -a, --all           all statistics'),
    ('help', 'h', NONE, 'help', (),
     '  --help          show this help message'),
    ('reset', 'r', NONE, 'reset', (),
     '  -r, --reset         reset statistics'),
    ('sort-by-id', 'i', NONE, 'sort_by_id', (),
     '  -i, --sort-by-id    sort RPCs by id'),
    ('cluster', 'M', REQUIRED, 'clusters', (),
     '  -M, --cluster       direct the request to a specific cluster'),
    ('clusters', 'M', REQUIRED, 'clusters', ('SLURM_CLUSTERS',),
     ''),
    ('sort-by-time', 't', NONE, 'sort_by_time', (),
     '  -t, --sort-by-time  sort RPCs by total run time'),
    ('sort-by-time2', 'T', NONE, 'sort_by_time2', (),
     '  -T, --sort-by-time2 sort RPCs by average run time'),
    ('usage', '', NONE, 'usage', (),
     '  --usage         display brief usage message'),
    ('version', 'V', NONE, 'version', (),
     '  -V, --version       display current version number'),
)
HELP_USAGE = 'Usage: sdiag [OPTIONS]'
HELP_LAYOUT = (
    '--all',
    '--reset',
    '--cluster',
    '--sort-by-id',
    '--sort-by-time',
    '--sort-by-time2',
    '--version',
    '',
    'Help options:',
    '--help',
    '--usage',
)
USAGE = (
    'Usage: sdiag [-M cluster] [-aritT]',
)
