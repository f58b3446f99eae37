"""Gunicorn's settings in production (`gunicorn -c config/gunicorn.py`), each overridable
from the environment.

Threaded workers (gthread), one per core, four threads each: a request waiting on PostgreSQL
leaves its worker's other threads to run, and a long response (a streamed export) is never
killed by the worker timeout, which only watches that the worker is alive. Keep-alive holds a
client's connection for 75 s between requests, longer than a proxy's usual idle timeout
(60 s), so the server never closes a connection the proxy is about to reuse.

Measured with `bench/load.py` on two cores (README): sync workers (`WEB_WORKER_CLASS=sync`)
hold the 95th percentile under 500 ms a step further (200 learners against 175), since the
threads of one worker share one interpreter; but a sync worker is held by every slow client
for the whole of its response and closes every connection after one request. Threads stay
the default, as `docker-compose.yml` serves the port with no proxy before it; behind a proxy
that buffers responses, sync workers are the faster choice.
"""

import multiprocessing
import os

bind = os.environ.get("WEB_BIND", "0.0.0.0:8000")
worker_class = os.environ.get("WEB_WORKER_CLASS", "gthread")
workers = int(os.environ.get("WEB_WORKERS") or multiprocessing.cpu_count())
# (gunicorn runs threads > 1 as gthread whatever the class: a sync worker gets one)
threads = int(os.environ.get("WEB_THREADS") or (4 if worker_class == "gthread" else 1))
keepalive = int(os.environ.get("WEB_KEEPALIVE", "75"))
timeout = int(os.environ.get("WEB_TIMEOUT", "30"))
graceful_timeout = 30
accesslog = "-"
