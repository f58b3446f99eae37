"""What runs inside the sandbox: a learner's function called on each case, its results sent back.

Started by `config.sandbox` as `python -I -S -B /sandbox/harness.py` with nothing but the
standard library and NumPy to import. It reads `/in/plan.json` and the learner's
`/in/solution.py`, sets its limits, and, when it starts as root (the service runs as root and
bubblewrap kept only the right to change user), gives up root for the plan's unprivileged user
before reading the learner's code. Each case's arguments come from its `.npz` file in /in
(arrays, some gathered into lists) and the plan (plain values); each result goes back on
standard output as one JSON line, its arrays as `.npy` bytes in base64, as soon as the case is
done. Whatever the learner prints goes to a file in the sandbox's own small /tmp, never to
that stream.

Nothing here decides whether an answer is right: the expected values never enter the sandbox,
and the service compares what comes out. A learner's code can do anything to this process; it
can only spoil its own results.

Kept to the standard library and NumPy: nothing else is there to import.
"""

from __future__ import annotations

import base64
import io
import json
import os
import resource
import signal
import sys
import time
import traceback
from typing import Any

LIMITS = {
    "cpu_seconds": resource.RLIMIT_CPU,
    "memory_bytes": resource.RLIMIT_AS,
    "processes": resource.RLIMIT_NPROC,
    "open_files": resource.RLIMIT_NOFILE,
    "file_bytes": resource.RLIMIT_FSIZE,
}


class CaseTimeout(Exception):
    """A case ran past its own time."""


def send(stream: Any, message: dict[str, Any]) -> None:
    stream.write((json.dumps(message) + "\n").encode())
    stream.flush()


def limit(plan: dict[str, Any]) -> None:
    """The plan's limits on this process and all it starts; no core files."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name, kind in LIMITS.items():
        if name in plan["limits"]:
            value = int(plan["limits"][name])
            # Past its CPU time the process is told (SIGXCPU), then a second later killed.
            hard = value + 1 if kind == resource.RLIMIT_CPU else value
            resource.setrlimit(kind, (value, hard))


def drop_root(plan: dict[str, Any]) -> None:
    """Root (the service's own user, kept by bubblewrap with only the right to change user)
    becomes the plan's unprivileged user, for good; any other user stays as it is."""
    if os.getuid() != 0 and os.geteuid() != 0:
        return
    uid = gid = int(plan["uid"])
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if 0 in os.getresuid() or 0 in os.getresgid():
        raise SystemExit("refusing to run a learner's code as root")


def encoded(value: Any, np: Any) -> list[dict[str, str]]:
    """A result as `.npy` documents: one for an array or a number, one each for a tuple's or a
    list's items."""
    items = value if isinstance(value, tuple | list) else (value,)
    out = []
    for item in items:
        array = np.asarray(item)
        if array.dtype == object:
            raise TypeError(
                f"returned {type(item).__name__}, which is not a number or an array of them"
            )
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        out.append({"npy": base64.b64encode(buffer.getvalue()).decode()})
    return out


def last_line(error: BaseException) -> str:
    """An exception as its traceback's last line, with the learner's line number if any."""
    where = ""
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == "solution.py":
            where = f" (line {frame.lineno})"
    text = "".join(traceback.format_exception_only(type(error), error)).strip().splitlines()
    return (text[-1] if text else type(error).__name__)[:500] + where


def main() -> None:
    stream = os.fdopen(os.dup(1), "wb")
    with open("/in/plan.json", encoding="utf-8") as file:
        plan = json.load(file)
    limit(plan)
    drop_root(plan)
    sys.path.insert(0, plan["site"])
    import numpy as np

    # What the learner prints lands here, in the sandbox's small /tmp.
    printed = open("/tmp/printed.txt", "w", encoding="utf-8", errors="replace")  # noqa: SIM115
    os.dup2(printed.fileno(), 1)
    os.dup2(printed.fileno(), 2)
    sys.stdout = sys.stderr = printed
    with open("/in/solution.py", encoding="utf-8") as file:
        source = file.read()
    scope: dict[str, Any] = {"__name__": "solution"}
    try:
        exec(compile(source, "solution.py", "exec"), scope)
        function = scope.get(plan["function"])
        if not callable(function):
            raise NameError(f"define a function named {plan['function']}")
    except BaseException as error:  # the learner's code may raise anything, SystemExit too
        send(stream, {"setup": "error", "message": last_line(error)})
        return
    send(stream, {"setup": "ok"})

    def overtime(signum: int, frame: Any) -> None:
        raise CaseTimeout()

    signal.signal(signal.SIGALRM, overtime)
    harness = os.getpid()
    for case in plan["cases"]:
        arguments = dict(case.get("values", {}))
        if case.get("arrays"):
            with np.load(f"/in/{case['arrays']}", allow_pickle=False) as stored:
                loaded = {name: stored[name] for name in stored.files}
            for name, keys in case.get("lists", {}).items():
                arguments[name] = [loaded.pop(key) for key in keys]
            arguments.update(loaded)
        began = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, float(plan["case_seconds"]))
        try:
            value = function(**{name: arguments[name] for name in case["order"]})
            signal.setitimer(signal.ITIMER_REAL, 0)
            message = {"case": case["name"], "outputs": encoded(value, np)}
        except CaseTimeout:
            message = {"case": case["name"], "error": "timed out"}
        except MemoryError:
            signal.setitimer(signal.ITIMER_REAL, 0)
            message = {"case": case["name"], "error": "out of memory"}
        except BaseException as error:
            signal.setitimer(signal.ITIMER_REAL, 0)
            message = {"case": case["name"], "error": last_line(error)}
        if os.getpid() != harness:
            os._exit(0)  # a process the learner's code forked: it has nothing to say
        message["seconds"] = round(time.perf_counter() - began, 4)
        send(stream, message)
    send(stream, {"done": True})


if __name__ == "__main__":
    main()
