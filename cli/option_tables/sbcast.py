"""sbcast's command line: every option of Slurm 22.05's sbcast(1), as plain data.

Rows as in sbatch.py; help lines as Slurm 22.05.8's `sbcast --help` prints them."""
from ..getopt_long import NONE, OPTIONAL, REQUIRED

PROG = 'sbcast'
OPTIONS = (
    ('compress', 'C', OPTIONAL, 'compress', ('SBCAST_COMPRESS',),
     '  -C, --compress[=lib]  compress the file being transmitted'),
    ('exclude', '', REQUIRED, 'exclude', ('SBCAST_EXCLUDE',),
     '  --exclude=<path_list> shared object paths to be excluded'),
    ('force', 'f', NONE, 'force', ('SBCAST_FORCE',),
     '  -f, --force           replace destination file as required'),
    ('fanout', 'F', REQUIRED, 'fanout', ('SBCAST_FANOUT',),
     '  -F, --fanout=num      specify message fanout'),
    ('jobid', 'j', REQUIRED, 'jobid', (),
     '  -j, --jobid=#[+#][.#] specify job ID with optional hetjob offset and/or step ID'),
    ('preserve', 'p', NONE, 'preserve', ('SBCAST_PRESERVE',),
     '  -p, --preserve        preserve modes and times of source file'),
    ('send-libs', '', OPTIONAL, 'send_libs', ('SBCAST_SEND_LIBS',),
     "  --send-libs[=yes|no]  autodetect and broadcast executable's shared objects"),
    ('size', 's', REQUIRED, 'size', ('SBCAST_SIZE',),
     '  -s, --size=num        block size in bytes (rounded off)'),
    ('timeout', 't', REQUIRED, 'timeout', ('SBCAST_TIMEOUT',),
     '  -t, --timeout=secs    specify message timeout (seconds)'),
    ('verbose', 'v', NONE, 'verbose', (),
     '  -v, --verbose         provide detailed event logging'),
    ('version', 'V', NONE, 'version', (),
     '  -V, --version         print version information and exit'),
    ('help', '', NONE, 'help', (),
     '  --help                show this help message'),
    ('usage', '', NONE, 'usage', (),
     '  --usage               display brief usage message'),
)
HELP_USAGE = 'Usage: sbcast [OPTIONS] SOURCE DEST'
HELP_LAYOUT = (
    '--compress', '--exclude', '--force', '--fanout', '--jobid', '--preserve', '--send-libs', '--size',
    '--timeout', '--verbose', '--version', '', 'Help options:', '--help', '--usage',
)
USAGE = (
    'Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] SOURCE DEST',
)
