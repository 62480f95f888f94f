"""The server entry: Daphne's command line, on the event loop of config/loop.py.

    python -m config.server -b 127.0.0.1 -p 8001 config.asgi:application

It takes ``daphne``'s arguments; only the loop under Twisted's reactor differs (uvloop unless
``SERVER_LOOP=asyncio``), which must be chosen before Daphne is imported.
"""

from __future__ import annotations

from config.loop import install


def main() -> None:
    install()
    from daphne.cli import CommandLineInterface  # (imports daphne.server: its loop is made here)

    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
