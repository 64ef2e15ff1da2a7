# Sourced by scripts/install-pi.sh (its settings and log, warn, die, step are set there).
# The system around the release: the service user and its device groups, the config file, the
# unit, the `edgeblocks` link on PATH, systemctl, Mosquitto, and removing them all again.

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

systemctl_enable() {
  systemctl daemon-reload
  systemctl enable "$SERVICE"
}

start_service() {
  systemctl restart "$SERVICE"
  print_access
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

install_mosquitto() {
  log "installing Mosquitto"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mosquitto
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
    # A data dir moved to another disk, DATA_DIR a link to it: the link goes, what it leads to
    # (which may be anywhere) stays, and the user is told where.
    local moved=""
    # Plain readlink: with the disk not mounted, -f resolves nothing.
    if [ -L "$DATA_DIR" ]; then moved="$(readlink "$DATA_DIR" || echo "(a target readlink cannot read)")"; fi
    rm -rf "$ETC_DIR" "$DATA_DIR"
    rm -f "$MODULES_FILE"
    if getent passwd "$SERVICE_USER" >/dev/null; then
      userdel "$SERVICE_USER"
      log "removed user $SERVICE_USER"
    fi
    if [ -n "$moved" ]; then
      log "purged $ETC_DIR"
      log "$DATA_DIR was a link: removed it, and kept the data dir it led to, $moved (remove it yourself if you no longer want it)"
    else
      log "purged $ETC_DIR and $DATA_DIR"
    fi
  else
    log "kept $ETC_DIR and $DATA_DIR (--purge removes them)"
  fi
}

do_uninstall() {
  local what="stop and disable $SERVICE, remove $UNIT_FILE, $BIN_LINK, $INSTALL_DIR and its releases"
  if [ "$purge" -eq 1 ]; then what="$what; purge $ETC_DIR, $DATA_DIR (if a link, the link alone), $MODULES_FILE and the user $SERVICE_USER"; else what="$what; keep $ETC_DIR and $DATA_DIR"; fi
  step "$what" remove_files
}
