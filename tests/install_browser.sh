#!/usr/bin/env bash
# Installs the headless Chromium and ChromeDriver that the browser tests drive (tests/_browser.py),
# from Debian's packages: chromium-driver depends on the exact chromium version, so the pair
# always matches and nothing is downloaded at test time. Idempotent: a no-op when both are on
# PATH. Without root (and no password-less sudo) it only says what to run and exits 0, so the
# rest of the suite still runs and the browser tests fail with the same instruction.
set -euo pipefail

PACKAGES=(chromium chromium-driver fonts-liberation)

if [[ "${GUI_GYM_NO_BROWSER:-}" == "1" ]]; then
    echo "install_browser: GUI_GYM_NO_BROWSER=1, not installing Chromium (browser tests will be skipped)"
    exit 0
fi

if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    exit 0
fi

if [[ "$(id -u)" == "0" ]]; then
    SUDO=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
else
    echo "install_browser: Chromium is missing and this user cannot install it; as root run:" >&2
    echo "    apt-get update && apt-get install -y --no-install-recommends ${PACKAGES[*]}" >&2
    echo "or set GUI_GYM_NO_BROWSER=1 to skip the browser tests." >&2
    exit 0
fi

if ! command -v apt-get >/dev/null; then
    echo "install_browser: no apt-get here; install Chromium and a matching ChromeDriver so that" >&2
    echo "'chromium' and 'chromedriver' are on PATH, or set GUI_GYM_NO_BROWSER=1." >&2
    exit 1
fi

APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=300)
echo "install_browser: installing ${PACKAGES[*]} from Debian's packages"
"${APT[@]}" update
"${APT[@]}" install -y --no-install-recommends "${PACKAGES[@]}" >/dev/null
chromedriver --version  # the pair is version-locked by the package dependency
