#!/usr/bin/env bash
# Build the one-folder Privacy Studio program into dist/privacy-studio (Linux; see README for Windows/macOS).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_bootstrap.sh"
install_system_packages
install_python_packages
"$VENV/bin/python" -m pip install -q "pyinstaller>=6.5"
cd "$ROOT"
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
  --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" installer/privacy_studio.spec
install -m 644 resources/privacy-studio.desktop dist/privacy-studio/ 2>/dev/null || true
du -sh dist/privacy-studio
