"""Running a CLI command the Slurm way: `<prog>: error: <text>` and exit 1 for
every failure, never a Python traceback."""
from __future__ import annotations

import os
import sys
from typing import Any, NoReturn, Sequence

from pyslurm_common.conf_syntax import ConfigError
from pyslurm_common.errors import SlurmError, Strerror

from .client import ConnectError


class CliError(Exception):
    def __init__(self, *lines: str, exit_code: int = 1, severity: str = "error") -> None:
        super().__init__(lines[0] if lines else "")
        self.lines = lines
        self.exit_code = exit_code
        self.severity = severity


# Commands whose getopt refusals Slurm prints without the 'Try "<prog> --help"' line.
NO_TRY_LINE = frozenset({"sacct", "sstat"})


def die(*lines: str, exit_code: int = 1, severity: str = "error") -> NoReturn:
    raise CliError(*lines, exit_code=exit_code, severity=severity)


def version_option(command: Any) -> Any:
    """-V/--version, as every Slurm command answers it (eager: before anything else is checked)."""
    import click

    from .command_line import VERSION_LINE

    return click.version_option(VERSION_LINE, "-V", "--version", message="%(version)s")(command)


def error_exit_code() -> int:
    value = os.environ.get("SLURM_EXIT_ERROR", "")
    return int(value) if value.isdigit() else 1


def run(prog: str, command: Any, args: Sequence[str] | None = None) -> NoReturn:
    """Run a click command, or a plain function of the argument words (sbatch, srun and salloc:
    their getopt tables need no click, which keeps their start-up short)."""
    argv = list(args) if args is not None else sys.argv[1:]
    code = 0
    try:
        _check_text(argv)
        if callable(getattr(command, "main", None)):
            _click_main(prog, command, argv)
        else:
            command(argv)
    except CliError as exc:
        for line in exc.lines:
            print(f"{prog}: {exc.severity}: {line}", file=sys.stderr)
        code = exc.exit_code
    except ConnectError as exc:
        _print_error(prog, "Unable to contact slurm controller (connect failure)")
        if os.environ.get("PYSLURM_DEBUG"):
            _print_error(prog, str(exc))
        code = error_exit_code()
    except SlurmError as exc:
        if exc.detail:
            _print_error(prog, exc.detail)
        _print_error(prog, exc.strerror)
        code = error_exit_code()
    except ConfigError as exc:
        _print_error(prog, str(exc))
        code = error_exit_code()
    except BrokenPipeError:
        sys.stderr.close()
        code = 0
    except KeyboardInterrupt:
        code = 130
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except Exception:  # noqa: BLE001 - last line of defence: no traceback, no exception name
        _print_error(prog, Strerror.INTERNAL)
        if os.environ.get("PYSLURM_DEBUG"):
            import traceback

            traceback.print_exc()
        code = error_exit_code()
    sys.stdout.flush()
    raise SystemExit(code)


def _click_main(prog: str, command: Any, argv: list[str]) -> None:
    import click

    try:
        command.main(args=argv, prog_name=prog, standalone_mode=False)
    except click.exceptions.Exit as exc:
        raise SystemExit(exc.exit_code)
    except click.UsageError as exc:
        glibc = _getopt_wording(exc, argv)
        if glibc is None:
            _print_error(prog, exc.format_message())
        else:
            print(f"{prog}: {glibc}", file=sys.stderr)
        if prog not in NO_TRY_LINE:
            print(f'Try "{prog} --help" for more information', file=sys.stderr)
        raise SystemExit(error_exit_code())
    except click.Abort:
        raise SystemExit(1)


def _getopt_wording(exc: Exception, argv: list[str]) -> str | None:
    """glibc getopt_long's words for an option click refuses (what Slurm's commands print),
    or None for a refusal of another kind."""
    import click

    name = getattr(exc, "option_name", None) or ""
    if isinstance(exc, click.NoSuchOption):
        if not name.startswith("--"):
            return f"invalid option -- '{name[1:]}'"
        word = next((w for w in argv if w == name or w.startswith(name + "=")), name)
        return f"unrecognized option '{word}'"
    if isinstance(exc, click.BadOptionUsage) and name:
        if "requires an argument" in exc.message:
            return f"option '{name}' requires an argument" if name.startswith("--") else \
                f"option requires an argument -- '{name[1:]}'"
        if "does not take a value" in exc.message:
            return f"option '{name}' doesn't allow an argument"
    return None


def _check_text(argv: list[str]) -> None:
    """Every word must be UTF-8 (what goes on the wire): bytes that are not arrive as lone
    surrogates (Python's surrogateescape), refused here rather than deep inside a request."""
    for word in argv:
        try:
            word.encode()
        except UnicodeEncodeError:
            shown = word.encode(errors="surrogateescape").decode(errors="backslashreplace")
            die(f"Invalid argument (not UTF-8 text): {shown}")


def _print_error(prog: str, text: str) -> None:
    print(f"{prog}: error: {text}", file=sys.stderr)
