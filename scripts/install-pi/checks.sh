# Sourced by scripts/install-pi.sh (its settings and log, warn, die, step are set there).
# What a release is asked before it is swapped in or rolled back to: a smoke start on emulated
# hardware, and a check of the settings the service runs with (the config file, the unit's
# EDGEBLOCKS_ variables, the data dir).

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
# the new release installs and of the drop-ins (`systemctl edit edgeblocks`), over DefaultEnvironment=
# of /etc/systemd/system.conf and its drop-ins, less UnsetEnvironment=, read from the files
# rather than asked of systemctl: the installer reloads systemd before the restart, so the files
# are what the service gets, and they are there under DESTDIR and without a running systemd.
unit_environment() {
  local unit="$1/systemd/$SERVICE"
  [ -f "$unit" ] || unit="$UNIT_FILE"
  "$NODE_BIN" "$SRC_DIR/scripts/unit-environment.mjs" "$DESTDIR" "$SERVICE" "$unit" "/etc/systemd/system/$SERVICE" "${@:2}"
}

# Asks the staged release whether the settings the service runs with still hold (the smoke start
# runs without them): the config file and the EDGEBLOCKS_* variables of the unit's environment
# (unit_environment), and no other environment, on the unit's data dir (read, not written: users
# with auth on, the database's schema). A value an older release took and this one refuses
# (a bound added since) would stop the service at its restart, exit 2 and no control, until
# someone came. Status 1: refused; 3: the release has no `check` (from before 2026-11-29).
check_config() {
  local dir="$1" which="${2:-new release}" again="${3:-then run the installer again}"
  local home out config="$CONFIG_FILE" name value from what="$CONFIG_FILE" it=it
  local vars=() origins=() data_dir="$DATA_DIR" args=() flags=() word i standin=0
  home="$(mktemp -d)"
  unit_environment "$dir" >"$home/env"
  # The service's flags in its effective ExecStart (a drop-in may replace it; its specifiers and
  # variables expanded by the same reader as the doctor's): the release is asked with them (but
  # its --config and --data-dir, given below), and the file and data dir it reads are their
  # --config and --data-dir (the last ones, as the service takes them). Words the reader cannot
  # work out stop the check rather than let it read another file or dir.
  if ! unit_environment "$dir" --args >"$home/args" 2>"$home/why"; then
    warn "cannot tell the command line $SERVICE starts with, so the $which cannot be checked with it:"
    sed 's/^/  | /' "$home/why" >&2
    warn "change that ExecStart, $again"
    rm -rf "$home"
    return 1
  fi
  if [ -s "$home/why" ]; then
    warn "the ExecStart of $SERVICE, as systemd will start it:"
    sed 's/^/  | /' "$home/why" >&2
  fi
  while IFS= read -r -d '' word; do args+=("$word"); done <"$home/args"
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
      --data-dir)
        if [[ "${args[i + 1]:-}" == /* ]]; then data_dir="$DESTDIR${args[i + 1]}"; fi
        i=$((i + 1))
        ;;
      --data-dir=*) if [[ "${args[i]}" == --data-dir=/* ]]; then data_dir="$DESTDIR${args[i]#--data-dir=}"; fi ;;
      --config)
        if [[ "${args[i + 1]:-}" == /* ]]; then config="$DESTDIR${args[i + 1]}"; fi
        i=$((i + 1))
        ;;
      --config=*) if [[ "${args[i]}" == --config=/* ]]; then config="$DESTDIR${args[i]#--config=}"; fi ;;
      *) flags+=("${args[i]}") ;;
    esac
  done
  # The unit's file spelt otherwise (// and .) is that file.
  if [ "$(realpath -m -s -- "$config")" = "$(realpath -m -s -- "$CONFIG_FILE")" ]; then config="$CONFIG_FILE"; fi
  what="$config"
  # The unit's file not written yet: install_config writes the default one, which stands in for
  # it (below). A drop-in's other file is the brewer's to write: checked as it is.
  if [ ! -f "$config" ] && [ "$config" = "$CONFIG_FILE" ]; then standin=1; fi
  while IFS= read -r -d '' name && IFS= read -r -d '' value && IFS= read -r -d '' from; do
    # Before the config file is written, the default one stands in for it (below): the unit's
    # file named again by a drop-in is that one, not a second file.
    # (Spelt as the service compares it: // and . are one file.)
    if [ "$standin" -eq 1 ] && [ "$name" = EDGEBLOCKS_CONFIG ] &&
      [ "$(realpath -m -s -- "$value")" = "$(realpath -m -s -- "${CONFIG_FILE#"$DESTDIR"}")" ]; then continue; fi
    vars+=("$name=$value")
    origins+=("$name from $from")
  done <"$home/env"
  if [ "$standin" -eq 1 ]; then
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
  local check=(env -i PATH="$PATH" HOME="$home" "${vars[@]}" "$NODE_BIN" "$dir/dist/src/main.js" check)
  local given=("${flags[@]}" --config "$config" --data-dir "$data_dir")
  if out="$("${check[@]}" "${root[@]}" "${given[@]}" 2>&1)"; then
    rm -rf "$home"
    return 0
  fi
  # A release from before `check --root` (2026-11-30, a rollback's) refuses the flag itself: it is
  # asked as its own installer asked it.
  if [ ${#root[@]} -gt 0 ] && [[ "$out" == *"--root: unknown option"* ]] && out="$("${check[@]}" "${given[@]}" 2>&1)"; then
    rm -rf "$home"
    return 0
  fi
  rm -rf "$home"
  # The stand-in file is named as the one it stands in for.
  out="${out//"$home/config.json"/"${CONFIG_FILE#"$DESTDIR"} (not written yet)"}"
  if [ ${#vars[@]} -gt 0 ]; then
    what="the settings of $SERVICE ($what and the EDGEBLOCKS_ variables of its environment)"
    [ "$standin" -eq 0 ] || what="the settings of $SERVICE (the EDGEBLOCKS_ variables of its environment)"
    it=them
  fi
  # A release from before `check` (2026-11-29) cannot say whether the settings hold: it is not
  # blamed on them, and the caller is told so by status 3 (a rollback goes on, saying so). Until
  # 2026-11-25 it refused the word as an unknown option, since then as an unexpected argument.
  if [[ "$out" == *'"check": unexpected argument'* || "$out" == *'check: unknown option'* ]]; then
    warn "the $which has no \`edgeblocks check\` (a release from before 2026-11-29), so it cannot check $what:"
    printf '%s\n' "$out" | tail -n 5 | sed 's/^/  | /' >&2
    return 3
  fi
  warn "the $which refuses $what; the service would not start with $it:"
  printf '%s\n' "$out" | tail -n 5 | sed 's/^/  | /' >&2
  if [ ${#vars[@]} -gt 0 ]; then
    warn "the service's EDGEBLOCKS_ variables (\"env\" in the line above) and the file each one is set in:"
    printf '  %s\n' "${origins[@]}" >&2
  fi
  warn "change that setting (docs/configuration.md gives each one's range; a variable in a drop-in: sudo systemctl edit edgeblocks), $again"
  return 1
}
