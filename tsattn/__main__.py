import sys

from tsattn.cli import main

sys.exit(main())
