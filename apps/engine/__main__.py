"""``python -m apps.engine <command>``: see README.md and ENGINE_CLI.md beside this file."""

import sys

from .cli.main import main

sys.exit(main())
