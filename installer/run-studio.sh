#!/usr/bin/env bash
# Install Privacy Studio into ./.venv (and Qt's system libraries when run as root), compile its kernels once
# (privacy-studio warmup) and open the sample project.
source "$(dirname "${BASH_SOURCE[0]}")/_bootstrap.sh"
install_system_packages
install_python_packages
warm_up_kernels
exec "$VENV/bin/privacy-studio" "${@:-$ROOT/sample_data/sample.psproj}"
