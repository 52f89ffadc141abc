#!/bin/sh
# Checks that sshbench installs and runs on Debian 13 (trixie: OpenSSH 10.0p2, Python 3.13), the way the
# README says it is checked: a minimal trixie made by debootstrap in a directory of your choice, this
# clone's committed tree copied in, `make run` with a two-minute sweep inside it, as root.
#
#   sudo sh scripts/check_debian13.sh /var/tmp/trixie        (needs debootstrap and the Debian mirror)
#
# Nothing outside that directory is changed; /proc, /sys and /dev are bind-mounted into it for the run and
# unmounted on exit. The results file is left in DIR/root/sshbench/sshbench-results.
set -eu
DIR=${1:?give a directory for the trixie chroot, e.g. /var/tmp/trixie}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
ARGS=${ARGS:---ciphers default --macs none --kex none --hostkeys none --directions upload --time-budget 2m}
[ "$(id -u)" = 0 ] || { echo "check_debian13: run it as root (debootstrap and chroot need it)" >&2; exit 4; }
command -v debootstrap >/dev/null || { echo "check_debian13: needs debootstrap: apt-get install debootstrap" >&2; exit 3; }
REPO=$(cd "$(dirname "$0")/.." && pwd)

if [ ! -x "$DIR/usr/bin/python3" ]; then
    debootstrap --variant=minbase --include=python3,python3-venv,make,ca-certificates trixie "$DIR" "$MIRROR"
fi
cleanup() { for m in dev/pts dev sys proc; do umount "$DIR/$m" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
mount -t proc proc "$DIR/proc"
mount --rbind /sys "$DIR/sys" && mount --make-rslave "$DIR/sys"
mount --rbind /dev "$DIR/dev" && mount --make-rslave "$DIR/dev"

# the host's local certificate authorities (a proxy between this machine and PyPI may need them)
if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$DIR/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates/. "$DIR/usr/local/share/ca-certificates/"
    chroot "$DIR" /bin/sh -c 'command -v update-ca-certificates >/dev/null || apt-get install -y -q ca-certificates'
    chroot "$DIR" update-ca-certificates >/dev/null
fi
rm -rf "$DIR/root/sshbench" && mkdir -p "$DIR/root/sshbench"
git -C "$REPO" archive HEAD | tar -x -C "$DIR/root/sshbench"
chroot "$DIR" /bin/sh -c "cd /root/sshbench && ssh -V && python3 --version && make run ARGS='$ARGS'"
