#!/bin/busybox sh
# /init of the real-kernel tests' guest (see build-initramfs.sh). Mounts the kernel's file
# systems, loads the VFIO modules, then serves the host's commands on the second serial port
# (ttyS1; ttyS0 is the kernel console).
#
# The command channel, one command at a time: the host sends a line "ID BASE64", the script
# encoded; the guest runs it with sh (stdin /dev/null, stdout and stderr to one file) and
# answers "@@OUT ID", the output in base64 lines, then "@@RC ID STATUS". Base64 both ways keeps
# the tty from changing any byte. "@@READY" announces the loop once.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# /tmp and /run stay on the initramfs' own root (writable already): a tmpfs over them would hide the
# image, which sits at its host path, when the checkout is under /tmp
mkdir -p /tmp /run && chmod 1777 /tmp && chmod 755 /run
hostname guest
for m in $(cat /lib/modules/load-order); do
    insmod "/lib/modules/$m.ko" || echo "init: insmod $m failed" > /dev/console
done
echo "init: modules loaded: $(cat /lib/modules/load-order | tr '\n' ' ')" > /dev/console

stty -F /dev/ttyS1 raw -echo
exec 0</dev/ttyS1 1>/dev/ttyS1 2>/dev/console
echo "@@READY"
while read -r id script; do
    [ -n "$id" ] || continue
    echo "$script" | base64 -d > "/tmp/.cmd.$id" 2>/dev/null
    sh "/tmp/.cmd.$id" > "/tmp/.out.$id" 2>&1 < /dev/null
    rc=$?
    echo "@@OUT $id"
    base64 < "/tmp/.out.$id"
    echo "@@RC $id $rc"
    rm -f "/tmp/.cmd.$id" "/tmp/.out.$id"
done
poweroff -f
