import sys

from datcts.cli import main

sys.exit(main())
