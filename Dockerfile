# vfio-device-plugin container image.
#
#   docker build -t ghcr.io/vfio-device-plugin/vfio-device-plugin:0.1.0 --build-arg VERSION=0.1.0 .
#
# The build stage runs the Maven build with the profile "image" (src/main/image/build.sh): jlink
# runtime, jar, JVM flags, class-data-sharing archive from a training run of `demo`, launcher.
# `./mvnw -B verify` runs the same build and tests its result (ImageIT).
ARG JDK_IMAGE=eclipse-temurin:21-jdk
ARG BASE_IMAGE=debian:trixie-slim

FROM ${JDK_IMAGE} AS build
WORKDIR /src
COPY . .
# Built where the image runs it: the archive records the jar's path, so nothing is relocated.
RUN ./mvnw -B -DskipTests -Dimage.dir=/opt/vfio-device-plugin package

# The distribution's current PCI id database, found first at /usr/share/misc/pci.ids (the jar's
# copy is older).
FROM ${BASE_IMAGE} AS pciids
RUN apt-get update && apt-get install -y --no-install-recommends pci.ids

FROM ${BASE_IMAGE}
ARG VERSION=0.1.0-SNAPSHOT
LABEL org.opencontainers.image.title="vfio-device-plugin" \
      org.opencontainers.image.description="Kubernetes device plugin handing GPUs, vGPUs and permitted PCI devices to KubeVirt VMs via VFIO" \
      org.opencontainers.image.source="https://github.com/vfio-device-plugin/vfio-device-plugin" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=pciids /usr/share/misc/pci.ids /usr/share/misc/pci.ids
# COPY keeps modification times, which the class-data-sharing archive checks against the jar.
COPY --from=build /opt/vfio-device-plugin /opt/vfio-device-plugin
ENTRYPOINT ["/opt/vfio-device-plugin/bin/vfio-device-plugin"]
CMD ["serve"]
