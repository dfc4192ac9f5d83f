#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages given as arguments that are not installed
# yet. Quick and silent when everything is present; runs apt-get update
# only when something is missing.

set -euo pipefail

. "$(dirname "$0")/common.sh"

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
# Lists that stay partly stale may still hold what is needed: the
# download or install says so if they do not.
apt_retry apt-get update -q ||
	echo "  APT     going on with the package lists as they are" >&2
apt_retry apt-get install -y -q --no-install-recommends "${missing[@]}"
