"""A small server-side line chart (inline SVG, no JavaScript, no build step)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_SERIES = 5
WIDTH, HEIGHT, PAD = 320, 160, 8
COLORS = ["#0f5132", "#b02a37", "#0d6efd", "#a05a00", "#6f42c1"]


@dataclass
class Line:
    name: str
    color: str
    points: str  # SVG polyline "x,y x,y ..."
    last: int


@dataclass
class Chart:
    width: int
    height: int
    lines: list[Line]
    zero_y: float | None
    min_value: int
    max_value: int


def score_chart(series: dict[int, list[tuple]], names: dict[int, str]) -> Chart | None:
    """Scale every user's cumulative (time, total) series into one SVG box.

    The x axis is the settlement order across all users (time is uneven; order reads better).
    """
    stamps = sorted({t for points in series.values() for t, _ in points})
    if not stamps:
        return None
    index = {t: i for i, t in enumerate(stamps)}
    values = [v for points in series.values() for _, v in points] + [0]
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1
    xmax = max(len(stamps) - 1, 1)

    def xy(t, v) -> str:
        x = PAD + (WIDTH - 2 * PAD) * index[t] / xmax
        y = PAD + (HEIGHT - 2 * PAD) * (hi - v) / span
        return f"{x:.1f},{y:.1f}"

    lines = []
    for i, (user_id, points) in enumerate(series.items()):
        if not points:
            continue
        coords = [xy(stamps[0], 0)] if index[points[0][0]] > 0 else []
        coords += [xy(t, v) for t, v in points]
        lines.append(Line(names.get(user_id, str(user_id)), COLORS[i % len(COLORS)], " ".join(coords), points[-1][1]))
    zero_y = PAD + (HEIGHT - 2 * PAD) * hi / span if lo <= 0 <= hi else None
    return Chart(WIDTH, HEIGHT, lines, zero_y, lo, hi)
