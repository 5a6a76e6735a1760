"""sprio output: default formats built from the weights, ``%`` letters, header, weights and job lines.

Owns spec cli-sacct-sacctmgr-sprio-sshare.md §4. Rendering (widths, ``.`` right-justification,
truncation of values and headers) is squeue's (§0.1 of the squeue spec), shared through
:mod:`cli.squeue_format`. Weighted factors print as whole numbers (``%.0f``), normalized ones
with seven decimals, ``%y`` as the priority over 2^32 − 1 (``%16.14f``).

Pure: the controller's reply comes in, strings go out. Errors: a bad ``-o`` letter raises
:class:`cli.squeue_format.FormatError` (``Invalid job format specification: <c>``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pyslurm_common.rpc import messages as pb

from .squeue_format import FormatError, LineFormat, parse_percent_format, render_cell

Factors = pb.PriorityFactorsInfo
Weights = pb.PriorityWeights
MAX_PRIORITY = 0xFFFFFFFF
LONG_FORMAT = "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T"
NORMALIZED_LONG_FORMAT = "%.15i %9r %.8u %10y %10S %10a %10b %10f %10j %10p %10q %11N %20t"
# (weight name, weighted letter, normalized letter), in the order the default format adds them.
_FACTOR_COLUMNS = (("age", "A", "a"), ("assoc", "B", "b"), ("fairshare", "F", "f"), ("job_size", "J", "j"),
                   ("partition", "P", "p"), ("qos", "Q", "q"))


@dataclass(frozen=True, slots=True)
class _Field:
    header: str
    value: Callable[[Factors, Weights], str]         # a job's cell
    weight: Callable[[Weights], str]                 # the -w row's cell


def _whole(number: float) -> str:
    return f"{number:.0f}"


def _factor(name: str, normalized: bool) -> tuple[Callable[[Factors, Weights], str], Callable[[Weights], str]]:
    attribute = "partition_factor" if name == "partition" else name

    def value(job: Factors, weights: Weights) -> str:
        weight = getattr(weights, name)
        factor = getattr(job, attribute)
        if normalized:
            return f"{factor if weight else 0.0:.7f}"
        return _whole(weight * factor)

    return value, lambda weights: str(getattr(weights, name))


def _tres(normalized: bool) -> Callable[[Factors, Weights], str]:
    def value(job: Factors, weights: Weights) -> str:
        items = [(t.name, t.factor if normalized else t.factor * t.weight) for t in job.tres if t.factor * t.weight]
        return ",".join(f"{name}={amount:.2f}" if normalized else f"{name}={amount:.0f}" for name, amount in items)

    return value


def _fields() -> dict[str, _Field]:
    blank = lambda weights: ""  # noqa: E731 - a table of one-liners
    fields = {
        "i": _Field("JOBID", lambda j, w: str(j.job_id), lambda w: "Weights"),
        "r": _Field("PARTITION", lambda j, w: j.partition, blank),
        "u": _Field("USER", lambda j, w: j.user_name, blank),
        "Y": _Field("PRIORITY", lambda j, w: str(j.priority), blank),
        "y": _Field("PRIORITY", lambda j, w: f"{j.priority / MAX_PRIORITY:16.14f}", blank),
        "S": _Field("SITE", lambda j, w: "0" if j.fixed else str(j.site), lambda w: "1"),
        "N": _Field("NICE", lambda j, w: "0" if j.fixed else str(j.nice), blank),
        "T": _Field("TRES", _tres(False), lambda w: w.tres),
        "t": _Field("TRES", _tres(True), blank),
    }
    headers = {"age": "AGE", "assoc": "ASSOC", "fairshare": "FAIRSHARE", "job_size": "JOBSIZE",
               "partition": "PARTITION", "qos": "QOS"}
    for name, upper, lower in _FACTOR_COLUMNS:
        fields[upper] = _Field(headers[name], *_factor(name, normalized=False))
        fields[lower] = _Field(headers[name], *_factor(name, normalized=True))
    return fields


FIELDS = _fields()
LETTERS = {letter: letter for letter in FIELDS}


def default_format(weights: Weights, *, long: bool, normalized: bool, users: bool) -> str:
    """sprio's format when -o is not given: the factors whose weight is set (all with -l)."""
    if long:
        return NORMALIZED_LONG_FORMAT if normalized else LONG_FORMAT
    parts = ["%.15i", "%9r"]
    if users:
        parts.append("%.8u")
    parts += ["%10y", "%10S"] if normalized else ["%.10Y", "%.10S"]
    for name, upper, lower in _FACTOR_COLUMNS:
        if getattr(weights, name):
            parts.append(f"%10{lower}" if normalized else f"%.10{upper}")
    if weights.tres:
        parts.append("%20t" if normalized else "%.20T")
    return " ".join(parts)


def parse_format(fmt: str) -> LineFormat:
    """An unknown letter is left out, its suffix too, and listed in ``unknown`` (Slurm 22.05's sprio)."""
    return parse_percent_format(fmt, LETTERS, "job", invalid="drop")


def _line(fmt: LineFormat, cell: Callable[[_Field], str]) -> str:
    parts = [fmt.prefix]
    for col in fmt.columns:
        parts.append(render_cell(cell(FIELDS[col.key]), col.width, col.right))
        parts.append(col.suffix)
    return "".join(parts)


# -S keys (sprio's sort.c): letter -> sort value; weighted and normalized letters sort alike.
_SORT_KEYS: dict[str, Callable[[Factors], object]] = {
    "c": lambda j: "", "i": lambda j: j.job_id, "N": lambda j: j.nice, "r": lambda j: j.partition,
    "u": lambda j: j.user_name, "A": lambda j: j.age, "F": lambda j: j.fairshare, "J": lambda j: j.job_size,
    "P": lambda j: j.partition_factor, "Q": lambda j: j.qos, "T": lambda j: sum(t.factor * t.weight for t in j.tres),
    "Y": lambda j: j.priority,
}
for _letter in "afjpqty":
    _SORT_KEYS[_letter] = _SORT_KEYS[_letter.upper()]


def sort_jobs(jobs: Sequence[Factors], spec: str = "i") -> list[Factors]:
    """-S: stable sorts from the last key to the first, `-` before a key for descending; an
    unknown letter raises FormatError("Invalid sort specification: <c>")."""
    ordered = sorted(jobs, key=lambda j: (j.job_id, j.partition))
    for position in range(len(spec) - 1, -1, -1):
        letter = spec[position]
        if letter in ",-+":
            continue
        if letter not in _SORT_KEYS:
            raise FormatError(f"Invalid sort specification: {letter}")
        ordered.sort(key=_SORT_KEYS[letter], reverse=position > 0 and spec[position - 1] == "-")
    return ordered


def render(fmt: LineFormat, jobs: Sequence[Factors], weights: Weights, *, header: bool = True,
           weights_only: bool = False, sort: str = "i") -> list[str]:
    """Header (unless -h), then the Weights row (-w) or one line per job, in -S order (job id)."""
    lines = [_line(fmt, lambda f: f.header)] if header else []
    if weights_only:
        return [*lines, _line(fmt, lambda f: f.weight(weights))]
    for job in sort_jobs(jobs, sort):
        lines.append(_line(fmt, lambda f: f.value(job, weights)))   # noqa: B023 - used at once
    return lines
