"""WebSocket routes shared by the apps; apps.tables appends its consumer routes here.

Example (added by apps.tables)::

    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi())
"""

from django.urls import path

from apps.accounts.live import MeConsumer
from apps.tables.live.consumers import TableConsumer

websocket_urlpatterns: list = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/me/", MeConsumer.as_asgi()),  # each signed-in page's own socket (notices, presence)
]
