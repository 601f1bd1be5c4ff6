"""``python -m bench``: run the benchmark suite (see :mod:`bench.harness`)."""

import sys

from bench.harness import main

sys.exit(main())
