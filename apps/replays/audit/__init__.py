"""Audit for owners, admins and staff: collusion statistics per pair of members and disputes.

A Django app of its own (label ``audit``) inside apps/replays, so its models and migrations stay
apart from the replay viewer's."""
