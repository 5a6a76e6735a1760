"""sshare's command line: every option of Slurm 22.05's sshare(1), as plain data.

Rows as in sbatch.py, in the order of Slurm's long_options. --help and --usage print the same
text; -h is a second spelling of -n; -q and -t are in Slurm's optstring without an action, so
they end the command with its "getopt error" line (cli/sshare.py)."""
from ..getopt_long import LIST, NONE, REQUIRED

PROG = 'sshare'
OPTIONS = (
    ('accounts', 'A', LIST, 'accounts', (),
     '    -A or --accounts=      display specific accounts (comma separated list)'),
    ('all', 'a', NONE, 'all', (),
     '    -a or --all            list all users                                  '),
    ('helpformat', 'e', NONE, 'helpformat', (),
     "    -e or --helpformat     Print a list of fields that can be specified    \n                           with the '--format' option                      "),
    ('long', 'l', NONE, 'long', (),
     '    -l or --long           include normalized usage in output              '),
    ('partition', 'm', NONE, 'partition', (),
     '    -m or --partition      print the partition part of the association     '),
    ('cluster', 'M', REQUIRED, 'clusters', (),
     '    -M or --cluster=names  clusters to issue commands to.                  \n                           NOTE: SlurmDBD must be up.                      '),
    ('clusters', 'M', REQUIRED, 'clusters', (),
     ''),
    ('noheader', 'n', NONE, 'noheader', (),
     '    -n or --noheader       omit header from output                         '),
    ('format', 'o', LIST, 'format', (),
     '    -o or --format=        Comma separated list of fields (use             \n                           "--helpformat" for a list of available fields).'),
    ('parsable', 'p', NONE, 'parsable', (),
     "    -p or --parsable       '|' delimited output with a trailing '|'        "),
    ('parsable2', 'P', NONE, 'parsable2', (),
     "    -P or --parsable2      '|' delimited output without a trailing '|'     "),
    ('users', 'u', LIST, 'users', (),
     '    -u or --users=         display specific users (comma separated list)   '),
    ('Users', 'U', NONE, 'users_only', (),
     '    -U or --Users          display only user information                   '),
    ('verbose', 'v', NONE, 'verbose', (),
     '    -v or --verbose        display more information                        '),
    ('version', 'V', NONE, 'version', (),
     '    -V or --version        display tool version number                     '),
    ('help', '', NONE, 'help', (),
     '          --help           display this usage description                  '),
    ('usage', '', NONE, 'help', (),
     '          --usage          display this usage description                  \n                                                                           '),
    ('', 'h', NONE, 'noheader', (),
     ''),
    ('', 'q', NONE, 'getopt_q', (),
     ''),
    ('', 't', REQUIRED, 'getopt_t', (),
     ''),
)
HELP_USAGE = 'Usage:  sshare [OPTION]                                                    '
HELP_LAYOUT = (
    '  Valid OPTIONs are:                                                       ',
    '--all',
    '--accounts',
    '--helpformat',
    '--long',
    '--partition',
    '--cluster',
    '--noheader',
    '--format',
    '--parsable',
    '--parsable2',
    '--users',
    '--Users',
    '--verbose',
    '--version',
    '--help',
    '--usage',
    '',
)
USAGE = ()   # --usage prints the help text, as Slurm's sshare does
