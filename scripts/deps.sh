#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages given as arguments that are not installed
# yet. Quick and silent when everything is present; runs apt-get update
# only when something is missing.

set -euo pipefail

missing=()
for pkg in "$@"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "  DEPS    installing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: need root to install ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
