"""A real SMTP server for the mail tests: aiosmtpd on a free loopback port, its messages kept.

``with LocalSMTP() as smtp:`` then ``smtp.url`` (an EMAIL_URL) and ``smtp.messages`` (each an
``email.message.EmailMessage``), ``smtp.wait(n)`` for the n-th one.
"""

from __future__ import annotations

import email
import email.policy
import re
import socket
import time

from aiosmtpd.controller import Controller


class _Keep:
    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        message["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalSMTP:
    def __init__(self):
        self._keep = _Keep()
        self.port = free_port()
        self.controller = Controller(self._keep, hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}/?timeout=5"

    @property
    def messages(self) -> list:
        return self._keep.messages

    def wait(self, count: int = 1, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(self.messages) >= count, f"{len(self.messages)} mails, expected {count}"
        return self.messages[count - 1]

    def __enter__(self) -> LocalSMTP:
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.controller.stop()


def body(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def link_in(message, pattern: str = r"https?://\S+") -> str:
    found = re.search(pattern, body(message))
    assert found, body(message)
    return found.group(0)


def use_smtp(settings, url: str) -> None:
    """Point Django's mail settings at this EMAIL_URL, parsed as config.settings parses it."""
    from config.settings import _email_settings

    for name, value in _email_settings(url).items():
        setattr(settings, name, value)
