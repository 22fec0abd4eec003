import sys

from torchlift.cli import main

sys.exit(main())
