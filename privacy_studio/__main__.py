"""Allow ``python -m privacy_studio`` to behave like the ``privacy-studio`` command."""

import sys

try:
    from privacy_studio.cli import main
except KeyboardInterrupt:  # Ctrl-C while the command loads
    sys.stderr.write("interrupted\n")
    exec("")  # see privacy_studio.cli.forget_unhandled_interrupt: exits 130, not by the signal
    raise SystemExit(130) from None

if __name__ == "__main__":
    raise SystemExit(main())
