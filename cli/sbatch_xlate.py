"""A batch script's `#BSUB` (LSF) or `#PBS` (Torque, PBS Pro) directives, as Slurm 22.05's sbatch
translates them into its own options (its xlate.c), unless --ignore-pbs is given.

The rules users meet: the first type of the two (#BSUB, else #PBS) found is translated, the
other left alone; every line of the script that starts with the magic word counts (not only
the header), until more than 100 lines that are not comments have passed; the words of all of
them are read by getopt as one command line, in "+" mode; each translated option acts as the
sbatch option it becomes, after the #SBATCH directives and before the environment and the
command line (which override it). A word getopt refuses ends sbatch with glibc's message and
`Unrecognized command line parameter ?`; a word left after the options with `Invalid argument`.

Pure but for those refusals: script text and the #SBATCH values in, (destination, value) pairs
of sbatch's table out (cli/option_tables/sbatch.py), plus `umask`, which Slurm sets without a
long name (PBS `-W umask=`).
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

from .app import die
from .getopt_long import NONE, OPTIONAL, REQUIRED, GetoptError, Row, getopt
from .sbatch_script import line_words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Option = tuple[str, "Any"]
ERROR_EXIT = 1
NON_COMMENT_LIMIT = 100   # Slurm stops looking after this many lines that do not start with '#'

BSUB: tuple[Row, ...] = tuple((name, letter, kind, letter, (), "") for name, letter, kind in (
    ("cwd", "c", REQUIRED), ("error_file", "e", REQUIRED), ("job_name", "J", REQUIRED), ("hostname", "m", REQUIRED),
    ("memory_limit", "M", REQUIRED), ("", "n", REQUIRED), ("output_file", "o", REQUIRED),
    ("queue_name", "q", REQUIRED), ("time", "W", REQUIRED), ("exclusive", "x", NONE)))
PBS: tuple[Row, ...] = tuple((name, letter, kind, letter, (), "") for name, letter, kind in (
    ("start_time", "a", REQUIRED), ("account", "A", REQUIRED), ("checkpoint", "c", REQUIRED),
    ("working_dir", "C", REQUIRED), ("error", "e", REQUIRED), ("hold", "h", NONE), ("interactive", "I", NONE),
    ("join", "", OPTIONAL), ("", "j", REQUIRED), ("job_array", "J", REQUIRED), ("keep", "k", REQUIRED),
    ("resource_list", "l", REQUIRED), ("mail_options", "m", REQUIRED), ("mail_user_list", "M", REQUIRED),
    ("job_name", "N", REQUIRED), ("out", "o", REQUIRED), ("priority", "p", REQUIRED),
    ("destination", "q", REQUIRED), ("rerunable", "r", REQUIRED), ("script_path", "S", REQUIRED),
    ("array", "t", REQUIRED), ("running_user", "u", REQUIRED), ("variable_list", "v", REQUIRED),
    ("all_env", "V", NONE), ("attributes", "W", REQUIRED), ("no_std", "z", NONE)))
PBS_JOIN = ("join", "", OPTIONAL, "j", (), "")   # --join takes an optional argument, -j a required one


def translated_directives(text: str, source: str, current: Mapping[str, Any]) -> list[Option]:
    """The options the script's #BSUB lines, else its #PBS lines, stand for; [] with neither.
    `current` holds what the #SBATCH directives set (-v, proc= and naccelerators= add to it)."""
    for magic, table, translate in (("#BSUB", BSUB, _bsub), ("#PBS", (*PBS[:7], PBS_JOIN, *PBS[8:]), _pbs)):
        words = _magic_words(text, source, magic)
        if words is None:
            continue
        try:
            parsed = getopt(words, table)
        except GetoptError as exc:
            print(f"sbatch: {exc}", file=sys.stderr)
            die("Unrecognized command line parameter ?", exit_code=ERROR_EXIT)
        if parsed.operand_index < len(words):
            die(f"Invalid argument: {words[parsed.operand_index]}", exit_code=ERROR_EXIT)
        state = dict(current)
        out: list[Option] = []

        def emit(dest: str, value: Any) -> None:
            state[dest] = value
            out.append((dest, value))

        for letter, value in parsed.options:
            translate(letter, value, state, emit)
        return out
    return []


def pbs_umask(text: str) -> int:
    """PBS `-W umask=` as Slurm's sbatch reads it: strtol with base 0 (077 octal, 0x1f hex, 77
    decimal), at most 0777, else its error."""
    body = text.strip()
    sign = -1 if body[:1] == "-" else 1
    body = body.lstrip("+-")
    base = 16 if body[:2].lower() == "0x" else 8 if body[:1] == "0" and len(body) > 1 else 10
    digits = "0123456789abcdef"[:base]
    start = 2 if base == 16 else 0
    end = start
    while end < len(body) and body[end].lower() in digits:
        end += 1
    number = sign * int(body[start:end], base) if end > start else 0
    if not 0 <= number <= 0o777:
        die("Invalid -W umask= specification", exit_code=255)   # as every option Slurm refuses while it reads it
    return number


def _magic_words(text: str, source: str, magic: str) -> list[str] | None:
    """The words of every line starting with `magic`; None when there is none. BSUB's `-cwd`
    (a long name after one dash, which getopt cannot read) becomes -c where an option stands."""
    words: list[str] = []
    found, others = False, 0
    for number, line in enumerate(text.split("\n"), 1):
        if not line.startswith(magic):
            others += not line.startswith("#")
            if others > NON_COMMENT_LIMIT:
                break
            continue
        found = True
        for word in line_words(line[len(magic):], source, number):
            if magic == "#BSUB" and len(words) % 2 == 0 and word == "-cwd":
                word = "-c"
            words.append(word)
    return words if found else None


def _bsub(letter: str, value: Any, state: Mapping[str, Any], emit: Callable[[str, Any], None]) -> None:
    if letter == "n":   # `min,max`: the maximum
        low, comma, high = str(value).partition(",")
        if comma and not high:
            die(f"#BSUB -n format not correct given: '{value}'", exit_code=ERROR_EXIT)
        emit("ntasks", high if comma else low)
    elif letter == "m":
        emit("nodelist", str(value).replace(" ", ","))
    elif letter == "M":   # LSF's unit is the kilobyte
        emit("mem_per_cpu", f"{value}K" if str(value)[-1:].isdigit() else value)
    elif letter == "x":
        emit("exclusive", "")
    else:
        emit({"c": "chdir", "e": "error", "J": "job_name", "o": "output", "q": "partition", "W": "time"}[letter], value)


_PBS_DIRECT = {"a": "begin", "A": "account", "e": "error", "o": "output", "J": "array", "t": "array",
               "M": "mail_user", "N": "job_name", "p": "nice", "q": "partition"}


def _pbs(letter: str, value: Any, state: Mapping[str, Any], emit: Callable[[str, Any], None]) -> None:
    if letter in _PBS_DIRECT:
        emit(_PBS_DIRECT[letter], value)
    elif letter == "h":
        emit("hold", True)
    elif letter == "l":
        _resource_list(str(value), state, emit)
    elif letter == "m":
        emit("mail_type", _mail_type(str(value)))
    elif letter == "v":
        emit("export", f"{state['export']},{value}" if state.get("export") else value)
    elif letter == "W":
        attribute = str(value)
        if attribute[:6].lower() == "umask=":
            if _flag_set(attribute[6:]):
                emit("umask", attribute[6:])
        elif attribute[:7].lower() == "depend=":
            emit("dependency", attribute[7:])
        elif state.get("verbose"):
            print(f"sbatch: Ignored PBS attributes: {attribute}", file=sys.stderr)
    # c, C, I, j, k, r, S, u, V, z: read and passed over, as Slurm does


def _flag_set(text: str) -> bool:
    """Slurm's umask option takes no argument: a value sets it only if empty, "yes" or a whole
    decimal number other than 0 (`077` does; `0x1f` and `0` leave the umask alone)."""
    body = text.lstrip()
    digits = body[1:] if body[:1] in "+-" else body
    return text == "" or text.lower() == "yes" or (digits.isdigit() and int(digits) != 0)


def _mail_type(letters: str) -> str:
    """-m's letters: b BEGIN, e END, a FAIL; n NONE; none of them: no value, which Slurm refuses."""
    if "n" in letters.lower():
        return "NONE"
    return ",".join(kind for letter, kind in (("b", "BEGIN"), ("e", "END"), ("a", "FAIL")) if letter in letters.lower())


def _value(text: str, i: int, stop: str) -> tuple[str, int]:
    """From `i` to the next `stop` (or the end), and where to read on (after the `stop`)."""
    end = text.find(stop, i)
    return (text[i:], len(text)) if end < 0 else (text[i:end], end + 1)


def _skip(text: str, i: int) -> int:
    """Past the next comma (or to the end)."""
    return _value(text, i, ",")[1]


def _no_unit_b(size: str) -> str:
    """Torque's `2gb`: Slurm drops the trailing b."""
    return size[:-1] if size[-1:].upper() == "B" else size


# -l keywords that become one sbatch option: keyword -> (case matters, value ends at, option,
# PBS Pro's bit: select 1, ncpus 2, mpiprocs 4)
_RESOURCES: dict[str, tuple[bool, str, str, int]] = {
    "cput=": (True, ",", "time", 0), "pcput=": (True, ",", "time", 0), "walltime=": (True, ",", "time", 0),
    "file=": (True, ",", "tmp", 0), "mem=": (True, ",", "mem", 0), "nice=": (True, ",", "nice", 0),
    "select=": (False, ":", "nodes", 1), "ncpus=": (False, ":", "mincpus", 2),
    "mpiprocs=": (False, ":", "ntasks_per_node", 4),
}
_PASSED_OVER = ("arch=", "host=", "opsys=", "other=", "pmem=", "pvmem=", "software=", "vmem=")   # to the next comma


def _resource_list(text: str, state: Mapping[str, Any], emit: Callable[[str, Any], None]) -> None:
    """-l, read as Slurm reads it: a keyword is looked for at every position (after the known
    ones' values are taken), so `proc=` also skips the option after it, as in Slurm."""
    i, gpus, pro = 0, 0, 0
    while i < len(text):
        rest = text[i:]
        lower = rest.lower()
        keyword = next((k for k, (exact, *_more) in _RESOURCES.items()
                        if (rest if exact else lower).startswith(k)), None)
        if keyword is not None:
            _exact, stop, dest, bit = _RESOURCES[keyword]
            value, i = _value(text, i + len(keyword), stop)
            pro |= bit
            emit(dest, _no_unit_b(value) if dest in ("tmp", "mem") else value)
        elif rest.startswith(_PASSED_OVER):
            i = _skip(text, i + rest.index("=") + 1)
        elif lower.startswith("accelerator="):
            i += 12
            if text[i:i + 4].lower() == "true" and gpus < 1:
                gpus = 1
        elif lower.startswith("naccelerators="):
            value, i = _value(text, i + 14, ",")
            from .srun_step_options import parse_int

            gpus = parse_int(value, "naccelerators", positive=True)
        elif rest.startswith("nodes="):
            value, i = _value(text, i + 6, ",")
            _nodes(value, emit)
        elif rest.startswith("proc="):
            value, i = _value(text, i + 5, ",")
            emit("constraint", f"{value},{state['constraint']}" if state.get("constraint") else value)
            i = _skip(text, i)
        else:
            i += 1
    cpus, per_node = _c_int(str(state.get("mincpus") or "")), _c_int(str(state.get("ntasks_per_node") or ""))
    if pro == 7 and per_node > 0 and cpus > per_node:   # PBS Pro's ncpus per chunk shared by its mpiprocs
        emit("cpus_per_task", str(cpus // per_node))
    if gpus > 0:
        emit("gres", f"{state['gres']},gpu:{gpus}" if state.get("gres") else f"gpu:{gpus}")


def _nodes(text: str, emit: Callable[[str, Any], None]) -> None:
    """nodes=: counts (`2`), host names (`n1+n2`), `:ppn=` tasks per node, `:gpus=` per node."""
    i, ppn, count, hosts = 0, 0, 0, []
    while i < len(text):
        rest = text[i:]
        if rest.startswith(("gpus=", "ppn=")) or rest[:1].isalpha():
            start = i + (5 if rest.startswith("gpus=") else 4 if rest.startswith("ppn=") else 0)
            end = start
            while end < len(text) and text[end] not in "+:":
                end += 1
            if rest.startswith("gpus="):
                emit("gpus_per_node", text[start:end])
            elif rest.startswith("ppn="):
                ppn += _c_int(text[start:end])
            else:
                hosts.append(text[start:end])
            i = end + 1
        elif rest[:1].isdigit():
            count += _c_int(rest)
            while i < len(text) and text[i] not in "+:":
                i += 1
            i += 1
        else:
            i += 1
    if count:
        emit("nodes", str(count))
    if ppn:
        emit("ntasks", str(ppn * max(count, 1)))
    if hosts:
        from pyslurm_common.hostlist import compress

        emit("nodelist", compress(hosts, sort=False))


def _c_int(text: str) -> int:
    """strtol's leading number of `text` (0 when none)."""
    digits = text.lstrip()
    sign = digits[:1] if digits[:1] in "+-" else ""
    body = digits[len(sign):]
    end = len(body) - len(body.lstrip("0123456789"))
    return int(sign + body[:end]) if end else 0
