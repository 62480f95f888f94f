"""A role's user in the replay tests' world: ``p0``, ``p1``... a seated player, else the named one."""

from __future__ import annotations


def user_of(world, role: str):
    if role.startswith("p") and role[1:].isdigit():
        return world.players[int(role[1:])]
    return getattr(world, role)
