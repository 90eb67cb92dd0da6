# Sourced by .ci/run and .ci/run-kernel-tests: what the real-kernel tests (image/src/test/java/io/vfiodp/kernel,
# docs/development.md, "Real-kernel tests") boot besides QEMU: Debian's cloud kernel and busybox-static, downloaded with
# apt-get download and unpacked (never installed) into $VFIO_DP_TOOLS/kernel (default
# ~/.cache/vfio-device-plugin/kernel) by image/src/test/kernel/fetch.sh. Needs $SUDO set (empty as root).
vfiodp_fetch_kernel() {
  if ! apt-cache show --no-all-versions linux-image-cloud-amd64 >/dev/null 2>&1; then
    $SUDO apt-get update -q
  fi
  sh image/src/test/kernel/fetch.sh "${VFIO_DP_TOOLS:-$HOME/.cache/vfio-device-plugin}/kernel" | sed 's/^/CI: real-kernel tests: /'
}
