"""Running a CLI command the Slurm way: `<prog>: error: <text>` and exit 1 for
every failure, never a Python traceback."""
from __future__ import annotations

import os
import sys

from pyslurm_common.client_settings import UnusableConfig, check_own_config
from pyslurm_common.conf_syntax import ConfigError
from pyslurm_common.errors import SlurmError, Strerror

from .client import ConnectError

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Callable, NoReturn, Sequence


class CliError(Exception):
    def __init__(self, *lines: str, exit_code: int = 1, severity: str = "error") -> None:
        super().__init__(lines[0] if lines else "")
        self.lines = lines
        self.exit_code = exit_code
        self.severity = severity


def die(*lines: str, exit_code: int = 1, severity: str = "error") -> NoReturn:
    raise CliError(*lines, exit_code=exit_code, severity=severity)


def error_exit_code() -> int:
    value = os.environ.get("SLURM_EXIT_ERROR", "")
    return int(value) if value.isdigit() else 1


def run(prog: str, command: Callable[[list[str]], None], args: Sequence[str] | None = None) -> NoReturn:
    """Run a command: a function of the argument words (each parses them with its getopt table,
    cli/option_tables/, so no command imports click on start-up)."""
    argv = list(args) if args is not None else sys.argv[1:]
    code = 0
    try:
        check_own_config()
        _check_text(argv)
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
    except UnusableConfig as exc:
        print(exc.report(prog), file=sys.stderr)
        code = 1        # Slurm's fatal(): not SLURM_EXIT_ERROR
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


def run_as_process(prog: str, command: Callable[[list[str]], None]) -> NoReturn:
    """A command as its process's entry point: run() it, then end the process at once, without the
    interpreter's teardown (freeing every module and object: ~7 ms of a whole sbatch call, for
    nothing the user sees). Only for commands that start no threads, register no exit handlers
    and write nothing but stdout and stderr: those two are flushed first, and the exit code is
    run()'s. If a flush fails, the interpreter's own exit reports it as it always has."""
    from pyslurm_common.rpc import messages

    messages.without_well_known_types()   # these commands build no well-known protobuf type
    try:
        run(prog, command)
    except SystemExit as exc:
        code = exc.code
    assert isinstance(code, int)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and not stream.closed:
            try:
                stream.flush()
            except Exception:   # noqa: BLE001 - the ordinary exit below flushes again and reports it
                raise SystemExit(code) from None
    os._exit(code)


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
