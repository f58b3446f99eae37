"""A learner's code runs under bubblewrap, contained: each hostile thing it may try is refused
or cut short and reported as such, nothing of it outlives its run, and the process that ran it
carries on. .ci/run installs bubblewrap; without it these tests are skipped, which CI fails."""

from __future__ import annotations

import base64
import io
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from config import sandbox

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (.ci/run installs it)"
)

QUICK = sandbox.Limits(cpu_seconds=2, wall_seconds=6, case_seconds=1.0)


def run(source: str, *, limits: sandbox.Limits = QUICK, cases=None) -> sandbox.Outcome:
    cases = cases if cases is not None else [{"name": "one", "order": ["x"], "values": {"x": 3}}]
    return sandbox.run(function="f", cases=cases, source=source, limits=limits)


def result(outcome: sandbox.Outcome, case: str = "one") -> dict:
    (message,) = [m for m in outcome.messages if m.get("case") == case]
    return message


def values(message: dict) -> list:
    return [
        np.load(io.BytesIO(base64.b64decode(out["npy"])), allow_pickle=False).tolist()
        for out in message["outputs"]
    ]


def sandbox_processes_left() -> list[str]:
    """Processes of the harness's user still running, once those killed with its run have
    been reaped (a moment)."""
    for _ in range(20):
        left = _processes_of_the_sandbox()
        if not left:
            return left
        time.sleep(0.1)
    return left


def _processes_of_the_sandbox() -> list[str]:
    uid = str(sandbox.SANDBOX_UID + os.getpid() % sandbox.UID_POOL if os.geteuid() == 0 else "")
    left = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nUid:\t{uid}\t" in status:
                left.append(entry.name)
    return left if uid else []


def test_the_sandbox_is_available_here():
    sandbox.unavailable_reason.cache_clear()

    assert sandbox.unavailable_reason() == ""


def test_a_function_runs_on_each_case_and_its_results_come_back_as_they_are_done():
    seen = []
    arrays = io.BytesIO()
    np.savez(arrays, x=np.arange(6.0).reshape(2, 3))

    outcome = sandbox.run(
        function="double",
        source="import numpy as np\ndef double(x, by):\n    return x * by, np.sum(x)\n",
        cases=[
            {"name": "small", "order": ["x", "by"], "values": {"x": 2, "by": 3}},
            {"name": "array", "order": ["x", "by"], "values": {"by": 2}, "arrays": "a.npz"},
        ],
        arrays={"a.npz": arrays.getvalue()},
        on_message=seen.append,
    )

    assert outcome.finished
    assert values(result(outcome, "small")) == [6, 2]
    assert values(result(outcome, "array")) == [[[0, 2, 4], [6, 8, 10]], 15.0]
    assert seen == outcome.messages
    assert [m.get("case") for m in seen] == [None, "small", "array", None]


def test_an_error_in_the_code_is_its_last_line_and_where():
    setup = run("def f(x):\n    return x +\n")
    raised = run("def f(x):\n    y = 1\n    return x / 0\n")
    missing = run("def g(x):\n    return x\n")

    assert setup.messages[0]["setup"] == "error"
    assert "SyntaxError" in setup.messages[0]["message"]
    assert result(raised)["error"] == "ZeroDivisionError: division by zero (line 3)"
    assert missing.messages[0]["message"] == "NameError: define a function named f"


def test_the_projects_files_and_the_services_environment_are_not_there():
    here = Path(__file__).resolve()
    settings = here.parents[2] / "config" / "settings.py"

    project = run(f"def f(x):\n    return open({str(settings)!r}).read()\n")
    environment = run("import os\ndef f(x):\n    return sorted(os.environ)\n")
    secret = run("import os\ndef f(x):\n    return os.environ['SECRET_KEY']\n")
    listing = run("import os\ndef f(x):\n    return sorted(os.listdir('/'))\n")

    assert result(project)["error"].startswith("FileNotFoundError")
    assert values(result(environment)) == [
        "HOME", "LANG", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "PWD",
    ]  # fmt: skip
    assert result(secret)["error"] == "KeyError: 'SECRET_KEY' (line 3)"
    assert "work" not in values(result(listing))
    assert "etc" not in values(result(listing))


def test_only_the_standard_library_and_numpy_can_be_imported():
    source = (
        "import importlib\n"
        "def f(x):\n"
        "    found = []\n"
        "    for name in ('json', 'numpy', 'django', 'celery', 'requests', 'engine', 'config'):\n"
        "        try:\n"
        "            importlib.import_module(name)\n"
        "            found.append(name)\n"
        "        except ImportError:\n"
        "            pass\n"
        "    return found\n"
    )

    assert values(result(run(source))) == ["json", "numpy"]


@pytest.mark.parametrize(
    ("address", "error"),
    [("127.0.0.1", "ConnectionRefusedError"), ("203.0.113.7", "OSError: [Errno 101]")],
    ids=["database", "outside"],
)
def test_no_network_reaches_the_database_or_the_outside(address, error):
    source = (
        "import socket\n"
        "def f(x):\n"
        "    s = socket.socket()\n"
        "    s.settimeout(1)\n"
        f"    s.connect(({address!r}, 5432))\n"
        "    return 1\n"
    )

    assert result(run(source))["error"].startswith(error)


def test_a_fork_bomb_stops_at_the_process_limit_and_leaves_nothing_behind():
    began = time.monotonic()

    outcome = run("import os\ndef f(x):\n    while True:\n        os.fork()\n")

    assert "Resource temporarily unavailable" in result(outcome)["error"]
    assert outcome.finished
    assert time.monotonic() - began < 5
    assert sandbox_processes_left() == []


def test_ten_gigabytes_is_out_of_memory():
    outcome = run("import numpy as np\ndef f(x):\n    return np.ones(10 * 2**30 // 8).sum()\n")

    assert result(outcome)["error"] == "out of memory"


def test_an_endless_loop_times_out_its_case_and_the_next_case_still_runs():
    source = "def f(x):\n    while x == 1:\n        pass\n    return x\n"
    cases = [
        {"name": "loops", "order": ["x"], "values": {"x": 1}},
        {"name": "ends", "order": ["x"], "values": {"x": 2}},
    ]

    outcome = run(source, cases=cases)

    assert result(outcome, "loops")["error"] == "timed out"
    assert values(result(outcome, "ends")) == [2]


def test_a_loop_that_ignores_its_alarm_is_stopped_by_the_cpu_limit():
    source = (
        "import signal\n"
        "def f(x):\n"
        "    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "    while True:\n"
        "        pass\n"
    )
    began = time.monotonic()

    outcome = run(source)

    assert not outcome.finished
    assert outcome.signal in ("SIGKILL", "SIGXCPU") or outcome.timed_out
    assert time.monotonic() - began < QUICK.wall_seconds + 2
    assert sandbox_processes_left() == []


def test_a_sleep_past_the_wall_clock_is_killed():
    source = (
        "import signal, time\n"
        "def f(x):\n"
        "    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "    time.sleep(60)\n"
    )

    outcome = run(source, limits=sandbox.Limits(wall_seconds=2, case_seconds=1))

    assert outcome.timed_out
    assert not outcome.finished


def test_printing_a_gigabyte_fills_its_file_and_no_more():
    printed = run("def f(x):\n    while True:\n        print('x' * 1_000_000)\n")
    written = run("import os\ndef f(x):\n    while True:\n        os.write(1, b'y' * 1_000_000)\n")

    assert result(printed)["error"].startswith("OSError: [Errno 27] File too large")
    assert result(written)["error"].startswith("OSError: [Errno 27] File too large")


def test_flooding_the_harnesss_own_stream_is_cut_at_the_output_limit():
    source = (
        "import os\n"
        "def f(x):\n"
        "    for fd in range(3, 10):\n"
        "        try:\n"
        "            while True:\n"
        "                os.write(fd, b'z' * 1_000_000)\n"
        "        except OSError:\n"
        "            pass\n"
    )

    outcome = run(source)

    assert outcome.output_too_large
    assert sandbox_processes_left() == []


def test_nothing_outside_its_own_tmp_can_be_written():
    for path in ("/in/solution.py", "/usr/lib/x", "/sandbox/harness.py", "/etc/passwd"):
        outcome = run(f"def f(x):\n    open({path!r}, 'w').write('x')\n")
        assert result(outcome)["error"].split(":")[0] in (
            "OSError",
            "PermissionError",
            "FileNotFoundError",
        ), path
    kept = run("def f(x):\n    open('/tmp/mine', 'w').write('x')\n    return 1\n")
    assert values(result(kept)) == [1]


def test_killing_its_parent_or_its_namespaces_first_process_is_refused():
    parent = run("import os\ndef f(x):\n    os.kill(os.getppid(), 9)\n")
    first = run("import os\ndef f(x):\n    os.kill(1, 9)\n")
    everyone = run("import os\ndef f(x):\n    os.kill(-1, 9)\n    return 1\n")

    assert result(parent)["error"].startswith("PermissionError")
    assert result(first)["error"].startswith("PermissionError")
    # Every other process it could signal is in its own namespace, and there are none.
    assert result(everyone)["error"].startswith("ProcessLookupError")
    assert run("def f(x):\n    return x\n").finished


def test_it_runs_as_no_one_with_no_capabilities_and_no_shell():
    who = run("import os\ndef f(x):\n    return os.getuid(), os.geteuid(), os.getgid()\n")
    capabilities = run(
        "def f(x):\n"
        "    status = open('/proc/self/status').read()\n"
        "    return [l.split()[1] for l in status.splitlines() if l.startswith('CapEff')]\n"
    )
    shell = run(
        "import subprocess\ndef f(x):\n    return subprocess.run(['sh', '-c', 'id']).returncode\n"
    )

    assert 0 not in values(result(who))
    assert values(result(capabilities)) == ["0000000000000000"]
    assert result(shell)["error"].startswith("FileNotFoundError")


def test_without_bubblewrap_nothing_runs_and_the_reason_is_given(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    sandbox.unavailable_reason.cache_clear()
    try:
        assert "not installed" in sandbox.unavailable_reason()
        assert not sandbox.available()
        with pytest.raises(sandbox.SandboxUnavailable):
            run("def f(x):\n    return x\n")
    finally:
        sandbox.unavailable_reason.cache_clear()
