#!/usr/bin/env python3
"""Residual's two set-up commands, needing nothing but Python 3.11+.

    python3 dev.py serve   # environment, migrations, the course, then the server on :8000
    python3 dev.py test    # environment, then the whole test suite (extra args go to pytest)

The environment is .venv/, installed from the hash-pinned lock files and reinstalled only
when a lock file changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def ensure_environment(lock: str) -> None:
    if not PYTHON.exists():
        print(f"Creating {VENV} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256((ROOT / lock).read_bytes()).hexdigest()
    stamp = VENV / f".installed-{lock}"
    if stamp.exists() and stamp.read_text() == digest:
        return
    print(f"Installing {lock} ...", flush=True)
    run(PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--require-hashes", "--no-deps", "-r", str(ROOT / lock))  # fmt: skip
    stamp.write_text(digest)


def run(*command: object, env: dict[str, str] | None = None) -> None:
    result = subprocess.run([str(part) for part in command], cwd=ROOT, env=env, check=False)
    if result.returncode != 0:
        sys.exit(result.returncode)


def serve() -> None:
    ensure_environment("requirements.lock")
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1")}
    run(PYTHON, "manage.py", "migrate", "--noinput", env=env)
    run(PYTHON, "manage.py", "load_content", env=env)
    print("\nResidual is starting on http://127.0.0.1:8000/", flush=True)
    print("  Web app:      http://127.0.0.1:8000/")
    print("  API docs:     http://127.0.0.1:8000/api/v1/docs/")
    print("  OpenAPI:      http://127.0.0.1:8000/api/v1/schema/")
    print("  Courses:      http://127.0.0.1:8000/api/v1/courses/")
    print("  Admin:        http://127.0.0.1:8000/admin/  (python3 dev.py manage createsuperuser)\n")
    os.chdir(ROOT)
    os.execve(str(PYTHON), [str(PYTHON), "manage.py", "runserver", "127.0.0.1:8000"], env)


def test(args: list[str]) -> None:
    ensure_environment("requirements-dev.lock")
    os.chdir(ROOT)
    os.execv(str(PYTHON), [str(PYTHON), "-m", "pytest", *args])


def manage(args: list[str]) -> None:
    ensure_environment("requirements.lock")
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1")}
    run(PYTHON, "manage.py", *args, env=env)


def main() -> None:
    command, *rest = sys.argv[1:] or ["help"]
    if command == "serve":
        serve()
    elif command == "test":
        test(rest)
    elif command == "manage":
        manage(rest)
    else:
        print(__doc__)
        sys.exit(0 if command in {"help", "-h", "--help"} else 2)


if __name__ == "__main__":
    main()
