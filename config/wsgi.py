import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Everything loaded so far (Django, the apps, the engine's tables) lives as long as the process. Moving
# it out of the collector's reach makes each full collection scan only what requests left behind, so a
# collection pauses a worker for a fraction of the time (tail latency under load).
gc.freeze()
