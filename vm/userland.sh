#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fetch the guest's userland for a foreign architecture: Debian's static
# busybox for ARCH (busybox-static:arm64, busybox-static:i386), unpacked
# into $BUILD/userland/ARCH/ rather than installed, since it would replace
# the host's own /bin/busybox. The first call adds ARCH to dpkg's
# architectures and updates the package lists; later calls find the
# unpacked binary and return at once.
#
# Usage: vm/userland.sh ARCH   (BUILD from the environment)

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: $0 arm64|i386}
dest=${BUILD:-$root/build}/userland/$arch
pkg=busybox-static:$arch

[ -x "$dest/bin/busybox" ] && exit 0
echo "  USERLAND $pkg"
if [ "$(id -u)" -ne 0 ]; then
	echo "userland: need root to add the $arch architecture" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	dpkg --add-architecture "$arch"
	apt-get update -q
elif ! apt-cache show "$pkg" > /dev/null 2>&1; then
	apt-get update -q
fi
dl=$(mktemp -d)
trap 'rm -rf "$dl"' EXIT
# apt's download sandbox user must be able to write there.
chmod 0777 "$dl"
(cd "$dl" && apt-get download -q "$pkg")
rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$dl"/busybox-static_*.deb "$dest"
[ -x "$dest/bin/busybox" ] || { echo "userland: no bin/busybox in $pkg" >&2; exit 1; }
