"""Gunicorn's settings in production (`gunicorn -c config/gunicorn.py`), each overridable
from the environment.

Threaded workers (gthread), one per core, four threads each: a request waiting on PostgreSQL
leaves its worker's other threads to run, and a long response (a streamed export) is never
killed by the worker timeout, which only watches that the worker is alive. Keep-alive holds a
client's connection for 75 s between requests, longer than a proxy's usual idle timeout
(60 s), so the server never closes a connection the proxy is about to reuse. Measured with
`bench/load.py` on two cores (README): see there.
"""

import multiprocessing
import os

bind = os.environ.get("WEB_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS") or multiprocessing.cpu_count())
threads = int(os.environ.get("WEB_THREADS", "4"))
keepalive = int(os.environ.get("WEB_KEEPALIVE", "75"))
timeout = int(os.environ.get("WEB_TIMEOUT", "30"))
graceful_timeout = 30
accesslog = "-"
