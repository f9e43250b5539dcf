#!/usr/bin/env bash
# Installs what the tests need beyond Go: headless Chromium (Debian package
# `chromium`) and the npm packages listed in internal/testdeps/package.json,
# installed into .testdeps/ at the module root (ignored by git). `make test`
# and .ci/run call it; it is idempotent and quick when everything is present.
# Where it cannot install something it says exactly what to install and exits
# non-zero, so a test run never silently skips.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

apt_updated=0
apt_install() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "testdeps: please install the Debian packages: $*" >&2
    return 1
  fi
  if [ "$apt_updated" = 0 ]; then
    apt-get update -qq >/dev/null
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  echo "testdeps: installing ${missing[*]}"
  apt_install "${missing[@]}"
fi

# npm packages, reinstalled only when package.json changes.
src="$root/internal/testdeps/package.json"
dst="$root/.testdeps"
mkdir -p "$dst"
if ! cmp -s "$src" "$dst/package.json" || [ ! -d "$dst/node_modules" ]; then
  echo "testdeps: npm install into .testdeps"
  cp "$src" "$dst/package.json"
  rm -f "$dst/package-lock.json"
  (cd "$dst" && npm install --no-audit --no-fund --loglevel=error >/dev/null) || {
    rm -f "$dst/package.json"
    echo "testdeps: npm install failed; run: cd .testdeps && npm install" >&2
    exit 1
  }
fi
echo "testdeps: node $(node --version), chromium $(chromium --version 2>/dev/null | awk '{print $2}'), npm packages in .testdeps"
