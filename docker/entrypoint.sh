#!/bin/sh
# web | worker | beat | migrate | any other command
set -e
case "$1" in
  web)
    python manage.py migrate --noinput
    python manage.py collectstatic --noinput >/dev/null
    exec gunicorn config.wsgi --bind 0.0.0.0:8000 --workers "${WEB_CONCURRENCY:-4}" --access-logfile - ;;
  worker)
    exec celery -A config worker --loglevel INFO --concurrency "${WORKER_CONCURRENCY:-4}" ;;
  beat)
    exec celery -A config beat --loglevel INFO --schedule /tmp/celerybeat-schedule ;;
  migrate)
    exec python manage.py migrate --noinput ;;
  *)
    exec "$@" ;;
esac
