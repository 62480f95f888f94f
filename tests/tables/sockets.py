"""The socket test client: a table's WebSocket on the real ASGI application (config.asgi), and the
steps tests take with it (connect as a user, read until, start a hand, play a hand from what each
socket was sent)."""

from __future__ import annotations

import asyncio

from channels.testing import WebsocketCommunicator
from django.test import override_settings

from apps.tables.read.presenters import legal_of
from config.asgi import application

MEMORY = override_settings(CHANNEL_LAYERS={"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}})


async def connect(user, table_id) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/", headers=[(b"origin", b"http://testserver")])
    comm.scope["user"] = user
    connected, _ = await comm.connect()
    assert connected
    first = await comm.receive_json_from(timeout=5)
    assert first["type"] == "state"
    comm.first = first
    return comm


async def drain(comm, wait: float = 0.1) -> list[dict]:
    out = []
    while not await comm.receive_nothing(timeout=wait):
        out.append(await comm.receive_json_from(timeout=2))
    return out


async def latest_state(comm, seen: list | None = None) -> dict:
    msgs = await drain(comm)
    if seen is not None:
        seen.extend(msgs)
    states = [m for m in msgs if m["type"] in ("state", "update")]
    return states[-1] if states else None


async def wait_for(comm, pred, timeout=10.0) -> dict:
    """Read messages until one satisfies ``pred``; returns it."""
    async def loop():
        while True:
            msg = await comm.receive_json_from(timeout=timeout)
            if pred(msg):
                return msg

    return await asyncio.wait_for(loop(), timeout)


def in_hand(msg) -> bool:
    return msg.get("type") in ("state", "update") and msg["state"]["stage"] == "hand"


async def start_hand(socks) -> None:
    for s in socks:
        await send(s, {"type": "ready"})
    for s in socks:
        await wait_for(s, in_hand)
        await drain(s)


async def send(comm, message) -> None:
    await comm.send_json_to(message)


async def play_by_clients(socks, rng, max_rounds=3000, log=None) -> list[dict]:
    """Each socket acts only from what it was sent: its state's legal actions and seq."""
    last = [s.first for s in socks]
    for _ in range(max_rounds):
        for i, s in enumerate(socks):
            for m in await drain(s, 0.02):
                if log is not None:
                    log.append((i, m))
                if m["type"] in ("state", "update") and m["seq"] >= last[i]["seq"]:
                    last[i] = m
        if all(m["state"]["stage"] in ("settle", "over") for m in last):
            return last
        for i, m in enumerate(last):
            hand = m["state"]["hand"]
            if legal_of(hand):
                action = rng.choice(legal_of(hand))
                await send(socks[i], {"type": "act", "seq": m["seq"], "action": action})
                reply = await wait_for(socks[i], lambda x: x["type"] in ("update", "error"))
                if reply["type"] == "update":
                    last[i] = reply
                break
    raise AssertionError("the hand did not end")
