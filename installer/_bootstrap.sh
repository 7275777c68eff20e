# Shared by run-studio.sh and run-tests.sh: system packages (when root), a virtual environment, the studio.
# Usage: source installer/_bootstrap.sh [extra]   (extra = "test" also installs the test tools)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${PRIVACY_STUDIO_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"

# Libraries Qt needs on a bare Debian/Ubuntu, plus Xvfb (real-window tests), poppler-utils (PDF checks)
# and a Java runtime (Spark back end).
SYSTEM_PACKAGES=(
  python3-venv libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libfreetype6 libdbus-1-3
  libglib2.0-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-randr0
  libxcb-render-util0 libxcb-image0 libxcb-xfixes0 libxcb-xkb1 libxrender1 libxi6 libsm6 libice6
  fonts-dejavu-core xvfb xauth poppler-utils
  default-jre-headless  # Spark's local-mode tests (the cluster back end runs on the JVM)
)

install_system_packages() {
  if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "Not root or no apt-get: make sure these are installed: ${SYSTEM_PACKAGES[*]}" >&2
    return 0
  fi
  local missing=()
  for pkg in "${SYSTEM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing system packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt_waiting_for_lock update -qq
    apt_waiting_for_lock install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# Another apt or dpkg (an unattended upgrade, a second terminal) holds the package manager's lock: wait for
# it, up to PRIVACY_STUDIO_APT_LOCK_WAIT seconds (default 600), instead of failing at once.
apt_waiting_for_lock() {
  local limit="${PRIVACY_STUDIO_APT_LOCK_WAIT:-600}" waited=0 err
  while true; do
    if err="$(apt-get "$@" 2>&1 >/dev/null)"; then
      return 0
    fi
    if ! grep -qiE "could not get lock|unable to acquire|lock-frontend|is another process using it" <<<"$err"; then
      echo "$err" >&2
      return 1
    fi
    if [ "$waited" -ge "$limit" ]; then
      echo "Another package manager still holds the apt/dpkg lock after ${limit} s; let it finish" \
        "(or raise PRIVACY_STUDIO_APT_LOCK_WAIT) and run this again." >&2
      return 1
    fi
    [ "$waited" -eq 0 ] && echo "Waiting for another package manager (apt/dpkg) to release its lock…" >&2
    sleep 5
    waited=$((waited + 5))
  done
}

install_python_packages() {
  local extra="${1:-}"
  if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
  fi
  "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
  if [ -n "$extra" ]; then
    "$VENV/bin/python" -m pip install -q -e "$ROOT[$extra]"
  else
    "$VENV/bin/python" -m pip install -q -e "$ROOT"
  fi
}

# numba compiles each kernel once and keeps it here, so later starts and test runs are fast.
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/privacy-studio/numba}"
mkdir -p "$NUMBA_CACHE_DIR"

# Compile every kernel once after an install or an update (any source newer than the stamp), with
# progress, so the first analysis and the window's first run do not wait for numba.
warm_up_kernels() {
  local stamp="$NUMBA_CACHE_DIR/warmed-up"
  if [ ! -f "$stamp" ] || [ -n "$(find "$ROOT/privacy_studio" -name '*.py' -newer "$stamp" -print -quit)" ]; then
    echo "Compiling the analysis kernels once (a few minutes on a slow machine)..." >&2
    "$VENV/bin/privacy-studio" warmup && touch "$stamp"
  fi
}
