# Sourced by scripts/install-pi.sh (its settings and log, warn, die, step are set there).
# The installer's helpers for every mode: files written only when they change, and the node the
# service runs on.

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
