"""``python -m agents.cli`` is ``gui-gym``."""

import sys

from agents.cli import main

sys.exit(main())
