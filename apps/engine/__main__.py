"""``python -m apps.engine <command>``: see apps/engine/README.md and shared ENGINE_CLI.md."""

import sys

from .cli.main import main

sys.exit(main())
