#!/bin/sh
# Builds the guest's root file system for the real-kernel tests, an uncompressed initramfs
# (newc cpio: the kernel unpacks it faster than it could inflate a compressed one under TCG):
#
#   /init                     init.sh of this directory (busybox sh)
#   /bin/busybox              busybox-static; init links its applets at boot
#   /lib/modules/*.ko         the modules MODULES name, with what they depend on, in load order
#                             (lib/modules/load-order); modules built into the kernel are left out
#   /lib*/...                 the shared libraries the Java runtime needs, from this machine
#   IMAGE_DIR                 the plugin directory (jlink runtime, jar, flags, AOT cache) at the
#                             same absolute path as here, so that its class archive maps
#   /opt/test-classes         the test classes (the guest-side test programs)
#   /opt/kubelet-testkit.jar  the test kit (their kubelet simulator), which the image leaves out
#   /boot/config-<version>    the kernel's build configuration, as Debian installs it beside the kernel
#                             (the cloud kernel has no /proc/config.gz): what doctor reads of VFIO
#
# Usage: build-initramfs.sh KERNEL_DIR BUSYBOX_DIR IMAGE_DIR TEST_CLASSES TESTKIT_JAR OUT
#   KERNEL_DIR    an unpacked linux-image-*.deb (boot/vmlinuz-*, lib/modules/<version>/)
#   BUSYBOX_DIR   an unpacked busybox-static .deb
set -eu

kernel=${1:?usage: build-initramfs.sh KERNEL_DIR BUSYBOX_DIR IMAGE_DIR TEST_CLASSES TESTKIT_JAR OUT}
busybox=${2:?}
image=$(cd "${3:?}" && pwd -P)
classes=$(cd "${4:?}" && pwd -P)
testkit=${5:?}
out=${6:?}
here=$(cd "$(dirname "$0")" && pwd -P)

# vfio, its type1 IOMMU backend and the PCI driver (vfio-pci-core comes as vfio-pci's
# dependency, like irqbypass, vfio_virqfd and iommufd where the kernel has them as modules);
# virtio_pci and virtio-rng give one device a host driver to switch to and from.
MODULES=${MODULES:-"vfio vfio_iommu_type1 vfio_pci virtio_pci virtio_rng"}

moddir=$(ls -d "$kernel"/lib/modules/*/ | head -n 1)
moddir=${moddir%/}
[ -d "$moddir/kernel" ] || { echo "initramfs: no lib/modules/<version>/kernel in $kernel" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/lib/modules" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/run" "$root/opt"

cp "$here/init.sh" "$root/init"
chmod 755 "$root/init"
cp "$busybox/bin/busybox" "$root/bin/busybox"

# the module file for a module name (names use '_' where file names may use '-'), compressed or not
norm() { echo "$1" | tr '-' '_'; }
index=$(mktemp)
find "$moddir/kernel" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz' | while read -r f; do
    b=$(basename "$f"); echo "$(norm "${b%%.ko*}") $f"
done > "$index"
modinfo_depends() {
    case $1 in
        *.xz) xz -dc "$1" ;; *.zst) zstd -qdc "$1" ;; *.gz) gzip -dc "$1" ;; *) cat "$1" ;;
    esac | tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '
}
order=""
add() {
    local name file dep
    name=$(norm "$1")
    case " $order " in *" $name "*) return 0 ;; esac
    file=$(awk -v n="$name" '$1 == n { print $2; exit }' "$index")
    if [ -z "$file" ]; then
        if grep -q "/$(echo "$name" | sed 's/_/[-_]/g')\.ko\$" "$moddir/modules.builtin" 2>/dev/null; then
            echo "initramfs: $name is built into the kernel" >&2
            return 0
        fi
        echo "initramfs: module $name is neither in $moddir nor built in" >&2
        exit 1
    fi
    for dep in $(modinfo_depends "$file"); do add "$dep"; done
    order="$order $name"
    case $file in
        *.xz) xz -dc "$file" > "$root/lib/modules/$name.ko" ;;
        *.zst) zstd -qdc "$file" > "$root/lib/modules/$name.ko" ;;
        *.gz) gzip -dc "$file" > "$root/lib/modules/$name.ko" ;;
        *) cp "$file" "$root/lib/modules/$name.ko" ;;
    esac
}
for m in $MODULES; do add "$m"; done
rm -f "$index"
echo "$order" | tr ' ' '\n' | sed '/^$/d' > "$root/lib/modules/load-order"
echo "initramfs: modules in load order:" $order >&2

# the runtime's shared libraries as this machine resolves them (the same glibc the JDK runs on here)
libs=$(for f in "$image/runtime/bin/java" "$image/runtime/lib/libjli.so" "$image/runtime/lib/server/libjvm.so" \
        "$image"/runtime/lib/libjava.so "$image"/runtime/lib/libnio.so "$image"/runtime/lib/libnet.so \
        "$image"/runtime/lib/libzip.so "$image"/runtime/lib/libjimage.so "$image"/lib/native/*.so; do
    [ -e "$f" ] && ldd "$f" 2>/dev/null
done | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)
for lib in $libs; do
    case $lib in "$image"/*) continue ;; esac  # the runtime's own, copied with it below
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
done
# JNA opens glibc by its soname; the loader finds it through the default paths
mkdir -p "$root/etc"
: > "$root/etc/ld.so.conf"
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"

mkdir -p "$root$(dirname "$image")"
cp -a "$image" "$root$image"
cp -a "$classes" "$root/opt/test-classes"
cp "$testkit" "$root/opt/kubelet-testkit.jar"
mkdir -p "$root/boot"
cp "$kernel"/boot/config-* "$root/boot/"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | "$busybox/bin/busybox" cpio -o -H newc 2>/dev/null) > "$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -h "$out" | cut -f1))" >&2
