#!/usr/bin/env bash
# Proves edgeblocks on the Raspberry Pi's own architecture without a Pi: builds an arm64 Debian
# trixie userland (the base of Raspberry Pi OS) with mmdebstrap, runs it under qemu-user-static,
# and inside it runs this checkout's CI entry point (.ci/run: apt packages, npm ci with the
# native modules compiled for arm64, the whole test suite). Prints the timings and the counts.
#
#   sudo scripts/check-arm64.sh [--keep] [--reuse] [-- TAP ARGS...]
#
#   --keep        keep the unpacked userland (default: removed at the end; the tarball is kept)
#   --reuse       run in the userland a --keep run left, as it is: no fresh copy of the tree, no
#                 npm ci (an hour under emulation); needs -- ARGS. For re-running some files.
#   -- ARGS       run `npx tap ARGS` instead of the whole suite (e.g. -- test/drivers); after the
#                 same apt packages and npm ci as .ci/run, unless --reuse
#   --release     build the arm64 release artifact instead of testing: this checkout's dist/
#                 (JavaScript, built here first unless --skip-build) goes into the userland, where
#                 scripts/release.sh --fresh-modules compiles the native modules for arm64; then
#                 the artifact is installed in the userland with install-pi.sh --from, without
#                 npm or a compiler on PATH, and both steps are measured (wall time, peak memory)
#   --skip-build  with --release: take dist/ as it is
#   --out DIR     with --release: where the artifact goes (default: release/ in the checkout)
#   --measure-npm-ci  with --release: also measure a full `npm ci` of the checkout in the
#                 userland (the install without an artifact; about an hour)
#
# Environment:
#   ARM64_CACHE   where the userland tarball and the unpacked root live (default /var/cache/edgeblocks-arm64)
#   ARM64_MIRROR  Debian mirror (default http://deb.debian.org/debian)
#   EDGEBLOCKS_TEST_SLOWDOWN  multiplier for the tests' start and wait limits and for tap's limit
#                 per test file (default 8 here: emulation runs Node about 5-10x slower than the host)
#
# Needs root (chroot, mounts) and, from Debian: mmdebstrap qemu-user-static binfmt-support arch-test.
set -Eeuo pipefail

CACHE="${ARM64_CACHE:-/var/cache/edgeblocks-arm64}"
MIRROR="${ARM64_MIRROR:-http://deb.debian.org/debian}"
SLOWDOWN="${EDGEBLOCKS_TEST_SLOWDOWN:-8}"
SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# tap's limit per test file (package.json "tap.timeout"), stretched like the tests' own limits.
TAP_FILE_TIMEOUT=$(( $(sed -nE 's/^ *"timeout": ([0-9]+),?$/\1/p' "$SRC_DIR/package.json" | head -n 1 || true) + 0 ))
[ "$TAP_FILE_TIMEOUT" -gt 0 ] || TAP_FILE_TIMEOUT=120
TAP_FILE_TIMEOUT=$(( TAP_FILE_TIMEOUT * SLOWDOWN ))
SHARED_DIR="$(cd "$SRC_DIR/.." && pwd)/shared"
TARBALL="$CACHE/rootfs.tar"
ROOT="$CACHE/root"
PACKAGES=nodejs,libnode-dev,npm,python3,make,g++,ca-certificates,mosquitto,mosquitto-clients,socat,procps,openssl,util-linux,git,time

keep=0
reuse=0
release=0
skip_build=0
measure_npm_ci=0
out="$SRC_DIR/release"
tap_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    --reuse) reuse=1 ;;
    --release) release=1 ;;
    --skip-build) skip_build=1 ;;
    --measure-npm-ci) measure_npm_ci=1 ;;
    --out)
      [ $# -ge 2 ] || { echo "check-arm64: --out needs a directory" >&2; exit 2; }
      out="$2"
      shift
      ;;
    --) shift; tap_args=("$@"); break ;;
    -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p;}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "check-arm64: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

log() { printf 'check-arm64: %s\n' "$*"; }
die() { printf 'check-arm64: error: %s\n' "$*" >&2; exit 1; }
[ "$EUID" -eq 0 ] || die "run as root (chroot and mounts): sudo $0"
if [ "$reuse" -eq 1 ]; then
  [ ${#tap_args[@]} -gt 0 ] || die "--reuse runs some test files: give them after --"
  [ -d "$ROOT/work/main/node_modules" ] || die "--reuse: no userland with node_modules in $ROOT (run once with --keep)"
  keep=1
fi

need=()
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
[ -e /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] || [ -x /usr/bin/qemu-aarch64-static ] || need+=(qemu-user-static)
command -v update-binfmts >/dev/null || need+=(binfmt-support)
# mmdebstrap checks with arch-test that the foreign architecture runs (a Recommends, not a Depends).
command -v arch-test >/dev/null || need+=(arch-test)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64 || die "cannot register qemu-aarch64 with binfmt_misc"

mkdir -p "$CACHE"
t0=$(date +%s)
if [ ! -f "$TARBALL" ]; then
  log "building the arm64 trixie userland (once; cached in $TARBALL)"
  # The format is named: mmdebstrap guesses it from the file name, and "*.part" would be a directory.
  mmdebstrap --arch=arm64 --variant=apt --format=tar --include="$PACKAGES" trixie "$TARBALL.part" "$MIRROR"
  mv "$TARBALL.part" "$TARBALL"
fi
t_rootfs=$(( $(date +%s) - t0 ))

mounted=()
cleanup() {
  local m
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  if [ "$keep" -eq 0 ]; then rm -rf "$ROOT"; fi
}
trap cleanup EXIT

if [ "$reuse" -eq 0 ]; then
  rm -rf "$ROOT"
  mkdir -p "$ROOT"
  tar -xf "$TARBALL" -C "$ROOT"
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
  # The host's trust store too: a registry reached through a TLS-inspecting proxy needs its CA.
  cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
  mkdir -p "$ROOT/work/main"
  # What CI sees: the committed tree, and shared/ beside it.
  git -C "$SRC_DIR" archive HEAD | tar -x -C "$ROOT/work/main"
  git -C "$SRC_DIR" rev-parse --short HEAD >"$ROOT/work/commit"
  if [ -d "$SHARED_DIR" ]; then cp -rL "$SHARED_DIR" "$ROOT/work/shared"; fi
  # The host's npm cache, if any: the tarballs are architecture-independent, and under emulation a
  # slow registry fetch can hit npm's socket timeout.
  if [ -d "${HOME:-/root}/.npm/_cacache" ]; then mkdir -p "$ROOT/root/.npm" && cp -a "${HOME:-/root}/.npm/_cacache" "$ROOT/root/.npm/"; fi
fi
for m in proc sys dev dev/pts; do
  mkdir -p "$ROOT/$m"
  case "$m" in
    proc) mount -t proc proc "$ROOT/proc" ;;
    dev/pts) mount -t devpts -o newinstance,ptmxmode=0666 devpts "$ROOT/dev/pts" ;;
    *) mount --rbind "/$m" "$ROOT/$m" ;;
  esac
  mounted+=("$ROOT/$m")
done
mount -t tmpfs tmpfs "$ROOT/tmp" && mounted+=("$ROOT/tmp")

inside() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CI=true \
  EDGEBLOCKS_TEST_SLOWDOWN="$SLOWDOWN" TAP_TIMEOUT="$TAP_FILE_TIMEOUT" LANG=C.UTF-8 NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
  npm_config_cafile=/etc/ssl/certs/ca-certificates.crt npm_config_nodedir=/usr \
  npm_config_prefer_offline=true npm_config_fetch_timeout=600000 npm_config_fetch_retries=5 "$@"; }

# node-gyp builds the native modules against Debian's Node headers (/usr/include/node): the
# headers tarball from nodejs.org is not always reachable. Older cached userlands lack them.
[ -d "$ROOT/usr/include/node" ] || inside apt-get install -y -qq --no-install-recommends libnode-dev >/dev/null
# --release: the artifact for arm64, and what installing it costs under emulation.
if [ "$release" -eq 1 ]; then
  [ -x "$ROOT/usr/bin/time" ] || inside apt-get install -y -qq --no-install-recommends time >/dev/null
  if [ "$skip_build" -eq 0 ]; then
    log "building dist/ here (JavaScript: the same on every architecture)"
    (cd "$SRC_DIR" && npm run build >/dev/null && npm run build:web >/dev/null)
  fi
  [ -f "$SRC_DIR/dist/src/main.js" ] && [ -f "$SRC_DIR/dist/web/index.html" ] || die "no build in $SRC_DIR/dist (leave out --skip-build)"
  rm -rf "$ROOT/work/main/dist" && cp -pR "$SRC_DIR/dist" "$ROOT/work/main/dist"
  log "userland: $(inside uname -m), $(inside sh -c '. /etc/os-release; echo $PRETTY_NAME'), node $(inside node --version)"
  # GNU time's "Maximum resident set size" is the largest single process of the step (qemu-user's
  # own memory included, so an upper bound of what a Pi needs).
  measure() {
    local name="$1" wall peak
    shift
    inside /usr/bin/time -v -o "/work/$name.time" "$@" >"$CACHE/$name.log" 2>&1 || die "$name failed (see $CACHE/$name.log)"
    grep -E '^(release|install-pi):' "$CACHE/$name.log" || true
    wall=$(sed -nE 's/.*Elapsed \(wall clock\) time.*: (.*)/\1/p' "$ROOT/work/$name.time")
    peak=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$ROOT/work/$name.time")
    log "$name: wall $wall, peak memory $((peak / 1024)) MB"
    printf '%s\twall %s\tpeak %s MB\n' "$name" "$wall" "$((peak / 1024))" >>"$CACHE/release-figures.tsv"
  }
  : >"$CACHE/release-figures.tsv"
  log "building the artifact (npm ci --omit=dev, native modules compiled for arm64)"
  measure build-artifact sh -c 'cd /work/main && rm -rf /work/release && bash scripts/release.sh --skip-build --fresh-modules --out /work/release'
  artifact=$(ls "$ROOT"/work/release/edgeblocks-*-linux-arm64-node*.tar.gz 2>/dev/null | head -n 1 || true)
  [ -n "$artifact" ] && [ -f "$artifact" ] || die "no artifact was built (see $CACHE/build-artifact.log)"
  mkdir -p "$out"
  cp "$artifact" "$out/"
  log "artifact: $out/$(basename "$artifact")"
  # The Pi: a fresh directory with the tarball only; systemctl is a stand-in (no init in a
  # chroot), and npm and the compilers fail if anything calls them.
  inside sh -c 'rm -rf /work/pi && mkdir -p /work/pi/bin && cd /work/pi/bin &&
    for tool in npm npx cc gcc g++ make; do printf "#!/bin/sh\necho \"%s must not run\" >&2; exit 97\n" "$tool" >"$tool"; done &&
    printf "#!/bin/sh\nexit 0\n" >systemctl && chmod 755 *'
  cp "$artifact" "$ROOT/work/pi/"
  name=$(basename "$artifact")
  top=${name%%-linux-*}
  log "installing it with install-pi.sh --from (smoke start included)"
  measure install-from-artifact sh -c "cd /work/pi && tar -xzf $name && PATH=/work/pi/bin:\$PATH SMOKE_SECONDS=900 bash $top/scripts/install-pi.sh --from $name --no-start"
  inside /opt/edgeblocks/dist/src/main.js --version >/dev/null || die "the installed release does not run"
  log "installed: edgeblocks $(inside /opt/edgeblocks/dist/src/main.js --version) in /opt/edgeblocks"
  if [ "$measure_npm_ci" -eq 1 ]; then
    log "for comparison: a full npm ci of the checkout (the install without an artifact)"
    measure npm-ci sh -c 'cd /work/main && rm -rf node_modules && npm ci --no-audit --no-fund'
  fi
  log "figures ($CACHE/release-figures.tsv):"
  cat "$CACHE/release-figures.tsv"
  exit 0
fi

log "userland: $(inside uname -m), $(inside sh -c '. /etc/os-release; echo $PRETTY_NAME'), node $(inside node --version), npm $(inside npm --version)"
log "host: $(uname -m), $(nproc) cores; tests run with EDGEBLOCKS_TEST_SLOWDOWN=$SLOWDOWN, ${TAP_FILE_TIMEOUT} s per test file"
log "tree: commit $(cat "$ROOT/work/commit" 2>/dev/null || echo unknown)$([ "$reuse" -eq 1 ] && echo ', as the --keep run left it')"

t1=$(date +%s)
if [ ${#tap_args[@]} -gt 0 ]; then
  if [ "$reuse" -eq 0 ]; then
    # What .ci/run installs before the tests (the history tests need victoria-metrics, the
    # dashboard tests chromium), then npm ci as CI runs it.
    inside sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(sed -nE "s/.*\|\| need\+=\(([a-z0-9-]+)\)$/\1/p" /work/main/.ci/run) >/dev/null'
    inside sh -c 'cd /work/main && npm ci --no-audit --no-fund' 2>&1 | tee "$CACHE/npm-ci.log" | tail -n 5
  fi
  t_install=$(( $(date +%s) - t1 ))
  t2=$(date +%s)
  set +e
  inside sh -c "cd /work/main && npx tap $(printf '%q ' "${tap_args[@]}")" >"$CACHE/test.log" 2>&1
  status=$?
  set -e
  summary=$(grep -E '^# \{ total: [0-9]+' "$CACHE/test.log" | tail -n 1 || true)
  pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary"); fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")
  line="${pass:-0} passed, ${fail:-0} failed"
else
  set +e
  inside sh -c 'cd /work/main && bash .ci/run' >"$CACHE/test.log" 2>&1
  status=$?
  set -e
  t_install=$(grep -m1 -oE 'added [0-9]+ packages in [^ ]+' "$CACHE/test.log" || echo "see $CACHE/test.log")
  t2=$t1
  line=$(tail -n 1 "$CACHE/test.log")
fi
t_tests=$(( $(date +%s) - t2 ))
log "userland build: ${t_rootfs}s (0 when cached); npm ci: ${t_install}${tap_args:+s}; tests: $((t_tests / 60)) min $((t_tests % 60)) s"
log "log: $CACHE/test.log"
echo "$line"
exit "$status"
