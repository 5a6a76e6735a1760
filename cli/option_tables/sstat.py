"""sstat's command line: every option of Slurm 22.05's sstat(1), as plain data.

Rows as in sbatch.py, in the order of Slurm's long_options."""
from ..getopt_long import LIST, NONE, REQUIRED

PROG = 'sstat'
TRY_LINE = False   # sstat prints no 'Try ... --help' line after a refused word
OPTIONS = (
    ('allsteps', 'a', NONE, 'allsteps', (),
     '      -a, --allsteps:                                                       \n                   Print all steps for the given job(s) when no step is     \n                   specified.                                               '),
    ('helpformat', 'e', NONE, 'helpformat', (),
     "      -e, --helpformat:                                                     \n\t           Print a list of fields that can be specified with the    \n\t           '--format' option                                        "),
    ('help', 'h', NONE, 'help', (),
     '     -h, --help:   Print this description of use.                           '),
    ('jobs', 'j', LIST, 'jobs', (),
     "     -j, --jobs:                                                            \n\t           Format is <job(.step)>. Stat this job step               \n                   or comma-separated list of job steps. This option is     \n                   required.  The step portion will default to the lowest   \n                   numbered (not batch, extern, etc) step running if not    \n                   specified, unless the --allsteps flag is set where not   \n                   specifying a step will result in all running steps       \n                   to be displayed. A step id of 'batch' will display the   \n                   information about the batch step. A step id of 'extern'  \n                   will display the information about the extern step       \n                   when using PrologFlags=contain.                          "),
    ('noheader', 'n', NONE, 'noheader', (),
     '     -n, --noheader:                                                        \n\t           No header will be added to the beginning of output.      \n                   The default is to print a header.                        '),
    ('fields', 'o', LIST, 'format', (),
     ''),
    ('format', 'o', LIST, 'format', (),
     '     -o, --format:                                                          \n\t           Comma separated list of fields. (use "--helpformat"    \n                   for a list of available fields).                         '),
    ('noconvert', '', NONE, 'noconvert', (),
     "     --noconvert:  Don't convert units from their original type             \n\t\t   (e.g. 2048M won't be converted to 2G).                   "),
    ('pidformat', 'i', NONE, 'pidformat', (),
     '     -i, --pidformat:                                                       \n                   Predefined format to list the pids running for each      \n                   job step.  (JobId,Nodes,Pids)                            '),
    ('parsable', 'p', NONE, 'parsable', (),
     "     -p, --parsable: output will be '|' delimited with a '|' at the end     "),
    ('parsable2', 'P', NONE, 'parsable2', (),
     "     -P, --parsable2: output will be '|' delimited without a '|' at the end "),
    ('usage', '', NONE, 'usage', (),
     '     --usage:      Display brief usage message.                             '),
    ('verbose', 'v', NONE, 'verbose', (),
     '     -v, --verbose:                                                         \n\t           Primarily for debugging purposes, report the state of    \n                   various variables during processing.                     '),
    ('version', 'V', NONE, 'version', (),
     '     -V, --version: Print version.                                          '),
)
HELP_USAGE = 'sstat [<OPTION>] -j <job(.stepid)>                                          '
HELP_LAYOUT = (
    '    Valid <OPTION> values are:                                              ',
    '--allsteps',
    '--helpformat',
    '--help',
    '--pidformat',
    '--jobs',
    '--noheader',
    '--noconvert',
    '--format',
    '--parsable',
    '--parsable2',
    '--usage',
    '--verbose',
    '--version',
    '',
)
USAGE = (
    'Usage: sstat [options] -j <job(.stepid)>',
    '\tUse --help for help',
)
