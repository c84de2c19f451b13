#!/usr/bin/env bash
# Run the README's set-up on a bare Debian 12 and time it: debootstrap a minimal system (no
# Python, no compiler, no fonts) into DIR, put the committed project in it, and run COMMAND there.
#
#   sudo benchmarks/fresh_debian.sh [DIR] [COMMAND]
#   default DIR /tmp/fresh-debian, COMMAND "./render.sh setup && ./render.sh --chapters 5"
#   e.g. benchmarks/fresh_debian.sh /tmp/fd 'bash .ci/run'   (the whole CI, as on a fresh machine)
#
# Needs root and the Debian and package registries. The host's CA bundle and pip configuration
# are handed in (a proxy's certificate, a local wheel folder), so pip finds what it finds here.
# DIR is kept for a look afterwards; its mounts are undone on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-/tmp/fresh-debian}
command=${2:-"./render.sh setup && ./render.sh --chapters 5"}

[ "$(id -u)" -eq 0 ] || { echo "error: run as root (debootstrap and chroot need it)" >&2; exit 2; }
[ -e "$root" ] && { echo "error: $root exists: remove it or name another folder" >&2; exit 2; }
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }

mounts=()
# mirror DIR [mount options]: the host's DIR at the same place inside
mirror() { mkdir -p "$root$1"; mount "${@:2}" "$1" "$root$1"; mounts=("$root$1" "${mounts[@]}"); }
undo() { for m in "${mounts[@]}"; do umount -l "$m"; done; }
trap undo EXIT

echo "debootstrap: a minimal Debian 12 in $root"
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" http://deb.debian.org/debian >/dev/null
mount -t proc proc "$root/proc" && mounts=("$root/proc")
mirror /dev --rbind  # with /dev/shm, which the training processes share memory through
cp /etc/resolv.conf "$root/etc/"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
for conf in /etc/pip.conf /etc/xdg/pip; do
    if [ -e "$conf" ]; then mkdir -p "$root$(dirname "$conf")"; cp -r "$conf" "$root$conf"; fi
done
# Local folders pip's configuration names (find-links, file:// indexes), read-only.
for dir in $( (pip config list 2>/dev/null || true; echo "${PIP_FIND_LINKS:-}") | grep -o "\(file://\)\?/[^ ']*" | sed 's|^file://||' | sort -u); do
    if [ -d "$dir" ]; then mirror "$dir" --bind -o ro; fi
done
mapfile -t pip_settings < <(env | grep '^PIP_' || true)
mkdir -p "$root/root/project"
git archive HEAD | tar -x -C "$root/root/project"

echo "running in $root/root/project: $command"
start=$(date +%s)
chroot "$root" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    "${pip_settings[@]}" bash -c "cd /root/project && $command"
echo "done in $(( $(date +%s) - start )) s"
