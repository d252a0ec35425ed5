#!/bin/sh
# test_packaging BUILD_DIR TEST_SOURCE_DIR [SANITIZE]
# Builds the three .deb packages with cpack into a temp dir, extracts them
# into a fresh root with dpkg-deb -x (the host's dpkg database is never
# touched) and checks what they install:
#   - the programs run from the root (smclab-agent --version, smclab demo --help)
#   - the agent's maintainer scripts parse, the unit passes systemd-analyze verify
#   - a program outside the tree builds with find_package(smcr) and with
#     pkg-config against the root, and moves bytes over SMC-R (sim)
# Exit 77 (skipped) when cpack or dpkg-deb is missing.
set -u
build=$1
src=$2
sanitize=${3:-}

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

command -v cpack >/dev/null 2>&1 || skip "cpack not found"
command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb not found"
[ -f "$build/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in $build"

work=$(mktemp -d "${TMPDIR:-/tmp}/smclab-pkgtest.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT INT TERM
root=$work/root
mkdir -p "$root" "$work/debs"

echo "== cpack"
cpack --config "$build/CPackConfig.cmake" -B "$work/debs" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack failed"; }

for pkg in smclab-agent smclab libsmcr-dev; do
    deb=$(ls "$work/debs/${pkg}_"*.deb 2>/dev/null | head -n 1)
    [ -n "$deb" ] || { ls "$work/debs"; fail "no ${pkg}_*.deb produced"; }
    name=$(dpkg-deb -f "$deb" Package)
    [ "$name" = "$pkg" ] || fail "$deb: Package is '$name', expected $pkg"
    echo "== $pkg: $(basename "$deb")"
    dpkg-deb -c "$deb" | awk '{print "   " $6}'
    dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x $deb"
    mkdir -p "$work/ctl/$pkg"
    dpkg-deb -e "$deb" "$work/ctl/$pkg" || fail "dpkg-deb -e $deb"
done

echo "== contents"
for f in usr/bin/smclab-agent usr/bin/smclab usr/bin/smcr_run usr/lib/smclab/libsmcr-preload.so \
         lib/systemd/system/smclab-agent.service \
         etc/smclab/agent.conf usr/share/icons/hicolor/scalable/apps/smclab.svg \
         usr/include/smcr/socket.h usr/include/smcr/listener.h usr/include/smcr/wire/clc.h \
         usr/lib/libsmcr_api.a usr/lib/libsmcr_core.a usr/lib/libsmcr_fabric.a \
         usr/lib/libsmcr_wire.a usr/lib/libsmcr_common.a usr/lib/pkgconfig/smcr.pc \
         usr/lib/cmake/smcr/smcrConfig.cmake usr/lib/cmake/smcr/smcrConfigVersion.cmake; do
    [ -e "$root/$f" ] || [ -e "$root/usr/$f" ] || fail "/$f not installed"
done
# The unit's path depends on the prefix handling; accept either.
unit=$root/lib/systemd/system/smclab-agent.service
[ -f "$unit" ] || unit=$root/usr/lib/systemd/system/smclab-agent.service
[ -f "$unit" ] || fail "smclab-agent.service not installed"
[ ! -e "$root/etc/smclab/agent.token" ] || fail "a token was shipped in the package"
grep -qx /etc/smclab/agent.conf "$work/ctl/smclab-agent/conffiles" || fail "agent.conf is not a conffile"

echo "== maintainer scripts"
for s in postinst prerm postrm; do
    f=$work/ctl/smclab-agent/$s
    [ -x "$f" ] || fail "smclab-agent $s missing or not executable"
    sh -n "$f" || fail "smclab-agent $s does not parse"
done

echo "== programs"
export LD_LIBRARY_PATH="$root/usr/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=$("$root/usr/bin/smclab-agent" --version 2>&1) || fail "smclab-agent --version: $out"
echo "   $out"
echo "$out" | grep -q '^smclab-agent ' || fail "unexpected smclab-agent --version output"
out=$("$root/usr/bin/smclab" demo --help 2>&1) || fail "smclab demo --help: $out"
echo "$out" | grep -qi 'demo' || fail "smclab demo --help does not describe demo"
echo "   smclab demo --help: ok ($(echo "$out" | wc -l) lines)"
# smcr_run finds its library in the package's layout and runs a program with it.
out=$("$root/usr/bin/smcr_run" /bin/echo preloaded 2>&1) || fail "smcr_run /bin/echo: $out"
[ "$out" = "preloaded" ] || fail "smcr_run /bin/echo printed: $out"
echo "   smcr_run /bin/echo: ok"

echo "== systemd unit"
if command -v systemd-analyze >/dev/null 2>&1; then
    # The unit names /usr/bin/smclab-agent; verify against a copy that points
    # into the root so the check does not depend on the host's /usr/bin.
    mkdir -p "$work/unit"
    sed "s|/usr/bin/smclab-agent|$root/usr/bin/smclab-agent|" "$unit" >"$work/unit/smclab-agent.service"
    if ! systemd-analyze verify --man=no "$work/unit/smclab-agent.service" >"$work/verify.log" 2>&1; then
        cat "$work/verify.log"
        fail "systemd-analyze verify rejected the unit"
    fi
    cat "$work/verify.log"
    echo "   systemd-analyze verify: ok"
else
    echo "   systemd-analyze not found: unit verification skipped"
fi

if [ -n "$sanitize" ]; then
    echo "== embed example skipped: the libraries carry sanitizer ($sanitize) instrumentation"
    echo "PASS (without the embed build)"
    exit 0
fi

echo "== embed example (find_package)"
cmake -S "$src/embed_example" -B "$work/embed" -DCMAKE_PREFIX_PATH="$root/usr" \
    -DCMAKE_BUILD_TYPE=Release >"$work/embed-config.log" 2>&1 ||
    { cat "$work/embed-config.log"; fail "embed example: configure failed"; }
cmake --build "$work/embed" >"$work/embed-build.log" 2>&1 ||
    { cat "$work/embed-build.log"; fail "embed example: build failed"; }
out=$(timeout 60 "$work/embed/smcr_embed_example" 2>&1) || fail "embed example failed: $out"
echo "   $out"

echo "== embed example (pkg-config)"
if command -v pkg-config >/dev/null 2>&1; then
    export PKG_CONFIG_PATH="$root/usr/lib/pkgconfig"
    flags=$(pkg-config --define-variable=prefix="$root/usr" --cflags --libs smcr) ||
        fail "pkg-config smcr failed"
    echo "   pkg-config: $flags"
    # shellcheck disable=SC2086 # flags are words
    c++ -o "$work/embed_pc" "$src/embed_example/main.cpp" $flags ||
        fail "embed example: pkg-config build failed"
    out=$(timeout 60 "$work/embed_pc" 2>&1) || fail "pkg-config embed example failed: $out"
    echo "   $out"
else
    echo "   pkg-config not found: skipped"
fi

if command -v lintian >/dev/null 2>&1; then
    echo "== lintian present (not required, not run)"
else
    echo "== lintian not installed: not required"
fi
echo PASS
