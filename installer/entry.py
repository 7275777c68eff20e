"""Entry script of the frozen program: the same command line as the installed ``privacy-studio``."""

import sys

from privacy_studio.cli import main

if __name__ == "__main__":
    sys.exit(main())
