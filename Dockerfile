# The production image: gunicorn serving the API; the same image runs the Celery worker and beat.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# bubblewrap: the sandbox a learner's code runs in (config/sandbox.py).
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.lock .
RUN pip install --require-hashes --no-deps -r requirements.lock

COPY . .
RUN DEBUG=0 SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && useradd --system --uid 10001 residual \
    && mkdir -p /app/media && chown residual /app/media
USER residual

EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "-c", "config/gunicorn.py"]
