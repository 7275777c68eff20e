"""Allow ``python -m privacy_studio`` to behave like the ``privacy-studio`` command."""

from privacy_studio.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
