"""Shared values for the clubs tests."""

# A valid rule template (RULES.md §10 preset "full"), as keyword arguments of template_create.
TEMPLATE_FIELDS = {
    "name": "三人全名堂",
    "preset": "full",
    "options": {},
    "players": 3,
    "base_score": 1,
    "piao_choices": [],
    "hands_per_session": 8,
    "turn_seconds": 15,
}
