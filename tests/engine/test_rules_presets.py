"""RULES.md §1 (cards), §10 (presets and options), §11.7 (shuffle)."""

import pytest

from apps.engine.cards import CHINESE, RED, card_name, full_deck, parse_card, rank
from apps.engine.rules import OPTION_NAMES, PRESETS, RuleError, resolve_ruleset
from apps.engine.shuffle import deck_from_seed, deck_from_seed_reference, parse_seed, seed_commitment


def test_s1_eighty_cards_twenty_kinds():
    deck = full_deck()
    assert len(deck) == 80
    assert all(deck.count(c) == 4 for c in range(20))


def test_s1_red_cards_and_rank_ignores_case():
    assert {card_name(c) for c in RED} == {"s2", "s7", "s10", "b2", "b7", "b10"}
    assert rank(parse_card("b5")) == rank(parse_card("s5")) == 5
    assert CHINESE[parse_card("b10")] == "拾" and CHINESE[parse_card("s1")] == "一"


@pytest.mark.parametrize("bad", ["s0", "b11", "S3", "", None, 3, "s3 "])
def test_s1_notation_rejects_unknown_cards(bad):
    with pytest.raises(ValueError):
        parse_card(bad)


def test_s11_7_shuffle_test_vector():
    deck = deck_from_seed(bytes(32))
    assert [card_name(c) for c in deck[:12]] == "b3 b9 b1 b1 b3 s8 b9 s7 b8 b9 b3 b10".split()
    assert sorted(deck) == full_deck()


def test_s11_7_shuffle_is_a_function_of_the_seed():
    a = deck_from_seed(bytes(range(32)))
    assert a == deck_from_seed(bytes(range(32)))
    assert a != deck_from_seed(bytes(32))
    with pytest.raises(ValueError):
        deck_from_seed(b"short")


def test_s9_5_seed_commitment_and_hex_seed():
    seed = parse_seed("00" * 32)
    assert seed == bytes(32)
    assert seed_commitment(seed) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    with pytest.raises(ValueError):
        parse_seed("zz")


def test_s10_every_preset_resolves_with_its_player_counts():
    expected = {
        "basic": (3,), "half": (3,), "full": (3,), "changsha": (3,), "quanmin": (3,),
        "chenzhou": (2, 3, 4), "luzhou": (2, 3, 4),
    }
    assert set(PRESETS) == set(expected)
    for preset, counts in expected.items():
        for n in counts:
            assert resolve_ruleset(preset, players=n).players == n


def test_s10_preset_values():
    assert PRESETS["changsha"].zimo == "none" and not PRESETS["changsha"].yi_er_san_huxi
    assert PRESETS["changsha"].wei_shown == "one"
    cz = PRESETS["chenzhou"]
    assert (cz.discard_win, cz.piao, cz.chou_on_unable_chi, cz.dealer_after_draw, cz.mingtang_stack) == (
        True, True, True, "next", "max")
    assert PRESETS["luzhou"].min_huxi == 10 and PRESETS["luzhou"].huxi_table == "luzhou"
    assert resolve_ruleset("chenzhou", players=4).deal_all
    assert resolve_ruleset("luzhou", players=4).sit_out
    assert resolve_ruleset("luzhou", players=4).active_players == 3
    assert resolve_ruleset("chenzhou", players=4).groups_to_win == 5


@pytest.mark.parametrize(
    ("preset", "options", "named"),
    [
        ("full", {"no_such_option": 1}, "no_such_option"),
        ("full", {"tun_mode": "1xi1tun"}, "tun_mode"),
        ("basic", {"players": 4}, "players"),
        ("chenzhou", {"min_huxi": 12}, "min_huxi"),
        ("chenzhou", {"min_huxi": "9"}, "min_huxi"),
        ("full", {"piao_mode": "everyone"}, "piao_mode"),
        ("full", {"pao_pays": "all"}, "pao_pays"),
        ("basic", {"chou_hu": "yes"}, "chou_hu"),
        ("nope", {}, "preset"),
    ],
)
def test_s10_invalid_overrides_name_the_option(preset, options, named):
    with pytest.raises(RuleError) as err:
        resolve_ruleset(preset, options)
    assert str(err.value).startswith(named)


def test_s10_overrides_apply_and_rulesets_are_frozen_values():
    rs = resolve_ruleset("full", {"chou_hu": True, "piao": True, "piao_mode": "loser"})
    assert rs.chou_hu and rs.piao_mode == "loser"
    assert rs == resolve_ruleset("full", {"piao_mode": "loser", "piao": True, "chou_hu": True})
    assert rs.from_json(rs.to_json()) == rs
    with pytest.raises(AttributeError):
        rs.min_huxi = 3  # type: ignore[misc]
    assert "preset" not in OPTION_NAMES


def test_s11_7_fast_shuffle_equals_the_reference_algorithm():
    import hashlib

    for i in range(3000):
        seed = hashlib.sha256(str(i).encode()).digest()
        assert deck_from_seed(seed) == deck_from_seed_reference(seed)


def test_the_engine_readme_lists_every_ruleset_option():
    """The README's option table stays complete: one row per field of RuleSet, no stale rows."""
    from dataclasses import fields
    from pathlib import Path

    from apps.engine.rules import RuleSet

    text = (Path(__file__).resolve().parents[2] / "apps" / "engine" / "README.md").read_text()
    section = text.split("## Ruleset options", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1].strip().strip("`") for line in section.splitlines() if line.startswith("| `")]
    assert rows == [f.name for f in fields(RuleSet)]
    assert set(OPTION_NAMES) < set(rows)
