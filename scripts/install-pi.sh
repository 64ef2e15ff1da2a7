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

# Writes stdin to $1 only when the content differs, so a second run leaves files untouched.
write_if_changed() {
  local target="$1" mode="$2" tmp
  tmp="$(mktemp)"
  cat >"$tmp"
  if [ -f "$target" ] && cmp -s "$tmp" "$target"; then
    rm -f "$tmp"
    return 1
  fi
  mkdir -p "$(dirname "$target")"
  install -m "$mode" "$tmp" "$target"
  rm -f "$tmp"
  return 0
}

check_node() {
  NODE_BIN="$(command -v node || true)"
  [ -n "$NODE_BIN" ] || die "Node.js >= 20 is required and 'node' is not on PATH (install nodejs, e.g. from NodeSource)"
  local major
  major="$("$NODE_BIN" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  [[ "$major" =~ ^[0-9]+$ ]] || major=0
  [ "$major" -ge 20 ] || die "Node.js >= 20 is required, $NODE_BIN is $("$NODE_BIN" --version 2>/dev/null || echo unknown)"
  case "$NODE_BIN" in
    /root/* | /home/*) die "$NODE_BIN is under a home directory, which the service cannot see (ProtectHome=yes); install Node system-wide" ;;
  esac
  log "using $NODE_BIN ($("$NODE_BIN" --version))"
}

# A release is named by its version and a hash of what it ships, so running the installer again
# on the same checkout finds it already in place.
release_id() {
  local version hash
  version="$("$NODE_BIN" -p 'require(process.argv[1]).version' "$SRC_DIR/package.json" 2>/dev/null || echo unknown)"
  # An artifact's release.json names its architecture and Node: another one is another release.
  hash="$(cd "$SRC_DIR" && find package.json package-lock.json $([ -f release.json ] && echo release.json) dist systemd scripts -type f 2>/dev/null | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)"
  echo "$version-$hash"
}

current_release() {
  if [ -L "$INSTALL_DIR" ]; then basename "$(readlink "$INSTALL_DIR")"; fi
}

# Starts the staged release on emulated hardware, free ports and a throwaway data dir, and
# asks it for system/ping: the same node, the same native modules, the real code path.
smoke_start() {
  local dir="$1" tmp pid port="" waited=0
  tmp="$(mktemp -d)"
  # Created here: the background job opens its redirect after the fork, possibly after the first read below.
  : >"$tmp/out"
  env -i PATH="$PATH" HOME="$tmp" "$NODE_BIN" "$dir/dist/src/main.js" --hardware sim --host 127.0.0.1 --port 0 \
    --https-port 0 --mqtt-port 0 --service-id smoke --data-dir "$tmp/data" >>"$tmp/out" 2>&1 &
  pid=$!
  while [ "$waited" -lt $((SMOKE_SECONDS * 5)) ]; do
    port="$(sed -nE 's/.*http listening on [^ ]*:([0-9]+).*/\1/p' "$tmp/out" | head -n 1)"
    [ -z "$port" ] || break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
    waited=$((waited + 1))
  done
  local ok=0
  if [ -n "$port" ] && "$NODE_BIN" -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
    "http://127.0.0.1:$port/smoke/system/ping"; then
    ok=1
  fi
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [ "$ok" -ne 1 ]; then
    warn "smoke start of the new release failed; its output:"
    sed 's/^/  | /' "$tmp/out" | tail -n 20 >&2
  fi
  rm -rf "$tmp"
  [ "$ok" -eq 1 ]
}

# The EDGEBLOCKS_* variables the service will start with, as NUL-separated name, value and where
# it comes from: Environment= and EnvironmentFile= (whose values win, as in systemd) of the unit
# the new release installs and of the drop-ins (`systemctl edit edgeblocks`), read from the files
# rather than asked of systemctl: the installer reloads systemd before the restart, so the files
# are what the service gets, and they are there under DESTDIR and without a running systemd.
unit_environment() {
  local unit="$1/systemd/$SERVICE"
  [ -f "$unit" ] || unit="$UNIT_FILE"
  "$NODE_BIN" "$SRC_DIR/scripts/unit-environment.mjs" "$DESTDIR" "$SERVICE" "$unit" "/etc/systemd/system/$SERVICE"
}

# Asks the staged release whether the settings the service runs with still hold (the smoke start
# runs without them): the config file and the EDGEBLOCKS_* variables of the unit's environment
# (unit_environment), and no other environment, on the unit's data dir (read, not written: users
# with auth on, the database's schema). A value an older release took and this one refuses
# (a bound added since) would stop the service at its restart, exit 2 and no control, until
# someone came.
check_config() {
  local dir="$1" which="${2:-new release}" again="${3:-then run the installer again}"
  local home out config="$CONFIG_FILE" name value from what="$CONFIG_FILE" it=it
  local vars=() origins=()
  home="$(mktemp -d)"
  unit_environment "$dir" >"$home/env"
  while IFS= read -r -d '' name && IFS= read -r -d '' value && IFS= read -r -d '' from; do
    vars+=("$name=$value")
    origins+=("$name from $from")
  done <"$home/env"
  if [ ! -f "$CONFIG_FILE" ]; then
    # No file yet: the service gets the default one install_config writes.
    if [ ${#vars[@]} -eq 0 ]; then
      rm -rf "$home"
      return 0
    fi
    config="$home/config.json"
    default_config >"$config"
  fi
  # Under DESTDIR the file and the unit name places as on the installed system: --root says where it is.
  local root=()
  if [ -n "$DESTDIR" ]; then root=(--root "$DESTDIR"); fi
  if out="$(env -i PATH="$PATH" HOME="$home" "${vars[@]}" "$NODE_BIN" "$dir/dist/src/main.js" check "${root[@]}" --config "$config" --data-dir "$DATA_DIR" 2>&1)"; then
    rm -rf "$home"
    return 0
  fi
  rm -rf "$home"
  if [ ${#vars[@]} -gt 0 ]; then
    what="the settings of $SERVICE ($CONFIG_FILE and the EDGEBLOCKS_ variables of its environment)"
    [ -f "$CONFIG_FILE" ] || what="the settings of $SERVICE (the EDGEBLOCKS_ variables of its environment)"
    it=them
  fi
  warn "the $which refuses $what; the service would not start with $it:"
  printf '%s\n' "$out" | tail -n 5 | sed 's/^/  | /' >&2
  if [ ${#vars[@]} -gt 0 ]; then
    warn "the service's EDGEBLOCKS_ variables (\"env\" in the line above) and the file each one is set in:"
    printf '  %s\n' "${origins[@]}" >&2
  fi
  warn "change that setting (docs/configuration.md gives each one's range; a variable in a drop-in: sudo systemctl edit edgeblocks), then run the installer again"
  return 1
}

# Points PREFIX at a release in one rename(2), so the service never sees a half-installed tree.
switch_to() {
  local target="$1"
  ln -sfn "$target" "$INSTALL_DIR.switch"
  mv -T "$INSTALL_DIR.switch" "$INSTALL_DIR"
}

# Keeps the current release and the one before it.
prune_releases() {
  local keep_current keep_previous entry
  keep_current="$(current_release)"
  keep_previous="$(basename "$(readlink "$RELEASES_DIR/previous" 2>/dev/null || echo none)")"
  for entry in "$RELEASES_DIR"/*; do
    [ -d "$entry" ] && [ ! -L "$entry" ] || continue
    case "$(basename "$entry")" in
      "$keep_current" | "$keep_previous") ;;
      *) rm -rf "$entry" && log "removed old release $(basename "$entry")" ;;
    esac
  done
}

# --from FILE: the artifact is unpacked into a temporary directory and installed from there
# like a checkout whose node_modules are ready; it must be built for this machine.
unpack_release() {
  local file="$1" top mismatch
  [ -f "$file" ] || die "--from $file: no such file"
  FROM_DIR="$(mktemp -d)"
  trap 'rm -rf "$FROM_DIR"' EXIT
  tar -xzf "$file" -C "$FROM_DIR" 2>/dev/null || die "--from $file: not a release tarball (tar cannot unpack it)"
  top="$(find "$FROM_DIR" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
  if [ -z "$top" ] || [ ! -f "$top/release.json" ] || [ ! -f "$top/dist/src/main.js" ] || [ ! -d "$top/node_modules" ]; then
    die "--from $file: not an edgeblocks release (it needs release.json, dist and node_modules; build one with scripts/release.sh)"
  fi
  mismatch="$("$NODE_BIN" -e '
const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const major = process.versions.node.split(".")[0];
if (m.arch !== process.arch || m.modules !== process.versions.modules)
  console.log(`it is built for linux-${m.arch} and Node ${m.node} (module ABI ${m.modules}), this machine runs Node ${process.versions.node} on ${process.arch} (ABI ${process.versions.modules}): take the edgeblocks-*-linux-${process.arch}-node${major}.tar.gz artifact`);
' "$top/release.json")" || die "--from $file: cannot read its release.json"
  [ -z "$mismatch" ] || die "--from $file: $mismatch"
  SRC_DIR="$top"
  log "installing the release artifact $file ($("$NODE_BIN" -p 'const m = require(process.argv[1]); `${m.version} for linux-${m.arch}, Node ${m.node}`' "$top/release.json"))"
}

install_tree() {
  if [ ! -f "$SRC_DIR/dist/src/main.js" ]; then
    if [ "$SKIP_NPM" = 1 ]; then die "no build in $SRC_DIR/dist: run 'npm ci && npm run build' there first"; fi
    log "building the checkout (npm ci, npm run build)"
    (cd "$SRC_DIR" && npm ci && npm run build)
  fi
  mkdir -p "$RELEASES_DIR"
  # An install from before releases existed: keep it as the previous release.
  if [ -d "$INSTALL_DIR" ] && [ ! -L "$INSTALL_DIR" ]; then
    mv "$INSTALL_DIR" "$RELEASES_DIR/legacy"
    switch_to "$RELEASES_LINK/legacy"
    log "moved the existing install to $RELEASES_DIR/legacy"
  fi
  local id stage item
  id="$(release_id)"
  if [ "$(current_release)" = "$id" ] && [ -f "$RELEASES_DIR/$id/dist/src/main.js" ]; then
    log "release $id is already installed"
    return
  fi
  stage="$RELEASES_DIR/$id"
  rm -rf "$stage" "$stage.staging"
  mkdir -p "$stage.staging"
  local items=(package.json package-lock.json README.md LICENSE dist systemd scripts docs)
  # An artifact brings its node_modules, compiled for this machine.
  if [ -n "$from_file" ]; then items+=(release.json node_modules); fi
  for item in "${items[@]}"; do
    # The build times are kept (main.js loads dist/bundle only when it is not older than dist/src),
    # the checkout's owner is not: the copy belongs to whoever installs (root).
    if [ -e "$SRC_DIR/$item" ]; then cp -R --preserve=mode,timestamps "$SRC_DIR/$item" "$stage.staging/"; fi
  done
  # The CLI is run through the link on PATH: its shebang needs the x bit (npm would set it).
  chmod 755 "$stage.staging/dist/src/main.js"
  log "staging release $id in $stage.staging"
  # From here on a failure removes the staging tree and leaves the running release alone.
  trap 'rm -rf "$stage.staging"; die "upgrade failed at line $LINENO: $BASH_COMMAND; the running release ($(current_release || true)) is untouched"' ERR
  if [ "$SKIP_NPM" = 1 ]; then
    log "SKIP_NPM=1: not installing node modules"
  elif [ -n "$from_file" ]; then
    log "node modules from the artifact (no npm, no compiler)"
  else
    # --ignore-scripts keeps npm from running our own "prepare" (tsc is a dev dependency);
    # rebuild then runs the install scripts that compile the native modules.
    (cd "$stage.staging" && npm ci --omit=dev --ignore-scripts && npm rebuild)
  fi
  # Root runs this code (the failsafe, the CLI under sudo): root's, and nobody else may change it.
  if [ "$EUID" -eq 0 ]; then chown -R -h 0:0 "$stage.staging"; fi
  chmod -R go-w "$stage.staging"
  smoke_start "$stage.staging"
  check_config "$stage.staging"
  mv "$stage.staging" "$stage"
  trap 'die "failed at line $LINENO: $BASH_COMMAND"' ERR
  local previous
  previous="$(current_release)"
  if [ -n "$previous" ]; then ln -sfn "$previous" "$RELEASES_DIR/previous"; fi
  switch_to "$RELEASES_LINK/$id"
  log "installed release $id in $stage${previous:+ (previous: $previous, for --rollback)}"
  prune_releases
}

do_rollback() {
  check_node
  step "point $INSTALL_DIR at the previous release ($(basename "$(readlink "$RELEASES_DIR/previous" 2>/dev/null || echo none)")) and restart $SERVICE" roll_back
}

roll_back() {
  local previous current
  previous="$(basename "$(readlink "$RELEASES_DIR/previous" 2>/dev/null || true)" 2>/dev/null || true)"
  [ -n "$previous" ] && [ -f "$RELEASES_DIR/$previous/dist/src/main.js" ] || die "no previous release to roll back to in $RELEASES_DIR"
  current="$(current_release)"
  # The previous release restarts on today's settings and data dir (a setting added since, a
  # database the newer release migrated): asked first, as an upgrade asks the new one.
  check_config "$RELEASES_DIR/$previous" "previous release" "then run the rollback again" ||
    die "rollback to $previous refused; still on ${current:-the current release}, running as it was"
  switch_to "$RELEASES_LINK/$previous"
  if [ -n "$current" ]; then ln -sfn "$current" "$RELEASES_DIR/previous"; fi
  log "rolled back to $previous${current:+ ($current kept as previous)}"
  systemctl restart "$SERVICE"
}

ensure_user() {
  local group members missing=()
  for group in "${DEVICE_GROUPS[@]}"; do
    getent group "$group" >/dev/null || { groupadd --system "$group" && log "created group $group"; }
  done
  if ! getent passwd "$SERVICE_USER" >/dev/null; then
    useradd --system --user-group --home-dir /var/lib/edgeblocks --no-create-home \
      --shell /usr/sbin/nologin --comment "edgeblocks controller" "$SERVICE_USER"
    log "created user $SERVICE_USER"
  fi
  for group in "${DEVICE_GROUPS[@]}"; do
    members="$(getent group "$group" | cut -d: -f4 || true)"
    case ",$members," in
      *",$SERVICE_USER,"*) ;;
      *) missing+=("$group") ;;
    esac
  done
  if [ ${#missing[@]} -gt 0 ]; then
    usermod -a -G "$(IFS=,; echo "${missing[*]}")" "$SERVICE_USER"
    log "added $SERVICE_USER to ${missing[*]}"
  fi
}

default_config() {
  local mqtt='"embedded"'
  if [ "$with_mosquitto" -eq 1 ]; then mqtt='"mqtt://localhost:1883"'; fi
  cat <<EOF
{
  "serviceId": "edge-one",
  "hardware": "linux",
  "port": 5000,
  "httpsPort": 443,
  "mqttUrl": $mqtt,
  "gpio": []
}
EOF
}

install_config() {
  if [ -f "$CONFIG_FILE" ]; then
    log "keeping existing $CONFIG_FILE"
    return
  fi
  mkdir -p "$ETC_DIR"
  default_config | write_if_changed "$CONFIG_FILE" 0640 || true
  # Ownership only on the real system: a DESTDIR tree is staged by whoever packs it.
  if [ -z "$DESTDIR" ]; then chgrp "$SERVICE_USER" "$CONFIG_FILE"; fi
  log "wrote $CONFIG_FILE (edit it, then: systemctl restart $SERVICE)"
}

install_unit() {
  local source="$INSTALL_DIR/systemd/$SERVICE"
  [ -f "$source" ] || source="$SRC_DIR/systemd/$SERVICE"
  if sed -e "s#/usr/bin/node#$NODE_BIN#g" -e "s#/opt/edgeblocks#$PREFIX#g" "$source" | write_if_changed "$UNIT_FILE" 0644; then
    log "installed $UNIT_FILE"
  else
    log "$UNIT_FILE is up to date"
  fi
}

# `edgeblocks` on PATH (sudo's secure_path has /usr/local/bin), through PREFIX so that an
# upgrade or a rollback moves it along.
install_cli_link() {
  local target="$PREFIX/dist/src/main.js"
  if [ "$(readlink "$BIN_LINK" 2>/dev/null || true)" = "$target" ]; then return; fi
  mkdir -p "$(dirname "$BIN_LINK")"
  ln -sfn "$target" "$BIN_LINK"
  log "linked $BIN_LINK to $target"
}

boot_config_path() {
  if [ -n "${BOOT_CONFIG:-}" ]; then
    echo "$BOOT_CONFIG"
  elif [ -d "$DESTDIR/boot/firmware" ]; then
    echo "$DESTDIR/boot/firmware/config.txt"
  else
    echo "$DESTDIR/boot/config.txt"
  fi
}

# Appends a setting unless an active line already has it. Lines go under [all] so that a
# trailing conditional section such as [pi4] or [cm5] does not swallow them.
ensure_boot_setting() {
  local file="$1" line="$2" pattern="$3" last_section
  grep -Eq "^[[:space:]]*$pattern" "$file" && return 1
  last_section="$(grep -E '^[[:space:]]*\[' "$file" | tail -n 1 | tr -d '[:space:]' || true)"
  if [ -n "$last_section" ] && [ "$last_section" != "[all]" ]; then
    printf '\n[all]\n' >>"$file"
  fi
  printf '%s\n' "$line" >>"$file"
  log "added '$line' to $file"
  return 0
}

enable_interfaces() {
  local file changed=0 module
  file="$(boot_config_path)"
  if [ ! -f "$file" ]; then
    warn "$file not found: creating it (is this a Raspberry Pi?)"
    mkdir -p "$(dirname "$file")"
    touch "$file"
  fi
  ensure_boot_setting "$file" "dtparam=i2c_arm=on" 'dtparam=i2c_arm=on([[:space:],]|$)' && changed=1
  ensure_boot_setting "$file" "dtoverlay=w1-gpio" 'dtoverlay=w1-gpio([[:space:],]|$)' && changed=1
  if printf 'i2c-dev\n' | write_if_changed "$MODULES_FILE" 0644; then log "wrote $MODULES_FILE"; fi
  for module in i2c-dev w1-gpio w1-therm; do
    modprobe "$module" 2>/dev/null || warn "could not load module $module now (it loads after a reboot)"
  done
  if [ "$changed" -eq 1 ]; then warn "$file changed: reboot for the w1/i2c overlays to take effect"; fi
}

install_mosquitto() {
  log "installing Mosquitto"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mosquitto
}

print_access() {
  local host port sid
  port="$("$NODE_BIN" -e 'try{const c=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(c.port??5000)}catch{console.log(5000)}' "$CONFIG_FILE" 2>/dev/null || echo 5000)"
  sid="$("$NODE_BIN" -e 'try{const c=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(c.serviceId??"edge-one")}catch{console.log("edge-one")}' "$CONFIG_FILE" 2>/dev/null || echo edge-one)"
  host="$(hostname -I 2>/dev/null | awk '{print $1}' || true)"
  [ -n "$host" ] || host="$(hostname 2>/dev/null || echo localhost).local"
  log "done. The API:      http://$host:$port/$sid/system/ping"
  log "      API docs:     http://$host:$port/$sid/api/doc"
  log "      status, logs: systemctl status edgeblocks; journalctl -u edgeblocks -f"
}

# What a step will find, for --dry-run (read-only).
describe_release() {
  local id current npm=", npm ci --omit=dev, npm rebuild"
  id="$(release_id)"
  current="$(current_release)"
  [ "$SKIP_NPM" != 1 ] || npm=""
  [ -z "$from_file" ] || npm=" with its node modules"
  if [ "$current" = "$id" ]; then
    echo "keep release $id, already installed in $RELEASES_DIR"
  else
    echo "stage release $id of $SRC_DIR in $RELEASES_DIR/$id (copy$npm, a smoke start on emulated hardware within $SMOKE_SECONDS s), then point $INSTALL_DIR at it${current:+ (keeping $current for --rollback)}"
  fi
}

describe_user() {
  if getent passwd "$SERVICE_USER" >/dev/null 2>&1; then
    echo "check that user $SERVICE_USER is in the groups ${DEVICE_GROUPS[*]} (add it where missing)"
  else
    echo "create the system user $SERVICE_USER and add it to the groups ${DEVICE_GROUPS[*]} (creating missing groups)"
  fi
}

describe_config() {
  if [ -f "$CONFIG_FILE" ]; then echo "keep the existing $CONFIG_FILE"; else echo "write a default $CONFIG_FILE (mode 0640, group $SERVICE_USER)"; fi
}

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

systemctl_enable() {
  systemctl daemon-reload
  systemctl enable "$SERVICE"
}

start_service() {
  systemctl restart "$SERVICE"
  print_access
}

remove_files() {
  if [ -f "$UNIT_FILE" ]; then
    # Stopping runs ExecStopPost, the failsafe, so it goes before the files are removed.
    systemctl disable --now "$SERVICE" || warn "could not stop/disable $SERVICE"
    rm -f "$UNIT_FILE"
    systemctl daemon-reload
    systemctl reset-failed "$SERVICE" 2>/dev/null || true
    log "removed $UNIT_FILE"
  fi
  rm -rf "$INSTALL_DIR" "$RELEASES_DIR" "$INSTALL_DIR.new" "$INSTALL_DIR.switch"
  if [ -L "$BIN_LINK" ]; then rm -f "$BIN_LINK" && log "removed $BIN_LINK"; fi
  log "removed $INSTALL_DIR and its releases"
  if [ "$purge" -eq 1 ]; then
    rm -rf "$ETC_DIR" "$DATA_DIR"
    rm -f "$MODULES_FILE"
    if getent passwd "$SERVICE_USER" >/dev/null; then
      userdel "$SERVICE_USER"
      log "removed user $SERVICE_USER"
    fi
    log "purged $ETC_DIR and $DATA_DIR"
  else
    log "kept $ETC_DIR and $DATA_DIR (--purge removes them)"
  fi
}

do_uninstall() {
  local what="stop and disable $SERVICE, remove $UNIT_FILE, $BIN_LINK, $INSTALL_DIR and its releases"
  if [ "$purge" -eq 1 ]; then what="$what; purge $ETC_DIR, $DATA_DIR, $MODULES_FILE and the user $SERVICE_USER"; else what="$what; keep $ETC_DIR and $DATA_DIR"; fi
  step "$what" remove_files
}

if [ "$uninstall" -eq 1 ]; then
  do_uninstall
elif [ "$rollback" -eq 1 ]; then
  do_rollback
else
  do_install
fi
