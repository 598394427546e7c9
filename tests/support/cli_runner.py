"""`ragbot ARGS` for tests: run in this test process, or as a real process.

A real `ragbot` process pays about 2.5 s of CPU for its imports before it does
anything, then loads the embedder and jieba again; the command-line tests start
a hundred of them. `run_in_process` runs the console script's own entry
(`bot.cli.main`: a setting that cannot be read exits 2 in one line, logging as
LOG_LEVEL says, then the Typer app) with what a process would have: its
arguments, exactly the environment given, the working directory, empty or given
stdin, stdout and stderr apart (file descriptors 1 and 2 too, so a child
process's output is caught as it would be), no terminal; and it puts back what
it changed. Tests whose point is the process itself (a closed pipe, `serve`,
the script's exit) use `run_process`.

One difference, for CPU: ingestion's chunking and embedding run in threads of
this process (the `--processes 0` path of `ragbot ingest`, and INGEST_PROCESSES=0
for the other commands that ingest, such as `ragbot sources sync`, unless the
test sets it: the same functions, with the model this process has loaded)
instead of starting worker processes that load the model and jieba again (about
4 s of CPU each time, and at INGEST_NICE they wait behind every other test
process). The worker processes are tested in tests/storage/test_ingest_work.py,
and by real processes in tests/cli/test_cli.py (`ragbot ingest`) and
tests/cli/test_cli_confluence.py (`ragbot sources sync`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import sys
import threading
import traceback
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import click
from click.testing import CliRunner

RAGBOT = shutil.which("ragbot", path=str(Path(sys.executable).parent)) or "ragbot"
TIMEOUT_S = 120.0
# what a process whose output goes to a pipe sees: no terminal, so Rich's default width
# (the same whether or not pytest itself runs in a terminal)
NO_TERMINAL = {"COLUMNS": "80", "LINES": "25"}
ENCODING = "utf-8"
# what an in-process run has unless the test says otherwise: ingestion in threads (above)
IN_PROCESS = {"INGEST_PROCESSES": "0"}


def run_process(
    args: Sequence[str], env: dict[str, str], cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`ragbot ARGS` as a real process (never raises on its exit code); stdin is `stdin`
    or empty, never the terminal pytest may run in (Rich would take its width)."""
    given: dict[str, Any] = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        [RAGBOT, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=cwd,
        **given,
    )


def run_in_process(
    args: Sequence[str], env: dict[str, str], cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`ragbot ARGS` run in this process as the console script runs it; the result as
    `subprocess.run(..., capture_output=True, text=True)` returns it."""
    from bot.cli import kb
    from bot.cli import main as entry  # here: a test collection that never runs one skips it

    runner = CliRunner(charset=ENCODING, capture="fd")
    with contextlib.ExitStack() as undo:
        undo.callback(setattr, kb, "usable_cores", kb.usable_cores)
        kb.usable_cores = lambda: 0  # ingest's work in threads (see above)
        undo.enter_context(_process_state(env, cwd))
        result = runner.invoke(
            cast(click.Command, _Entry(entry)),
            list(args),
            input=stdin,
            catch_exceptions=False,  # only the timeout: the entry's exits are exit codes
            prog_name="ragbot",
        )
    return subprocess.CompletedProcess(
        [RAGBOT, *args],
        result.exit_code,
        _as_text(result.stdout_bytes),
        _as_text(result.stderr_bytes),
    )


def _as_text(data: bytes) -> str:
    """Output as `subprocess.run(text=True)` decodes it (universal newlines)."""
    return data.decode(ENCODING).replace("\r\n", "\n").replace("\r", "\n")


class _Entry:
    """The entry where CliRunner calls a click command's `main`, in a thread of its own:
    a command runs its own event loop, and an async test's loop is running here."""

    def __init__(self, entry: Callable[[], None]) -> None:
        self._entry = entry

    def main(self, args: list[str], prog_name: str, **_: Any) -> None:
        sys.argv = [RAGBOT, *args]
        ended: list[SystemExit] = []

        def target() -> None:
            try:
                self._entry()
            except SystemExit as stop:
                ended.append(stop)
            except BaseException:
                # what the interpreter does with an uncaught exception: print it, exit 1
                traceback.print_exc()
                ended.append(SystemExit(1))

        thread = threading.Thread(target=target, name=f"ragbot {' '.join(args)}", daemon=True)
        thread.start()
        thread.join(TIMEOUT_S)
        if thread.is_alive():
            raise TimeoutError(f"`ragbot {' '.join(args)}` still running after {TIMEOUT_S:.0f} s")
        if ended:
            raise ended[0]


@contextlib.contextmanager
def _process_state(env: dict[str, str], cwd: Path) -> Iterator[None]:
    """A fresh process's environment, working directory, argv and root logger (no handler:
    the entry's basicConfig adds the stderr one); everything put back afterwards."""
    environ = dict(os.environ)
    here = os.getcwd()
    argv = sys.argv[:]
    main = sys.modules["__main__"]
    excepthook = sys.excepthook  # Typer installs its own
    root = logging.getLogger()
    handlers, root_level = root.handlers[:], root.level
    levels = {
        name: logger.level
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    try:
        # the script as the main module: click names the program after it (not `python -m
        # pytest.ragbot`), and worker processes started with spawn import it, as they would
        script = types.ModuleType("__main__")
        script.__file__ = RAGBOT
        sys.modules["__main__"] = script
        _replace_environ({**NO_TERMINAL, **IN_PROCESS, **env})
        os.chdir(cwd)
        root.handlers.clear()
        yield
    finally:
        for handler in root.handlers:
            if handler not in handlers:
                handler.close()
        root.handlers[:] = handlers
        root.setLevel(root_level)
        for name, logger in logging.Logger.manager.loggerDict.items():
            if isinstance(logger, logging.Logger) and logger.level != levels.get(name, 0):
                logger.setLevel(levels.get(name, logging.NOTSET))
        sys.excepthook = excepthook
        sys.argv = argv
        sys.modules["__main__"] = main
        os.chdir(here)
        _replace_environ(environ)


def _replace_environ(wanted: dict[str, str]) -> None:
    """Make os.environ exactly `wanted` (changing only what differs)."""
    for key in [k for k in os.environ if k not in wanted]:
        del os.environ[key]
    for key, value in wanted.items():
        if os.environ.get(key) != value:
            os.environ[key] = value
