"""sattach's command line: every option of Slurm 22.05's sattach(1), as plain data.

Rows as in sbatch.py; help lines as Slurm 22.05's `sattach --help` prints them."""
from ..getopt_long import NONE, REQUIRED

PROG = 'sattach'
OPTIONS = (
    ('input-filter', '', REQUIRED, 'input_filter', (),
     '      --input-filter=taskid  send stdin to only the specified task'),
    ('output-filter', '', REQUIRED, 'output_filter', (),
     '      --output-filter=taskid only print stdout from the specified task'),
    ('error-filter', '', REQUIRED, 'error_filter', (),
     '      --error-filter=taskid  only print stderr from the specified task'),
    ('label', 'l', NONE, 'label', (),
     '  -l, --label        prepend task number to lines of stdout & stderr'),
    ('layout', '', NONE, 'layout', (),
     '      --layout       print task layout info and exit (does not attach to tasks)'),
    ('quiet', 'Q', NONE, 'quiet', (),
     '  -Q, --quiet        quiet mode (suppress informational messages)'),
    ('verbose', 'v', NONE, 'verbose', (),
     "  -v, --verbose      verbose mode (multiple -v's increase verbosity)"),
    ('version', 'V', NONE, 'version', (),
     '  -V, --version      print the Slurm version and exit'),
    ('help', 'h', NONE, 'help', (),
     '  -h, --help         print this help message'),
    ('usage', 'u', NONE, 'usage', (),
     '  -u, --usage        print a brief usage message'),
    ('pty', '', NONE, 'pty', (), ''),
    ('debugger-test', '', NONE, 'debugger_test', (), ''),
)
HELP_USAGE = 'Usage: sattach [options] <jobid.stepid>'
HELP_LAYOUT = (
    '--input-filter', '--output-filter', '--error-filter', '--label', '--layout', '--quiet', '--verbose',
    '--version', '', 'Help options:', '--help', '--usage',
)
USAGE = (HELP_USAGE,)
