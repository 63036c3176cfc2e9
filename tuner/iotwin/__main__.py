import sys

from iotwin.cli import main

sys.exit(main())
