import sys

from datcts_reports.store.cli import main

sys.exit(main())
