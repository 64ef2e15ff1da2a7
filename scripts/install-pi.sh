#!/usr/bin/env bash
# Installs edgeblocks from this checkout as a hardened systemd service on a Raspberry Pi
# (Raspberry Pi OS Bookworm/Trixie, arm64 or armhf). Safe to run again and never asks anything.
# An upgrade is staged beside the running release (copy, npm ci, a smoke start on emulated
# hardware, a check by the new release of the existing config and of the EDGEBLOCKS_* variables the
# unit and its drop-ins set) and only then swapped in atomically; a failed upgrade leaves the
# running service untouched. The previous release is kept for --rollback. See docs/raspberry-pi.md.
# `edgeblocks` goes on PATH (a link in /usr/local/bin), for `sudo edgeblocks user add ...`.
#
#   sudo scripts/install-pi.sh [--from FILE] [--with-mosquitto] [--enable-interfaces] [--no-start]
#   sudo scripts/install-pi.sh --rollback
#   sudo scripts/install-pi.sh --uninstall [--purge]
#   scripts/install-pi.sh --dry-run [other options]   print each step, change nothing (no root needed)
#   scripts/install-pi.sh --help
#
# Options:
#   --from FILE          install the release artifact FILE (from scripts/release.sh: the build and
#                        its production modules, compiled for the Pi) instead of this checkout;
#                        needs no npm, no compiler and no build on the Pi
#   --with-mosquitto     install Mosquitto and point the new config at it (mqtt://localhost:1883)
#   --enable-interfaces  turn on I2C and 1-Wire in config.txt and load their modules (then reboot)
#   --no-start           install and enable the service, but do not (re)start it
#   --rollback           go back to the previous release and restart the service (after the
#                        previous release's check of the config, drop-ins and data dir)
#   --uninstall          remove the service and the releases; keep the config and the data dir
#   --purge              with --uninstall: also remove the config, the data dir and the user
#   --dry-run            print each step with what it would change, and change nothing
#
# Environment:
#   PREFIX   install path (default /opt/edgeblocks: a link to the release in PREFIX.releases)
#   DESTDIR  root prepended to every path written (default empty: the real system)
#   SKIP_NPM=1  do not run npm (tests, or when node_modules is provided otherwise)
#   SMOKE_SECONDS  how long the staged release may take to answer its smoke start (default 120)
#   BOOT_CONFIG  config.txt to edit (default /boot/firmware/config.txt, else /boot/config.txt)
set -Eeuo pipefail

PREFIX="${PREFIX:-/opt/edgeblocks}"
DESTDIR="${DESTDIR:-}"
SKIP_NPM="${SKIP_NPM:-0}"
SERVICE=edgeblocks.service
SERVICE_USER=edgeblocks
DEVICE_GROUPS=(gpio i2c dialout)
SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

INSTALL_DIR="$DESTDIR$PREFIX"
RELEASES_DIR="$INSTALL_DIR.releases"
# PREFIX links to its release relatively, so the tree also works staged under DESTDIR.
RELEASES_LINK="$(basename "$PREFIX").releases"
SMOKE_SECONDS="${SMOKE_SECONDS:-120}"
ETC_DIR="$DESTDIR/etc/edgeblocks"
CONFIG_FILE="$ETC_DIR/config.json"
UNIT_FILE="$DESTDIR/etc/systemd/system/$SERVICE"
DATA_DIR="$DESTDIR/var/lib/edgeblocks"
MODULES_FILE="$DESTDIR/etc/modules-load.d/edgeblocks.conf"
BIN_LINK="$DESTDIR/usr/local/bin/edgeblocks"

with_mosquitto=0
enable_interfaces=0
uninstall=0
rollback=0
purge=0
start=1
dry_run=0
from_file=""

log() { printf 'install-pi: %s\n' "$*"; }
warn() { printf 'install-pi: warning: %s\n' "$*" >&2; }
die() {
  printf 'install-pi: error: %s\n' "$*" >&2
  exit 1
}

# The header comment, up to the first line that is not a comment.
usage() {
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p;}' "${BASH_SOURCE[0]}"
}

# Runs a step; with --dry-run only says what it would do.
step() {
  local what="$1"
  shift
  if [ "$dry_run" -eq 1 ]; then
    log "would $what"
    return 0
  fi
  "$@"
}

# Runs a describe_ function (read-only) only for --dry-run: the others need not pay for it.
dry() { if [ "$dry_run" -eq 1 ]; then "$@"; fi; }

trap 'die "failed at line $LINENO: $BASH_COMMAND"' ERR

while [ $# -gt 0 ]; do
  case "$1" in
    --with-mosquitto) with_mosquitto=1 ;;
    --enable-interfaces) enable_interfaces=1 ;;
    --uninstall) uninstall=1 ;;
    --rollback) rollback=1 ;;
    --purge) purge=1 ;;
    --no-start) start=0 ;;
    --dry-run) dry_run=1 ;;
    --from)
      [ $# -ge 2 ] || die "--from needs the release artifact's file name"
      from_file="$2"
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      usage >&2
      die "unknown option: $1"
      ;;
  esac
  shift
done
[ "$purge" -eq 0 ] || [ "$uninstall" -eq 1 ] || die "--purge only goes with --uninstall"

if [ "$dry_run" -eq 1 ]; then
  log "dry run: nothing is changed"
elif [ -z "$DESTDIR" ] && [ "$EUID" -ne 0 ]; then
  die "run as root: sudo $0"
fi

# The installer's parts, by concern, beside this file (a release ships them in scripts/ too).
PARTS_DIR="$(dirname "${BASH_SOURCE[0]}")/install-pi"
for part in common releases checks system interfaces; do
  # shellcheck source=/dev/null
  . "$PARTS_DIR/$part.sh"
done

do_install() {
  check_node
  if [ -n "$from_file" ]; then unpack_release "$from_file"; fi
  step "$(dry describe_release)" install_tree
  step "$(dry describe_user)" ensure_user
  if [ "$with_mosquitto" -eq 1 ]; then step "install Mosquitto (apt-get install mosquitto)" install_mosquitto; fi
  step "$(dry describe_config)" install_config
  step "install the unit $UNIT_FILE (ExecStart with $NODE_BIN, $PREFIX)" install_unit
  step "link $BIN_LINK to $PREFIX/dist/src/main.js (the edgeblocks command)" install_cli_link
  if [ "$enable_interfaces" -eq 1 ]; then
    step "enable I2C and 1-Wire: dtparam=i2c_arm=on and dtoverlay=w1-gpio in $(boot_config_path) unless there, i2c-dev in $MODULES_FILE, modprobe i2c-dev w1-gpio w1-therm" enable_interfaces
  fi
  step "run: systemctl daemon-reload; systemctl enable $SERVICE" systemctl_enable
  if [ "$start" -eq 1 ]; then
    step "run: systemctl restart $SERVICE, and print the API address" start_service
  else
    log "installed; start it with: systemctl start $SERVICE"
  fi
}

if [ "$uninstall" -eq 1 ]; then
  do_uninstall
elif [ "$rollback" -eq 1 ]; then
  do_rollback
else
  do_install
fi
