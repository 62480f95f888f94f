"""The leaderboard's points chart as data for uPlot (static/js/ledgers/chart.js draws it).

uPlot wants one shared x axis: every settlement time of the plotted players, in seconds, and per
player his running total at each of those times (carried forward between his own hands).
"""

from __future__ import annotations

MAX_SERIES = 5
COLORS = ["#0f5132", "#b02a37", "#0d6efd", "#a05a00", "#6f42c1"]


def score_chart(series: dict[int, list[tuple]], names: dict[int, str]) -> dict | None:
    """``{"x": [unix seconds], "series": [{"name", "color", "values", "last"}]}``, or None when empty.

    ``series`` is ``selectors.score_series``: per user, cumulative (time, total) points.
    """
    stamps = sorted({t for points in series.values() for t, _ in points})
    if not stamps:
        return None
    index = {t: i for i, t in enumerate(stamps)}
    lines = []
    for i, (user_id, points) in enumerate(series.items()):
        if not points:
            continue
        values: list[int | None] = [None] * len(stamps)
        for t, v in points:
            values[index[t]] = v
        running = 0  # before his first hand of the period a player stands at 0
        for k, v in enumerate(values):
            running = running if v is None else v
            values[k] = running
        lines.append({"name": names.get(user_id, str(user_id)), "color": COLORS[i % len(COLORS)],
                      "values": values, "last": points[-1][1]})
    return {"x": [int(t.timestamp()) for t in stamps], "series": lines}
