# Sourced by scripts/install-pi.sh (its settings and log, warn, die, step are set there).
# Releases side by side in PREFIX.releases: named by what they ship, staged (copy, node modules,
# the checks of checks.sh) beside the running one, swapped in by one rename, kept one back for
# --rollback.

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
  # A release from before `check` cannot be asked: the way back to it stays open (what a rollback
  # is kept for), said to be unchecked, with the way to return if it does not start.
  local checked=0
  check_config "$RELEASES_DIR/$previous" "previous release" "then run the rollback again" || checked=$?
  if [ "$checked" -eq 3 ]; then
    warn "rolling back to $previous anyway: today's settings and data dir were not checked by it; if $SERVICE does not start with them (journalctl -u $SERVICE), return to ${current:-the current release} with --rollback again"
  elif [ "$checked" -ne 0 ]; then
    die "rollback to $previous refused; still on ${current:-the current release}, running as it was"
  fi
  switch_to "$RELEASES_LINK/$previous"
  if [ -n "$current" ]; then ln -sfn "$current" "$RELEASES_DIR/previous"; fi
  log "rolled back to $previous${current:+ ($current kept as previous)}"
  systemctl restart "$SERVICE"
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
