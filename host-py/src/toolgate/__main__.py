"""`python -m toolgate`: the toolgate command line (see `toolgate.cli`)."""

from .cli import main

raise SystemExit(main())
