#!/usr/bin/env bash
# attention-explainer: set-up and entry point.
#   ./render.sh            render the explainer (sets everything up first)
#   ./render.sh test       set everything up and run the test suite
#   ./render.sh --help     all commands
set -euo pipefail
cd "$(dirname "$0")"

VENV=.venv
PYTHON_VERSION=python3.11
# Debian packages: ManimPango builds against Pango/Cairo; Chinese text needs a CJK font;
# ffprobe (ffmpeg) lets the tests inspect rendered videos.
SYSTEM_PACKAGES=(libpango1.0-dev libcairo2-dev pkg-config fonts-noto-cjk ffmpeg)

say() { printf 'setup: %s\n' "$*" >&2; }

install_system_packages() {
    local missing=() pkg
    for pkg in "${SYSTEM_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "error: missing system packages ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2; exit 2; }
        sudo=(sudo)
    fi
    say "installing system packages: ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_python_environment() {
    # The stamp records what the environment was built from; an unchanged project skips pip.
    local stamp="$VENV/.installed" want
    want=$( (cat pyproject.toml; declare -f install_python_environment) | sha256sum | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$VENV/bin/python" ]; then
        return 0
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        say "creating $VENV"
        "$PYTHON_VERSION" -m venv "$VENV"
    fi
    say "installing Python packages into $VENV (torch 2.13.0 CPU, manim, the project)"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    # torch first and pinned: an unpinned torch would pull a multi-GB CUDA build.
    "$VENV/bin/python" -m pip install -q torch==2.13.0
    "$VENV/bin/python" -m pip install -q -e '.[test]'
    echo "$want" > "$stamp"
}

setup() {
    install_system_packages
    install_python_environment
}

case "${1:-}" in
    test)
        shift
        setup
        exec "$VENV/bin/python" -m pytest "$@"
        ;;
    setup)
        setup
        ;;
    trace|train)
        setup
        exec "$VENV/bin/python" -m model.cli "$@"
        ;;
    *)
        setup
        exec "$VENV/bin/python" -m scenes.render "$@"
        ;;
esac
