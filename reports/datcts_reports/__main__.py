import sys

from datcts_reports.cli import main

sys.exit(main())
