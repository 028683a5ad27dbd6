#!/bin/sh
# web | worker | beat | migrate | any other command
set -e
case "$1" in
  web)
    # Migrations run once, before the web processes start (`migrate` below; compose's migrate service),
    # never here: several replicas would race to apply them.
    python manage.py collectstatic --noinput >/dev/null
    # granian (a Rust HTTP server) runs Django's WSGI app: its HTTP handling costs a fraction of
    # gunicorn's, which docs/benchmarks.md measures side by side. One worker per core; the blocking
    # threads overlap a request's database waits. It also serves the collected static files.
    # Bounds (docs/security.md): granian cannot interrupt a WSGI call, so a request's own work is bounded
    # inside the app (the run verifier's CPU budget, PostgreSQL's statement_timeout, the proxy's upstream
    # deadline); here, a client gets WEB_HEADER_TIMEOUT_MS to send its headers (slow-header clients), and
    # a worker takes at most WEB_BACKPRESSURE requests at once (the rest wait in the listen backlog).
    # Its log formatter escapes control characters, so a %0A in a path cannot forge access-log lines.
    exec granian --interface wsgi --host "${HOST:-0.0.0.0}" --port "${PORT:-8000}" \
      --workers "${WEB_CONCURRENCY:-2}" --blocking-threads "${WEB_THREADS:-2}" \
      --http1-header-read-timeout "${WEB_HEADER_TIMEOUT_MS:-10000}" \
      --backpressure "${WEB_BACKPRESSURE:-64}" \
      --respawn-failed-workers --access-log \
      --log-config "$PWD/config/granian-logging.json" \
      --static-path-route /static --static-path-mount "$PWD/var/static" \
      config.wsgi:application ;;
  worker)
    exec celery -A config worker --loglevel INFO --concurrency "${WORKER_CONCURRENCY:-4}" ;;
  beat)
    exec celery -A config beat --loglevel INFO --schedule "${BEAT_SCHEDULE:-/tmp/celerybeat-schedule}" ;;
  migrate)
    # Migrations may rewrite big tables: the per-statement bound (DB_STATEMENT_TIMEOUT_MS) is for requests.
    DB_STATEMENT_TIMEOUT_MS=0 exec python manage.py migrate --noinput ;;
  *)
    exec "$@" ;;
esac
