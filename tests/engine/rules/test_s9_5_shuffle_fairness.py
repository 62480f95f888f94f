"""RULES.md §9.5: Fairness of the shuffle."""

from __future__ import annotations

import pytest

from apps.engine.shuffle import parse_seed, seed_commitment


def test_s9_5_seed_commitment_and_hex_seed():
    seed = parse_seed("00" * 32)
    assert seed == bytes(32)
    assert seed_commitment(seed) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    with pytest.raises(ValueError):
        parse_seed("zz")
