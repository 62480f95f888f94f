"""HTTP views of the 复盘 (thin): ask for a seat's review, poll its state. Both ask
apps/replays/access.py first (a hand the viewer may not see is a 404), then ``services.review_seat``."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from .. import access as replay_access
from . import selectors, services


def error_words() -> dict[str, str]:
    return {
        "bad_seat": _("There is no such seat in this hand."),
        "not_finished": _("Only a finished hand can be reviewed."),
        "engine": _("The review could not be computed."),
    }


def _refused(exc: services.ReviewError) -> JsonResponse:
    return JsonResponse({"error": exc.code, "message": error_words()[exc.code]}, status=400)


@login_required
@require_POST
def review_ask(request: HttpRequest, hand_id: int) -> JsonResponse:
    """Ask for the review of a seat (``seat``; default the viewer's own): its state, as the poll's."""
    access = replay_access.hand_or_404(user=request.user, hand_id=hand_id)
    try:
        seat = services.review_seat(access=access, user=request.user,
                                    seat=services.parse_seat(request.POST.get("seat"), access.seat))
        review = services.review_request(hand=access.hand, seat=seat, by=request.user)
    except services.ReviewError as exc:
        return _refused(exc)
    review.refresh_from_db()  # in-process Celery (the embedded default) has computed it already
    return JsonResponse(selectors.review_state(review, seat), status=202 if review.status != "done" else 200)


@login_required
@require_GET
def review_state(request: HttpRequest, hand_id: int) -> JsonResponse:
    """The poll: a fixed number of queries (the hand and the viewer's role, then the review row)."""
    access = replay_access.hand_or_404(user=request.user, hand_id=hand_id)
    try:
        seat = services.review_seat(access=access, user=request.user,
                                    seat=services.parse_seat(request.GET.get("seat"), access.seat))
    except services.ReviewError as exc:
        return _refused(exc)
    return JsonResponse(selectors.review_state(services.review_of(hand=access.hand, seat=seat), seat))
