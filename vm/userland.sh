#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fetch the guest's userland of Debian architecture ARCH (amd64, arm64,
# i386): Debian's trace-cmd, and dash and ping (iputils) for the
# inter-event hist selftests, which key on the exec of a file named ping:
# busybox's sh runs its own ping applet by exec'ing /proc/self/exe. With
# the shared libraries they run on, and for
# a foreign architecture its static busybox (the x86_64 guest runs the
# host's). The packages are unpacked into $BUILD/userland/ARCH/ rather
# than installed: busybox-static would replace the host's /bin/busybox,
# and a foreign trace-cmd cannot be installed next to the host's.
# vm/mkinitramfs.sh picks the files the guest needs from there.
#
# The first call of a foreign architecture adds it to dpkg's
# architectures and updates the package lists. A stamp next to the
# unpacked files names the packages; later calls with the same list
# return at once.
#
# Usage: vm/userland.sh ARCH   (BUILD from the environment)

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/common.sh"
arch=${1:?usage: $0 amd64|arm64|i386}
dest=${BUILD:-$root/build}/userland/$arch
# trace-cmd's Depends, but libtraceevent1-plugin: its plugins only pretty
# print events the guest's smoke test of "trace-cmd report" can do without.
pkgs=(trace-cmd libtraceevent1 libtracefs1 libzstd1 libc6)
# ping's Depends, but libcap2-bin: setcap, for a ping run by other users.
pkgs+=(iputils-ping libcap2 libidn2-0 libunistring2 dash)
[ "$arch" = amd64 ] || pkgs+=(busybox-static)
pkgs=("${pkgs[@]/%/:$arch}")

[ "$(cat "$dest/.packages" 2>/dev/null)" = "${pkgs[*]}" ] && exit 0
echo "  USERLAND ${pkgs[*]}"
export DEBIAN_FRONTEND=noninteractive
need_update=
if [ "$arch" != "$(dpkg --print-architecture)" ] &&
   ! grep -qx "$arch" <<< "$(dpkg --print-foreign-architectures)"; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "userland: need root to add the $arch architecture" >&2
		exit 1
	fi
	dpkg --add-architecture "$arch"
	need_update=1
elif ! apt-cache show "${pkgs[@]}" > /dev/null 2>&1; then
	need_update=1
fi
if [ -n "$need_update" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "userland: need root to update the package lists for ${pkgs[*]}" >&2
		exit 1
	fi
	# Lists that stay partly stale may still hold what is needed: the
	# download or install says so if they do not.
	apt_retry apt-get update -q ||
		echo "  APT     going on with the package lists as they are" >&2
fi
dl=$(mktemp -d)
trap 'rm -rf "$dl"' EXIT
# apt's download sandbox user must be able to write there.
chmod 0777 "$dl"
(cd "$dl" && apt_retry apt-get download -q "${pkgs[@]}")
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$dl"/*.deb; do
	dpkg-deb -x "$deb" "$dest"
done
if [ "$arch" != amd64 ] && [ ! -x "$dest/bin/busybox" ]; then
	echo "userland: no bin/busybox in busybox-static:$arch" >&2
	exit 1
fi
[ -f "$dest/usr/bin/trace-cmd" ] || { echo "userland: no usr/bin/trace-cmd in trace-cmd:$arch" >&2; exit 1; }
for f in bin/ping bin/dash; do
	[ -f "$dest/$f" ] || { echo "userland: no $f in the packages of $arch" >&2; exit 1; }
done
echo "${pkgs[*]}" > "$dest/.packages"
