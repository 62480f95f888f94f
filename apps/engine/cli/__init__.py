"""The command line tools of ``python -m apps.engine`` (shared ENGINE_CLI.md): the entry point
(``main``), the bot simulation (``simulate``), bot duels (``duel``) and the score command's input
checker (``score_requests``).

The top layer: may import every other room of the engine; nothing in the engine imports it.
"""
