#!/bin/sh
# Fetches what the real-kernel tests boot, without installing anything: Debian's cloud kernel
# (the linux-image-cloud-amd64 metapackage and the versioned image it depends on) and
# busybox-static, each downloaded with `apt-get download` and unpacked with `dpkg-deb -x` into
# the cache directory. Prints the directory of the unpacked kernel and of busybox, as
# "kernel=DIR" and "busybox=DIR" lines, last.
#
# Usage: fetch.sh CACHE_DIR
# An unpacked package already in CACHE_DIR is used as it is (no network); apt's lists decide
# which version is current, so after an `apt-get update` that brings a new kernel ABI the new one
# is fetched beside the old.
set -eu

cache=${1:?usage: fetch.sh CACHE_DIR}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd -P)

# version of PACKAGE as apt's lists know it, or nothing
candidate() {
    apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1
}

# unpacks PACKAGE (at apt's candidate version) under $cache/PACKAGE_VERSION, downloads it if needed;
# prints that directory
unpacked() {
    package=$1
    version=$(candidate "$package")
    if [ -z "$version" ] && [ "$(id -u)" = 0 ]; then
        apt-get update -q >&2 || true
        version=$(candidate "$package")
    fi
    if [ -z "$version" ]; then
        # no apt lists (and no root to fetch them): a copy unpacked earlier still serves
        found=$(ls -d "$cache/${package}_"*/ 2>/dev/null | sort -V | tail -n 1)
        if [ -n "$found" ]; then
            echo "real-kernel tests: apt knows no $package; using the copy in ${found%/}" >&2
            echo "${found%/}"
            return 0
        fi
        echo "real-kernel tests: apt knows no package $package and $cache holds none; run 'apt-get update' (as root) and try again" >&2
        exit 1
    fi
    dir="$cache/${package}_$(echo "$version" | tr ':' '+')"
    if [ ! -f "$dir/.complete" ]; then
        download=$(mktemp -d)
        chmod 755 "$download" # apt-get download drops privileges to _apt, which must write there
        if ! (cd "$download" && apt-get download -q "$package=$version" >&2); then
            rm -rf "$download"
            echo "real-kernel tests: 'apt-get download $package=$version' failed" >&2
            exit 1
        fi
        rm -rf "$dir"
        mkdir -p "$dir"
        dpkg-deb -x "$download"/*.deb "$dir"
        dpkg-deb -e "$download"/*.deb "$dir/DEBIAN"
        rm -rf "$download"
        echo "$package $version" > "$dir/.complete"
    fi
    echo "real-kernel tests: $package $version in $dir" >&2
    echo "$dir"
}

meta=$(unpacked linux-image-cloud-amd64)
# the metapackage depends on exactly one versioned image, e.g. linux-image-6.1.0-50-cloud-amd64 (= 6.1.176-1)
image=$(sed -n 's/^Depends: //p' "$meta/DEBIAN/control" | tr ',' '\n' \
    | sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n 1)
if [ -z "$image" ]; then
    echo "real-kernel tests: linux-image-cloud-amd64 names no versioned linux-image package in its Depends" >&2
    exit 1
fi
kernel=$(unpacked "$image")
busybox=$(unpacked busybox-static)
echo "kernel=$kernel"
echo "busybox=$busybox"
