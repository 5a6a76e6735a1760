"""sprio's command line: every option of Slurm 22.05's sprio(1), as plain data.

Rows as in sbatch.py, in the order of Slurm's long_options. SPRIO_FORMAT is read by
cli/sprio.py (it yields to -o and -l)."""
from ..getopt_long import NONE, OPTIONAL, REQUIRED

PROG = 'sprio'
OPTIONS = (
    ('noheader', 'h', NONE, 'noheader', (),
     '  -h, --noheader                  no headers on output'),
    ('jobs', 'j', OPTIONAL, 'jobs', (),
     '  -j, --jobs                      comma separated list of jobs\n                                  to view, default is all'),
    ('long', 'l', NONE, 'long', (),
     '  -l, --long                      long report'),
    ('cluster', 'M', REQUIRED, 'clusters', (),
     '  -M, --cluster=cluster_name      cluster to issue commands to.  Default is\n                                  current cluster.  cluster with no name will\n                                  reset to default.\n                                  NOTE: SlurmDBD must be up.'),
    ('clusters', 'M', REQUIRED, 'clusters', ('SLURM_CLUSTERS',),
     ''),
    ('norm', 'n', NONE, 'norm', (),
     '  -n, --norm                      display normalized values'),
    ('format', 'o', REQUIRED, 'format', (),
     '  -o, --format=format             format specification'),
    ('sort', 'S', REQUIRED, 'sort', (),
     ''),
    ('partition', 'p', REQUIRED, 'partition', (),
     '  -p, --partition=partition_name  comma separated list of partitions'),
    ('user', 'u', REQUIRED, 'users', (),
     '  -u, --user=user_name            comma separated list of users to view'),
    ('users', 'u', REQUIRED, 'users', (),
     ''),
    ('verbose', 'v', NONE, 'verbose', (),
     '  -v, --verbose                   verbosity level'),
    ('version', 'V', NONE, 'version', (),
     '  -V, --version                   output version information and exit'),
    ('weights', 'w', NONE, 'weights', (),
     '  -w, --weights                   show the weights for each priority factor'),
    ('federation', '', NONE, 'federation', ('SPRIO_FEDERATION',),
     '      --federation                display jobs in federation if a member of one'),
    ('help', '', NONE, 'help', (),
     '  --help                          show this help message'),
    ('local', '', NONE, 'local', ('SPRIO_LOCAL',),
     '      --local                     display jobs on local cluster only'),
    ('sib', '', NONE, 'sibling', (),
     ''),
    ('sibling', '', NONE, 'sibling', ('SPRIO_SIBLING',),
     '      --sibling                   display job records separately for each federation cluster'),
    ('usage', '', NONE, 'usage', (),
     '  --usage                         display a brief summary of sprio options'),
)
HELP_USAGE = 'Usage: sprio [OPTIONS]'
HELP_LAYOUT = (
    '--federation',
    '--noheader',
    '--jobs',
    '--local',
    '--long',
    '--cluster',
    '--norm',
    '--format',
    '--sibling',
    '--partition',
    '--user',
    '--verbose',
    '--version',
    '--weights',
    '',
    'Help options:',
    '--help',
    '--usage',
)
USAGE = (
    'Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]',
    '   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]',
)
