"""Running code a learner wrote, contained: a process of its own under bubblewrap (`bwrap`).

Inside, the process sees a read-only view of only what it needs (the system's shared
libraries, the Python interpreter and its standard library, NumPy, the harness, its own inputs)
and a small private /tmp; no project files, no network (a network namespace of its own, with
no interface up), no other processes (a PID namespace of its own), no environment from the
service, no capabilities. Its limits: CPU time, address space, processes, open files, the size
of a file it writes, and what it prints; the service kills it past a wall-clock timeout.

The service may run as root (CI and this machine do): bubblewrap then keeps only the right to
change user, and the harness, before it reads the learner's code, becomes an unprivileged user
of its own (`SANDBOX_UID` and up), so the process limit counts the sandbox's processes alone.
Run as another user, bubblewrap makes a user namespace, and the process limit counts that
user's processes, so the limit is set that many above what the user already runs.

Where `bwrap` is missing (or cannot make its namespaces), `available()` says why and nothing
runs: code is never run outside the sandbox.
"""

from __future__ import annotations

import functools
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HARNESS = Path(__file__).resolve().with_name("sandbox_harness.py")
SANDBOX_UID = int(os.environ.get("SANDBOX_UID", "64000"))
UID_POOL = 1000
"""The harness takes a user of its own among this many from SANDBOX_UID (by the worker's process
id), so two sandboxes at once seldom share the process limit."""


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 10
    wall_seconds: float = 20.0
    case_seconds: float = 5.0
    memory_bytes: int = 1024 * 1024 * 1024
    processes: int = 16
    open_files: int = 64
    file_bytes: int = 8 * 1024 * 1024
    output_bytes: int = 4 * 1024 * 1024
    tmp_bytes: int = 16 * 1024 * 1024


@dataclass
class Outcome:
    """How a run ended and what came out: the harness's messages in order (each a dict), and
    why it ended early, if it did."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    exit_code: int | None = None
    signal: str = ""
    timed_out: bool = False
    output_too_large: bool = False
    unreadable_lines: int = 0
    seconds: float = 0.0

    @property
    def finished(self) -> bool:
        return any(message.get("done") for message in self.messages)


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot make its namespaces here: no code runs."""


def _python() -> Path:
    """The interpreter itself, not a virtual environment's copy of it (which would name the
    project's folder)."""
    return Path(os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable))


def _numpy_dirs() -> list[Path]:
    import numpy

    package = Path(numpy.__file__).resolve().parent
    return [p for p in (package, package.with_name("numpy.libs")) if p.exists()]


def _system_libraries() -> list[str]:
    """bubblewrap's arguments for the shared-library folders, each bound, or made the link the
    system has (on a merged /usr, /lib is a link to usr/lib)."""
    arguments = []
    for name in ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"):
        path = Path(name)
        if path.is_symlink():
            arguments += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            arguments += ["--ro-bind", name, name]
    return arguments


def bwrap_arguments(*, inputs: Path, uid: int, limits: Limits, root: bool) -> list[str]:
    """The bubblewrap command line around the harness, reading `inputs` at /in."""
    python = _python()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    arguments = [
        "bwrap",
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "HOME", "/tmp",
        "--setenv", "OPENBLAS_NUM_THREADS", "1",
        "--setenv", "OMP_NUM_THREADS", "1",
        "--proc", "/proc",
        "--dev", "/dev",
        "--perms", "01777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
    ]  # fmt: skip
    arguments += _system_libraries()
    arguments += ["--ro-bind", str(python), str(python)]
    arguments += ["--ro-bind", str(stdlib), str(stdlib)]
    # The interpreter's own installed packages stay out of sight.
    site = stdlib / "site-packages"
    if site.exists():
        arguments += ["--size", "4096", "--tmpfs", str(site)]
    shared = sysconfig.get_config_var("LDLIBRARY")
    libdir = sysconfig.get_config_var("LIBDIR")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and shared and libdir:
        for library in sorted(Path(libdir).glob(f"{shared}*")):
            arguments += ["--ro-bind", str(library), str(library)]
    for folder in _numpy_dirs():
        arguments += ["--ro-bind", str(folder), f"/sandbox/site/{folder.name}"]
    arguments += [
        "--ro-bind", str(HARNESS), "/sandbox/harness.py",
        "--ro-bind", str(inputs), "/in",
        "--chdir", "/tmp",
    ]  # fmt: skip
    if root:
        # Only the right to become the sandbox's own user; the harness uses it, once.
        arguments += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        arguments += ["--unshare-user", "--uid", str(os.getuid()), "--gid", str(os.getgid())]
    arguments += ["--", str(python), "-I", "-S", "-B", "/sandbox/harness.py"]
    return _with_parents(arguments)


def _with_parents(arguments: list[str]) -> list[str]:
    """The arguments with each folder above a bound path made first, readable by anyone (left
    to bubblewrap, they would be root's alone, and the harness's user could not pass them)."""
    made: list[str] = []
    for index, argument in enumerate(arguments):
        if argument in ("--ro-bind", "--bind", "--tmpfs", "--symlink") and index + 2 < len(
            arguments
        ):
            target = arguments[index + 1] if argument == "--tmpfs" else arguments[index + 2]
            for parent in reversed(Path(target).parents):
                if str(parent) != "/" and str(parent) not in made:
                    made.append(str(parent))
    folders = [a for path in made for a in ("--perms", "0755", "--dir", path)]
    first = arguments.index("--proc")
    return arguments[:first] + folders + arguments[first:]


def _processes_of(uid: int) -> int:
    """How many processes (threads included) the user runs now."""
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            count += int(fields.get("Threads", "1").strip() or 1)
    return count


@functools.cache
def unavailable_reason() -> str:
    """Why code cannot run here ("" when it can): bwrap missing, or failing to make its
    namespaces. Checked once per process, by running the harness on nothing."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed on the server"
    try:
        outcome = run(function="probe", cases=[], source="def probe():\n    return 0\n")
    except (OSError, SandboxUnavailable) as error:
        return f"bubblewrap cannot start here: {error}"
    if not outcome.finished:
        return f"bubblewrap cannot start here (exit {outcome.exit_code}, {outcome.signal})"
    return ""


def available() -> bool:
    return not unavailable_reason()


@contextmanager
def _inputs(files: dict[str, bytes]) -> Iterator[Path]:
    """A folder the sandbox reads at /in (readable by any user: the harness reads it as its
    own), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="residual-sandbox-"))
    try:
        folder.chmod(0o755)
        for name, data in files.items():
            path = folder / name
            path.write_bytes(data)
            path.chmod(0o644)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(
    *,
    function: str,
    cases: Sequence[dict[str, Any]],
    source: str,
    arrays: dict[str, bytes] | None = None,
    limits: Limits | None = None,
    on_message: Callable[[dict[str, Any]], None] | None = None,
) -> Outcome:
    """Runs `source`'s `function` on each case in the sandbox; `on_message` is given each of
    the harness's messages as it comes. `cases` are the plan's (name, order of arguments,
    plain `values`, and the name of its `arrays` file among `arrays`)."""
    if shutil.which("bwrap") is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    limits = limits or Limits()
    root = os.geteuid() == 0
    uid = SANDBOX_UID + os.getpid() % UID_POOL if root else os.getuid()
    processes = limits.processes if root else _processes_of(uid) + limits.processes
    site = "/sandbox/site"
    plan = {
        "function": function,
        "cases": list(cases),
        "uid": uid,
        "site": site,
        "case_seconds": limits.case_seconds,
        "limits": {
            "cpu_seconds": limits.cpu_seconds,
            "memory_bytes": limits.memory_bytes,
            "processes": processes,
            "open_files": limits.open_files,
            "file_bytes": limits.file_bytes,
        },
    }
    files = {"plan.json": json.dumps(plan).encode(), "solution.py": source.encode()}
    files.update(arrays or {})
    with _inputs(files) as folder:
        command = bwrap_arguments(inputs=folder, uid=uid, limits=limits, root=root)
        return _supervised(command, limits=limits, on_message=on_message)


def _supervised(
    command: list[str],
    *,
    limits: Limits,
    on_message: Callable[[dict[str, Any]], None] | None,
) -> Outcome:
    """Runs the command in a session of its own, reading its lines as they come, and kills it
    all past the wall-clock limit or the output limit."""
    outcome = Outcome()
    began = time.monotonic()
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    assert process.stdout is not None
    pending, read = b"", 0
    watcher = selectors.DefaultSelector()
    watcher.register(process.stdout, selectors.EVENT_READ)
    try:
        while True:
            left = limits.wall_seconds - (time.monotonic() - began)
            if left <= 0:
                outcome.timed_out = True
                break
            if not watcher.select(timeout=left):
                continue
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            read += len(chunk)
            if read > limits.output_bytes:
                outcome.output_too_large = True
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                message = _message(line)
                if message is None:
                    outcome.unreadable_lines += 1
                    continue
                outcome.messages.append(message)
                if on_message is not None:
                    on_message(message)
    finally:
        watcher.close()
        _kill(process)
        process.stdout.close()
    outcome.exit_code = process.returncode
    # Killed, bubblewrap says so (a negative code); its child killed, it exits with 128 + the
    # signal's number.
    code = process.returncode or 0
    number = -code if code < 0 else code - 128 if code > 128 else 0
    if number:
        with suppress(ValueError):
            outcome.signal = signal.Signals(number).name
    outcome.seconds = time.monotonic() - began
    return outcome


def _message(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Ends the run: bubblewrap and, with it, everything in its PID namespace."""
    if process.poll() is None:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()
