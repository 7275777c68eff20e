#!/usr/bin/env bash
# Install Privacy Studio with its test tools into ./.venv (system packages too when root), lint, run every test.
source "$(dirname "${BASH_SOURCE[0]}")/_bootstrap.sh"
install_system_packages
install_python_packages test
cd "$ROOT"
"$VENV/bin/ruff" check .
export QT_QPA_PLATFORM=offscreen
exec "$VENV/bin/python" -m pytest "$@"
