#!/bin/bash
# build-toolchain.sh -- build the epiphany-elf cross toolchain from source:
# binutils 2.40, GCC 12.2.0 (C only) and newlib 3.3.0 with libgloss, the same
# versions and configuration as the prebuilt toolchain that firmware/ is built
# with.
#
# By default it also applies our fixes (EPSIM_PATCHES=yes; the patch files
# are in firmware/sysroot/, explained in firmware/README.md, "The CONFIG
# restore bug"):
#   gcc-12.2.0-epiphany-fpmode.patch    GCC 12.2's FPU-mode switching
#       (-mfp-mode=caller, the default) restores CONFIG from registers that
#       were never written on some paths, so programs and the C library
#       leave the FPU in the wrong mode;
#   gcc-12.2.0-epiphany-O0.patch  -O0 (and `(unsigned)` of a float at
#       -O2) died with an internal compiler error: the mode-switching pass
#       saved the flags in a CCmode register reload cannot store;
#   newlib-3.3.0-epiphany-bcopy.patch    the bignum copy of strtod/printf
#       loses a word on the Epiphany;
#   newlib-3.3.0-epiphany-denormals.patch  printf/strtod treat denormal
#       doubles as if they did not exist;
#   newlib-3.3.0-epiphany-syscall-errno.patch  libgloss returns &errno
#       instead of -1 from a failed system call;
# It does NOT apply newlib-3.3.0-epiphany-crt0-argv.patch (libgloss's crt0
# asking the host for argc/argv with TRAP 7): a TRAP halts a real core and
# e-hal serves none, so every program the toolchain links would stop before
# main on hardware. firmware/ links that crt0 explicitly from sysroot/lib.
# With EPSIM_PATCHES=no the result generates the same code as the prebuilt
# toolchain, and `make -C firmware` reproduces the committed ELFs exactly
# (they are compiled with the unpatched GCC and linked with the fixed C
# library and crt0 in firmware/sysroot/lib, which do not depend on the
# toolchain's).
# With the patches, the corpus's own code comes out different (without the
# FPU-mode bug), the libraries the same.
#
# Usage:
#   scripts/build-toolchain.sh                  # installs into /opt/epiphany
#   PREFIX=$HOME/epiphany scripts/build-toolchain.sh
#   export PATH=$PREFIX/bin:$PATH               # afterwards
#
# Environment:
#   PREFIX        install prefix (default /opt/epiphany; must be writable)
#   WORK          build directory (default ./epiphany-toolchain-build); can be
#                 deleted afterwards
#   JOBS          parallel make jobs (default: nproc)
#   SOURCES       "debian" (Debian's binutils-source, gcc-12-source and
#                 newlib-source packages, the way the prebuilt toolchain was
#                 made), "gnu" (release tarballs from the GNU and sourceware
#                 mirrors, checked against the SHA-256 sums below), or "auto"
#                 (default: debian when apt-get can install those packages,
#                 gnu otherwise)
#   EPSIM_PATCHES "yes" (default) or "no": apply the patches above
#   NEWLIB_EXTRA  extra configure options for newlib, e.g.
#                 "--enable-newlib-io-long-long --enable-newlib-io-c99-formats"
#                 for a printf with %lld/%zu (the prebuilt toolchain has
#                 neither; changing this changes the firmware ELFs)
#
# Time: about 40 minutes on 2 cores (binutils ~5, GCC + newlib ~35).
# Disk: about 4 GB in $WORK during the build, ~350 MB installed.
# Prerequisites: a host C/C++ compiler (gcc, g++), make, bison, flex, texinfo,
#   m4, xz-utils, and the GMP, MPFR and MPC development files; on Debian or
#   Ubuntu:
#     apt-get install build-essential bison flex texinfo m4 xz-utils \
#                     libgmp-dev libmpfr-dev libmpc-dev
#   and for SOURCES=gnu, curl or wget with access to ftp.gnu.org and
#   sourceware.org.
#
# Known limitation of this GCC, patched or not: epiphany-elf-gcc 12.2 hits an
# internal compiler error at -O0 in most functions that need an FPU-mode
# switch (integer multiply/divide, float arithmetic); with our patches
# (gcc-12.2.0-epiphany-O0.patch) -O0 works.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PATCHES=$REPO/firmware/sysroot

PREFIX=${PREFIX:-/opt/epiphany}
WORK=${WORK:-$PWD/epiphany-toolchain-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SOURCES=${SOURCES:-auto}
NEWLIB_EXTRA=${NEWLIB_EXTRA:-}
EPSIM_PATCHES=${EPSIM_PATCHES:-yes}
TARGET=epiphany-elf

BINUTILS_URL=https://ftp.gnu.org/gnu/binutils/binutils-2.40.tar.xz
BINUTILS_SHA256=0f8a4c272d7f17f369ded10a4aca28b8e304828e95526da482b0ccc4dfc9d8e1
GCC_URL=https://ftp.gnu.org/gnu/gcc/gcc-12.2.0/gcc-12.2.0.tar.xz
GCC_SHA256=e549cf9cf3594a00e27b6589d4322d70e0720cdd213f39beb4181e06926230ff
NEWLIB_URL=https://sourceware.org/pub/newlib/newlib-3.3.0.tar.gz
NEWLIB_SHA256=58dd9e3eaedf519360d92d84205c3deef0b3fc286685d1c562e245914ef72c66

log() { printf '\n=== %s\n' "$*" >&2; }
die() {
    printf 'build-toolchain: %s\n' "$*" >&2
    exit 1
}

fetch() { # fetch URL SHA256 -> file in $WORK/dl
    local url=$1 sum=$2 file
    file=$WORK/dl/$(basename "$url")
    mkdir -p "$WORK/dl"
    if [ ! -f "$file" ] || ! echo "$sum  $file" | sha256sum -c --status; then
        log "downloading $url"
        if command -v curl >/dev/null; then
            curl -fL --retry 3 -o "$file.part" "$url"
        elif command -v wget >/dev/null; then
            wget -O "$file.part" "$url"
        else
            die "neither curl nor wget is installed"
        fi
        mv "$file.part" "$file"
    fi
    echo "$sum  $file" | sha256sum -c --status || die "checksum mismatch for $file"
    echo "$file"
}

debian_sources_available() {
    command -v apt-get >/dev/null && command -v apt-cache >/dev/null &&
        apt-cache show binutils-source gcc-12-source newlib-source >/dev/null 2>&1
}

mkdir -p "$WORK"
cd "$WORK"

if [ "$SOURCES" = auto ]; then
    if debian_sources_available; then SOURCES=debian; else SOURCES=gnu; fi
fi
log "sources: $SOURCES; prefix: $PREFIX; work: $WORK; jobs: $JOBS"

rm -rf src
mkdir -p src
case $SOURCES in
debian)
    # The same inputs as the prebuilt toolchain.  Needs root for apt-get
    # (and a recent "apt-get update").
    apt-get install -y binutils-source gcc-12-source newlib-source
    tar -C src -xf /usr/src/binutils/binutils-2.40.tar.xz
    tar -C src -xf /usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz
    tar -C src -xf /usr/src/newlib/newlib-3.3.0.tar.xz # unpacks as newlib-salsa/
    mv src/newlib-salsa src/newlib-3.3.0
    ;;
gnu)
    tar -C src -xf "$(fetch "$BINUTILS_URL" "$BINUTILS_SHA256")"
    tar -C src -xf "$(fetch "$GCC_URL" "$GCC_SHA256")"
    tar -C src -xf "$(fetch "$NEWLIB_URL" "$NEWLIB_SHA256")"
    ;;
*)
    die "SOURCES must be auto, debian or gnu (got $SOURCES)"
    ;;
esac
[ -d src/binutils-2.40 ] && [ -d src/gcc-12.2.0 ] && [ -d src/newlib-3.3.0 ] ||
    die "unexpected source layout in $WORK/src"

case $EPSIM_PATCHES in
yes)
    log "applying our patches from $PATCHES"
    patch -d src/gcc-12.2.0 -p1 <"$PATCHES/gcc-12.2.0-epiphany-fpmode.patch"
    patch -d src/gcc-12.2.0 -p1 <"$PATCHES/gcc-12.2.0-epiphany-O0.patch"
    for p in "$PATCHES"/newlib-3.3.0-*.patch; do
        # The argument-passing crt0 asks the host for argc/argv with TRAP 7,
        # which only epsim answers: on a board started by e-hal the core
        # would halt before main. It stays out of a general toolchain
        # (firmware/ links it explicitly from sysroot/lib).
        case $p in *crt0*) continue ;; esac
        patch -d src/newlib-3.3.0 -p1 <"$p"
    done
    ;;
no) ;;
*) die "EPSIM_PATCHES must be yes or no (got $EPSIM_PATCHES)" ;;
esac

for tool in gcc g++ make bison flex makeinfo m4; do
    command -v "$tool" >/dev/null || die "missing prerequisite: $tool (see the top of this script)"
done

mkdir -p "$PREFIX" || die "cannot create $PREFIX"
[ -w "$PREFIX" ] || die "$PREFIX is not writable"

log "binutils 2.40"
rm -rf b-binutils
mkdir b-binutils
(
    cd b-binutils
    ../src/binutils-2.40/configure --target=$TARGET --prefix="$PREFIX" \
        --disable-nls --disable-werror --disable-gdb --disable-sim \
        --disable-gprof --disable-gprofng
    make -j"$JOBS"
    make install
)
export PATH=$PREFIX/bin:$PATH

log "gcc 12.2.0 + newlib 3.3.0 (combined tree)"
# newlib and libgloss are built as target libraries of the GCC tree, as for
# the prebuilt toolchain.
ln -sfn ../newlib-3.3.0/newlib src/gcc-12.2.0/newlib
ln -sfn ../newlib-3.3.0/libgloss src/gcc-12.2.0/libgloss
rm -rf b-gcc
mkdir b-gcc
(
    cd b-gcc
    # shellcheck disable=SC2086
    ../src/gcc-12.2.0/configure --target=$TARGET --prefix="$PREFIX" \
        --enable-languages=c --with-newlib --disable-nls --disable-shared \
        --disable-threads --disable-libssp --disable-libgomp \
        --disable-libquadmath --disable-libatomic --disable-decimal-float \
        --disable-lto --without-isl $NEWLIB_EXTRA
    # Debian's gcc-12 source tarball lacks the real gcc/doc/tm.texi.in, and
    # the documentation check that uses it (s-tm-texi) fails.  A stamp made
    # before the build does not help (it is older than the genhooks program
    # the rule depends on): when the build stops there, build genhooks, mark
    # the check done and go on.  (The GNU tarball passes the check.)
    if ! make -j"$JOBS"; then
        make -C gcc build/genhooks
        echo timestamp >gcc/s-tm-texi
        make -j"$JOBS"
    fi
    make install
)

log "smoke test"
cat >"$WORK/hello.c" <<'EOF'
#include <stdio.h>
int main(void) { printf("hello %d\n", 42); return 0; }
EOF
"$PREFIX/bin/$TARGET-gcc" -O2 "$WORK/hello.c" -o "$WORK/hello.elf"
"$PREFIX/bin/$TARGET-readelf" -h "$WORK/hello.elf" | grep -qi 'epiphany' ||
    die "smoke test: the output is not an Epiphany ELF"
"$PREFIX/bin/$TARGET-gcc" --version | head -1
echo "build-toolchain: done; add $PREFIX/bin to PATH"
