"""`python -m sc2env`: the same as the `sc2env` command."""

import sys

from sc2env.cli import main

sys.exit(main())
