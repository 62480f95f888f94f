"""What every page's template needs for the page's own socket (templates/base.html,
static/js/common/live.js): its path, with the page's language, and its few words. No query."""

from django.utils.translation import get_language, gettext


def live(request) -> dict:
    return {"live_config": lambda: {"path": f"/ws/me/?lang={get_language()}", "strings": {"close": gettext("Close")}}}
