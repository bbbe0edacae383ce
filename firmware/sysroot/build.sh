#!/bin/bash
# build.sh -- rebuild the C library and start file the firmware links
# (firmware/sysroot/lib: libc.a, libm.a, libepiphany.a and crt0.o = newlib
# 3.3.0 + libgloss) with only the prebuilt epiphany-elf toolchain and the
# sources.
#
# Why: the toolchain's own newlib is miscompiled by its GCC 12.2 (the CONFIG
# save/restore of the FPU mode switching, see ../README.md, "The CONFIG
# restore bug") and has a bignum copy that loses a word on the Epiphany
# (strtod, printf) and thinks the soft-float doubles have no denormals
# (printf, strtod; same section); its libgloss returns &errno instead of -1
# from a failed system call, and its crt0 never asks the host for argc/argv
# (../README.md, "crt0, heap, argv").  So this script
#   1. builds cc1 -- only cc1 -- from the toolchain's GCC 12.2 sources with
#      gcc-12.2.0-epiphany-fpmode.patch, configured exactly like the
#      toolchain (the installed driver runs it with -B, so nothing is
#      installed); skipped when CC1_DIR names a directory that has one;
#   2. builds newlib 3.3.0 with every newlib-3.3.0-*.patch here (bcopy,
#      denormals: libc; syscall-errno, crt0-argv: libgloss), the toolchain's
#      configuration and flags, with that cc1;
#   3. writes lib/ with the debug information stripped (it records build
#      paths; the firmware links with -Wl,-S anyway) and deterministic
#      archive headers, so the result does not depend on where it was built
#      (crt0.o, assembled without debug information, is copied as it is).
# With FP_MODE=caller and the patches left out (PATCH=no), step 2 reproduces
# the toolchain's libc.a/libm.a/libepiphany.a instruction for instruction,
# and its crt0.o byte for byte.
#
# PART=libgloss builds only libgloss and writes only libepiphany.a and
# crt0.o (seconds instead of half an hour: no cc1 is built, because libgloss
# has no FPU-mode switches and the stock cc1 compiles it to the same code as
# the patched one; CC1_DIR is used when given).  The result is byte-identical
# to a full build's.
#
# Usage (needs epiphany-elf-gcc 12.2 on PATH; see the top of
# scripts/build-toolchain.sh for the host prerequisites of a GCC build):
#   firmware/sysroot/build.sh
#   CC1_DIR=/tmp/epiphany-sysroot-build/cc1 firmware/sysroot/build.sh  # reuse cc1
#   PART=libgloss firmware/sysroot/build.sh     # libepiphany.a and crt0.o only
#
# Environment:
#   OUT      where lib/ goes (default: the directory of this script)
#   WORK     build directory (default /tmp/epiphany-sysroot-build); the
#            patched cc1 stays in $WORK/cc1/ for reuse
#   JOBS     parallel make jobs (default: nproc)
#   CC1_DIR  a directory with a patched cc1 to use instead of building one
#   FP_MODE  -mfp-mode= for the libraries (default caller, the toolchain's)
#   PATCH    "yes" (default) or "no": apply the patches (no: the toolchain's
#            libraries, for comparison)
#   PART     "all" (default) or "libgloss" (above)
#   GCC_SRC, NEWLIB_SRC  source tarballs; default: Debian's gcc-12-source and
#            newlib-source files (/usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz,
#            /usr/src/newlib/newlib-3.3.0.tar.xz: the toolchain's sources)
#            when present, else the GNU/sourceware tarballs (downloaded and
#            checked against the SHA-256 sums below)
#
# Time: about 25 minutes on 2 cores for cc1, 2 for newlib, seconds for
# libgloss alone.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE}
WORK=${WORK:-/tmp/epiphany-sysroot-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
FP_MODE=${FP_MODE:-caller}
PATCH=${PATCH:-yes}
PART=${PART:-all}
TARGET=epiphany-elf
GCC_URL=https://ftp.gnu.org/gnu/gcc/gcc-12.2.0/gcc-12.2.0.tar.xz
GCC_SHA256=e549cf9cf3594a00e27b6589d4322d70e0720cdd213f39beb4181e06926230ff
NEWLIB_URL=https://sourceware.org/pub/newlib/newlib-3.3.0.tar.gz
NEWLIB_SHA256=58dd9e3eaedf519360d92d84205c3deef0b3fc286685d1c562e245914ef72c66

log() { printf '\n=== %s\n' "$*" >&2; }
die() {
    printf 'sysroot/build.sh: %s\n' "$*" >&2
    exit 1
}

fetch() { # fetch URL SHA256 -> path of the checked download
    local file=$WORK.dl/$(basename "$1")
    mkdir -p "$WORK.dl"
    if [ ! -f "$file" ] || ! echo "$2  $file" | sha256sum -c --status; then
        log "downloading $1"
        curl -fL --retry 3 -o "$file.part" "$1" || wget -O "$file.part" "$1"
        mv "$file.part" "$file"
    fi
    echo "$2  $file" | sha256sum -c --status || die "checksum mismatch for $file"
    echo "$file"
}

unpack() { # unpack TARBALL NAME: the tarball's single top directory -> $WORK/src/NAME
    local tmp=$WORK/src/.unpack
    rm -rf "$tmp" && mkdir -p "$tmp"
    tar -C "$tmp" -xf "$1"
    mv "$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)" "$WORK/src/$2"
    rm -rf "$tmp"
}

command -v $TARGET-gcc >/dev/null || die "$TARGET-gcc is not on PATH"
[ "$($TARGET-gcc -dumpversion)" = 12.2.0 ] || die "$TARGET-gcc is not GCC 12.2.0"
case $FP_MODE in caller | round-nearest | truncate | int) ;; *) die "bad FP_MODE $FP_MODE" ;; esac
case $PATCH in yes | no) ;; *) die "PATCH must be yes or no" ;; esac
case $PART in all | libgloss) ;; *) die "PART must be all or libgloss" ;; esac

rm -rf "$WORK/src" "$WORK/newlib"
mkdir -p "$WORK/src"

# ---- 1. cc1 ----
if [ -n "${CC1_DIR:-}" ]; then
    [ -x "$CC1_DIR/cc1" ] || die "no cc1 in CC1_DIR=$CC1_DIR"
    CC1_DIR=$(cd "$CC1_DIR" && pwd)
elif [ "$PATCH" = yes ] && [ "$PART" = all ]; then
    log "cc1: GCC 12.2.0 + gcc-12.2.0-epiphany-fpmode.patch"
    if [ -z "${GCC_SRC:-}" ]; then
        if [ -f /usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz ]; then
            GCC_SRC=/usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz
        else
            GCC_SRC=$(fetch "$GCC_URL" "$GCC_SHA256")
        fi
    fi
    unpack "$GCC_SRC" gcc
    patch -d "$WORK/src/gcc" -p1 --quiet <"$HERE/gcc-12.2.0-epiphany-fpmode.patch"
    # cc1 looks for its headers under the prefix it was configured with:
    # use the installed toolchain's.
    cc1=$($TARGET-gcc -print-prog-name=cc1)
    prefix=${cc1%/libexec/gcc/$TARGET/12.2.0/cc1}
    [ "$prefix" != "$cc1" ] || die "unexpected cc1 location $cc1"
    rm -rf "$WORK/gcc" && mkdir -p "$WORK/gcc"
    (
        cd "$WORK/gcc"
        # The configuration of scripts/build-toolchain.sh (and of the
        # prebuilt toolchain).
        ../src/gcc/configure --target=$TARGET --prefix="$prefix" \
            --enable-languages=c --with-newlib --disable-nls --disable-shared \
            --disable-threads --disable-libssp --disable-libgomp \
            --disable-libquadmath --disable-libatomic --disable-decimal-float \
            --disable-lto --without-isl >configure.log 2>&1 ||
            die "GCC configure failed, see $WORK/gcc/configure.log"
        # Debian's gcc-12 source lacks the real doc/tm.texi.in, and the
        # documentation check that uses it (s-tm-texi) fails: once genhooks
        # exists, mark that check done and go on.
        if ! make -j"$JOBS" all-gcc >make.log 2>&1; then
            make -C gcc build/genhooks >>make.log 2>&1 ||
                die "GCC build failed, see $WORK/gcc/make.log"
            echo timestamp >gcc/s-tm-texi
            make -j"$JOBS" all-gcc >>make.log 2>&1 ||
                die "GCC build failed, see $WORK/gcc/make.log"
        fi
    )
    mkdir -p "$WORK/cc1"
    cp "$WORK/gcc/gcc/cc1" "$WORK/cc1/cc1"
    CC1_DIR=$WORK/cc1
fi

# ---- 2. newlib ----
if [ "$PART" = all ]; then
    log "newlib 3.3.0${CC1_DIR:+ with $CC1_DIR/cc1}, -mfp-mode=$FP_MODE"
else
    log "libgloss (newlib 3.3.0)${CC1_DIR:+ with $CC1_DIR/cc1}, -mfp-mode=$FP_MODE"
fi
if [ -z "${NEWLIB_SRC:-}" ]; then
    if [ -f /usr/src/newlib/newlib-3.3.0.tar.xz ]; then
        NEWLIB_SRC=/usr/src/newlib/newlib-3.3.0.tar.xz
    else
        NEWLIB_SRC=$(fetch "$NEWLIB_URL" "$NEWLIB_SHA256")
    fi
fi
unpack "$NEWLIB_SRC" newlib # Debian's unpacks as newlib-salsa/, sourceware's as newlib-3.3.0/
[ -d "$WORK/src/newlib/newlib" ] && [ -d "$WORK/src/newlib/libgloss/epiphany" ] ||
    die "unexpected source layout in $NEWLIB_SRC"
if [ "$PATCH" = yes ]; then
    for p in "$HERE"/newlib-3.3.0-*.patch; do
        patch -d "$WORK/src/newlib" -p1 --quiet <"$p"
    done
fi

# GCC's own build gives its target libraries CFLAGS_FOR_TARGET "-g -O2"
# plus, through the in-tree "specs" file of t-epiphany, the driver's
# epiphany_library_build_spec "-ffixed-r40 -ffixed-r41 -ffixed-r42
# -ffixed-r43".  Only -mfp-mode may be ours.
flags="-g -O2 -ffixed-r40 -ffixed-r41 -ffixed-r42 -ffixed-r43"
[ "$FP_MODE" = caller ] || flags="$flags -mfp-mode=$FP_MODE"
mkdir -p "$WORK/newlib/build"
(
    cd "$WORK/newlib/build"
    export LC_ALL=C
    CC_FOR_TARGET="$TARGET-gcc${CC1_DIR:+ -B$CC1_DIR/}" CFLAGS_FOR_TARGET=$flags \
        ../../src/newlib/configure --target=$TARGET --prefix="$WORK/newlib/inst" \
        --disable-nls >configure.log 2>&1 ||
        die "newlib configure failed, see $WORK/newlib/build/configure.log"
    if [ "$PART" = all ]; then
        make -j"$JOBS" >make.log 2>&1 || die "newlib build failed, see $WORK/newlib/build/make.log"
        make install >install.log 2>&1 || die "newlib install failed, see $WORK/newlib/build/install.log"
    else
        # The top level's all-target-libgloss would build newlib first;
        # libgloss needs only newlib's headers, and without a newlib build
        # directory takes the installed toolchain's (the same 3.3.0 headers;
        # our newlib patches change nothing libgloss uses).
        { make configure-target-libgloss && make -C $TARGET/libgloss -j"$JOBS"; } >make.log 2>&1 ||
            die "libgloss build failed, see $WORK/newlib/build/make.log"
        make -C $TARGET/libgloss install >install.log 2>&1 ||
            die "libgloss install failed, see $WORK/newlib/build/install.log"
    fi
)

# ---- 3. lib/ ----
mkdir -p "$OUT/lib"
libs="libc.a libm.a libepiphany.a"
[ "$PART" = all ] || libs=libepiphany.a
for a in $libs; do
    $TARGET-objcopy --strip-debug --enable-deterministic-archives \
        "$WORK/newlib/inst/$TARGET/lib/$a" "$OUT/lib/$a"
done
install -m 644 "$WORK/newlib/inst/$TARGET/lib/crt0.o" "$OUT/lib/crt0.o"
log "done: $OUT/lib"
ls -l "$OUT/lib" >&2
