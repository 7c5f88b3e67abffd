import sys

from assigncheck.ci.cli import main

sys.exit(main())
