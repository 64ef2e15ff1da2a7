#!/usr/bin/env bash
# Builds the release artifact: a tarball of the built service with its production dependencies,
# native modules compiled for this machine's architecture and Node version. A Pi installs it
# with `sudo scripts/install-pi.sh --from FILE`: no compiler, no TypeScript build, no npm there
# (npm ci peaks at about 600 MB, more than a Pi Zero 2 W has). See docs/raspberry-pi.md.
#
#   npm run release [-- OPTIONS]
#   scripts/release.sh [--out DIR] [--skip-build] [--fresh-modules]
#
# Options:
#   --out DIR         where the tarball goes (default: release/ in the checkout)
#   --skip-build      use the dist/ that is there (default: npm run build and build:web first)
#   --fresh-modules   install the production dependencies from the lock file and compile the
#                     native modules here (npm ci --omit=dev, npm rebuild), instead of taking
#                     them from the checkout's node_modules; what an arm64 build does (see
#                     scripts/check-arm64.sh --release)
#
# The tarball is edgeblocks-VERSION-linux-ARCH-nodeMAJOR.tar.gz; it holds one directory,
# edgeblocks-VERSION/, with dist, node_modules, systemd, scripts, docs and release.json (what
# it was built for: the installer refuses another architecture or Node ABI).
set -Eeuo pipefail

SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$SRC_DIR/release"
build=1
fresh=0

log() { printf 'release: %s\n' "$*"; }
die() {
  printf 'release: error: %s\n' "$*" >&2
  exit 1
}

while [ $# -gt 0 ]; do
  case "$1" in
    --out)
      [ $# -ge 2 ] || die "--out needs a directory"
      out="$2"
      shift
      ;;
    --skip-build) build=0 ;;
    --fresh-modules) fresh=1 ;;
    -h | --help)
      sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p;}' "${BASH_SOURCE[0]}"
      exit 0
      ;;
    *) die "unknown option: $1 (see --help)" ;;
  esac
  shift
done

command -v node >/dev/null || die "node is not on PATH"
cd "$SRC_DIR"
if [ "$build" -eq 1 ]; then
  log "building (npm run build, npm run build:web)"
  npm run build >/dev/null
  npm run build:web >/dev/null
fi
[ -f dist/src/main.js ] || die "no build in $SRC_DIR/dist: run npm run build, or leave out --skip-build"
[ -f dist/web/index.html ] || die "no dashboard build in $SRC_DIR/dist/web: run npm run build:web, or leave out --skip-build"

version="$(node -p 'require("./package.json").version')"
arch="$(node -p process.arch)"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
name="edgeblocks-$version"
file="$name-linux-$arch-node$node_major.tar.gz"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
stage="$work/$name"
mkdir -p "$stage"
for item in package.json package-lock.json README.md LICENSE systemd scripts docs; do
  if [ -e "$item" ]; then cp -pR "$item" "$stage/"; fi
done
# The service's build only, not the benchmarks in dist/scripts. -p keeps the times (main.js
# loads dist/bundle only when it is not older than dist/src).
mkdir -p "$stage/dist"
for item in src drivers bundle web; do
  if [ -e "dist/$item" ]; then cp -pR "dist/$item" "$stage/dist/"; fi
done
chmod 755 "$stage/dist/src/main.js"

if [ "$fresh" -eq 1 ]; then
  log "installing the production dependencies and compiling the native modules (npm ci --omit=dev, npm rebuild)"
  # --ignore-scripts keeps npm from running our own "prepare" (tsc is a dev dependency).
  (cd "$stage" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm rebuild)
else
  [ -d node_modules ] || die "no node_modules in $SRC_DIR: run npm ci first, or use --fresh-modules"
  # The checkout's own modules were compiled for this Node: copied (hard links where the file
  # system allows) and the dev dependencies pruned away.
  log "taking the production dependencies from the checkout's node_modules"
  cp -al node_modules "$stage/node_modules" 2>/dev/null || cp -a node_modules "$stage/node_modules"
  # npm rewrites its record of the tree (node_modules/.package-lock.json) in place: the stage gets
  # a file of its own, or the prune would write the pruned tree into the checkout's through the link.
  if [ -f node_modules/.package-lock.json ]; then
    cp --remove-destination node_modules/.package-lock.json "$stage/node_modules/.package-lock.json"
  fi
  (cd "$stage" && npm prune --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
fi

# What the compilers left beside the .node files, and the other platforms' prebuilt binaries.
find "$stage/node_modules" -depth \( -path '*/build/Release/obj.target' -o -path '*/build/Release/.deps' \
  -o -path '*/build/Release/obj' -o -path '*/better-sqlite3*/deps' -o -path '*/build/node_gyp_bins' \) \
  -exec rm -rf {} + 2>/dev/null || true
find "$stage/node_modules" -type d -path '*/prebuilds/*' ! -name "linux-$arch" -prune -exec rm -rf {} + 2>/dev/null || true
find "$stage/node_modules" -mindepth 1 -type d -empty -delete

# The release checks its own native modules before it is packed: an artifact that cannot load
# its SQLite binding on this machine is never shipped.
(cd "$stage" && node --input-type=module -e "await import('./dist/src/store/sqlite.js')") ||
  die "the staged release cannot load its SQLite module"

commit="$(git -C "$SRC_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)"
node -e '
const [file, version, commit] = process.argv.slice(1);
const manifest = {
  name: "edgeblocks",
  version,
  commit,
  platform: process.platform,
  arch: process.arch,
  node: process.versions.node,
  modules: process.versions.modules,
  builtAt: new Date().toISOString(),
};
require("node:fs").writeFileSync(file, JSON.stringify(manifest, null, 2) + "\n");
' "$stage/release.json" "$version" "$commit"

tar -czf "$out/$file.part" -C "$work" "$name"
mv "$out/$file.part" "$out/$file"
log "built $out/$file ($(du -h "$out/$file" | cut -f1); node $(node --version), $arch, ABI $(node -p process.versions.modules))"
echo "$out/$file"
