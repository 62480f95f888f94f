"""A slow, obviously-correct scorer to check the engine's fast one against (RULES.md §4.1, §8, §9).

Brute force: every role the winning card may take (§8.2), then every partition of the hidden cards
into 坎/提 (held three or four of a kind stay whole), sentences, 二七十, 绞 and 将; a partition is
a complete hand when it has the right number of groups and exactly one 将 iff a four-card group
exists (§8.1). The 胡息 table (``group_huxi``) and the 名堂 rows (``mingtang_of``/``bonuses_of``)
are the engine's own: they are the rules as tables, not the search being checked.
"""

from __future__ import annotations

from collections import Counter

from apps.engine.groups import Group
from apps.engine.rules import RuleSet
from apps.engine.scoring.huxi import group_huxi
from apps.engine.scoring.mingtang import MingtangContext, bonuses_of, mingtang_of

RED = {1, 6, 9, 11, 16, 19}


def _hand_groups(cards: Counter, whole: set[int]) -> list[list[tuple[str, tuple[int, ...]]]]:
    """Every partition of ``cards`` into hand groups; kinds in ``whole`` must stay one 坎/提."""
    if not +cards:
        return [[]]
    c = min(k for k, n in cards.items() if n > 0)
    options: list[tuple[str, tuple[int, ...]]] = []
    if c in whole:
        options.append(("kan" if cards[c] == 3 else "ti", (c,) * cards[c]))
    else:
        base, r = c // 10 * 10, c % 10
        options.append(("jiang", (c, c)))
        if r <= 7:
            options.append(("sentence", (c, c + 1, c + 2)))
        if r == 1:
            options.append(("sentence", (c, c + 5, c + 8)))
        other = c + 10 if base == 0 else c - 10
        options.append(("jiao", tuple(sorted((c, c, other)))))
        options.append(("jiao", tuple(sorted((c, other, other)))))
    out = []
    for kind, group in options:
        need = Counter(group)
        if any(cards[x] < n or (x in whole and kind not in ("kan", "ti")) for x, n in need.items()):
            continue
        for rest in _hand_groups(cards - need, whole):
            out.append([(kind, group)] + rest)
    return out


def _roles(hand: Counter, laid: list[tuple[str, tuple[int, ...]]], card: int, win_by: str, dealer: bool):
    """(laid groups after the card, group the card formed or None, hidden cards, kinds that stay whole)."""
    held = hand[card]
    whole = {c for c, n in hand.items() if n >= 3}
    plus = hand + Counter([card])
    if win_by == "reveal" and dealer:
        return [(laid, None, plus, {c for c, n in plus.items() if n >= 3})]
    own = win_by == "self_draw"
    if held == 3:
        return [(laid, ("ti" if own else "pao", (card,) * 4), hand - Counter({card: 3}), whole - {card})]
    for i, (kind, cards) in enumerate(laid):
        if cards[0] == card and held < 2 and kind in ("wei", "chou_wei"):
            return [(laid[:i] + [("ti" if own else "pao", (card,) * 4)] + laid[i + 1:], None, hand, whole)]
        if cards[0] == card and held < 2 and kind == "peng" and win_by != "discard":
            return [(laid[:i] + [("pao", (card,) * 4)] + laid[i + 1:], None, hand, whole)]
    if held == 2 and own:
        return [(laid, ("wei", (card,) * 3), hand - Counter({card: 2}), whole)]
    if held == 2:
        return [(laid, ("peng", (card,) * 3), hand - Counter({card: 2}), whole), (laid, None, plus, whole)]
    return [(laid, None, plus, whole)]


def _value(rs: RuleSet, groups, totals, win_by, dealer, last_card, reveal_card, shua_hou):
    huxi = sum(group_huxi(rs, Group(k, c)) for k, c in groups)
    dui_dui = not any(k in ("chi", "sentence", "jiao") for k, _ in groups)
    sentences = Counter(c for k, c in groups if k in ("chi", "sentence") and len(set(c)) == 3)
    bi = max(sentences.values(), default=0)
    piao = sum(1 for _, c in groups if all(x in RED for x in c))
    zimo = win_by == "self_draw" or (win_by == "reveal" and dealer)
    ctx = MingtangContext(
        rs, totals["red"], totals["big"], totals["small"], win_by, dealer, zimo, last_card, reveal_card,
        shua_hou, dui_dui, bi if bi >= 2 else 0, piao,
    )
    _, fan = mingtang_of(rs, ctx)
    shown = 15 if rs.mao_hu and huxi == 0 else huxi
    counted, tun_add = shown, 0
    for _, effect, value in bonuses_of(rs, ctx):
        counted, fan, tun_add = (
            counted * value if effect == "huxi_x" else counted,
            fan * value if effect == "fan_x" else fan,
            tun_add + value if effect == "tun" else tun_add,
        )
    if rs.tun_mode == "1xi1tun":
        tun = max(1, counted)
    else:
        tun = max(1, (counted - rs.min_huxi) // 3 + 1)
    tun += tun_add + (rs.zimo == "+1tun" and zimo)
    return huxi, shown, tun * fan


def reference_score(rs: RuleSet, hand, groups, win_card, win_by, dealer=False, last_card=False, reveal_card=None):
    """(win, reason, 胡息, score) for a non-natural candidate win."""
    laid = [(g.kind, g.cards) for g in groups]
    all_cards = list(hand) + [c for _, cs in laid for c in cs] + [win_card]
    totals = {"red": sum(c in RED for c in all_cards), "big": sum(c >= 10 for c in all_cards)}
    totals["small"] = len(all_cards) - totals["big"]
    shua_hou = len(hand) == 1 and hand[0] == win_card
    best = None
    top = -1
    for laid_v, formed, hidden, whole in _roles(Counter(hand), laid, win_card, win_by, dealer):
        fixed = laid_v + ([formed] if formed else [])
        for part in _hand_groups(hidden, whole):
            everything = fixed + part
            n_jiang = sum(k == "jiang" for k, _ in part)
            has_four = any(len(c) == 4 for _, c in everything)
            if n_jiang != (1 if has_four else 0) or len(everything) != rs.groups_to_win:
                continue
            huxi, shown, score = _value(rs, everything, totals, win_by, dealer, last_card, reveal_card, shua_hou)
            top = max(top, huxi)
            if huxi >= rs.min_huxi or (rs.mao_hu and huxi == 0):
                if best is None or (score, shown) > best:
                    best = (score, shown)
    if best is not None:
        return True, None, best[1], best[0]
    if top < 0:
        return False, "incomplete", 0, 0
    return False, "huxi_below_min", top, 0
