"""复盘 (review) on the platform: a player asks for the review of his seat of a hand he played (the
club's owner/admins and staff for any seat); a Celery task on the ``review`` queue runs the engine's
reviewer (apps/engine/analysis/review.py) over the hand's stored record once and stores the result,
one row per (hand, seat). The replay viewer shows it; the profile shows the player's weekly trend.
"""
