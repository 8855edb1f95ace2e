#!/usr/bin/env bash
# Builds a Debian package of zero from a Release build: build-deb/zero_<version>_<arch>.deb.
#
# The package holds what `make install` installs under /usr (the binary, its
# sandbox helper, man pages, shell completions, docs). zero links only libc;
# libcurl, SQLite, OpenSSL's libcrypto and md4c are loaded when first needed
# (dlopen), which dpkg-shlibdeps cannot see, so Depends is written out here.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${DEB_BUILD:-build-deb}
STAGE=$BUILD/stage
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZERO_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j "$(nproc 2>/dev/null || echo 2)"
rm -rf "$STAGE"
DESTDIR="$PWD/$STAGE" cmake --install "$BUILD" --prefix /usr >/dev/null
# Debian keeps man pages compressed and docs under the package's name.
find "$STAGE/usr/share/man" -type f -exec gzip -9n {} +
strip --strip-unneeded "$STAGE/usr/bin/zero" "$STAGE/usr/libexec/zero/zero-sandbox-inner" 2>/dev/null || true

version=$(sed -n 's/^project(zero VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
arch=$(dpkg --print-architecture)
size=$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
mkdir -p "$STAGE/DEBIAN"
cat > "$STAGE/DEBIAN/control" <<CONTROL
Package: zero
Version: $version
Architecture: $arch
Maintainer: zero developers <zero@localhost>
Installed-Size: $size
Depends: libc6 (>= 2.34), libcurl4, libsqlite3-0, libssl3, libmd4c0, bubblewrap
Section: devel
Priority: optional
Description: terminal coding agent you own
 zero reads a repository, edits files, runs commands inside an OS sandbox
 (bubblewrap, seccomp, Landlock) and keeps durable local sessions, while the
 user chooses the model and the permission level.
CONTROL
( cd "$STAGE" && find usr -type f -printf '%P\n' | sort | sed 's|^|usr/|' | xargs md5sum > DEBIAN/md5sums )
deb="$BUILD/zero_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$STAGE" "$deb" >/dev/null
echo "$deb"
