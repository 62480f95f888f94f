"""ASGI entry point: HTTP through Django, WebSockets through Channels' URLRouter."""

import gc
import os

from django.conf import settings
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Initialise Django (app registry) before importing anything that touches models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.origin import SameOriginValidator  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from config.warm import connect_broker_soon, load_everything  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

# A server process loads everything it will run now (config/warm.py) and keeps it for its whole
# life: freezing it keeps the cyclic garbage collector from scanning it again, which under load
# otherwise stalls every socket of the process for ~100 ms per full collection; the thresholds
# (settings.SERVER_GC_THRESHOLD) make the remaining full collections rare.
load_everything()
gc.collect()
gc.freeze()
gc.set_threshold(*settings.SERVER_GC_THRESHOLD)
connect_broker_soon()
