# Sourced by scripts/install-pi.sh (its settings and log, warn, die, step are set there).
# I2C and 1-Wire (--enable-interfaces): config.txt lines and the modules to load.

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
