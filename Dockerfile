# vfio-device-plugin container image, tagged for a registry you own (REGISTRY, e.g. registry.example.com/platform):
#
#   docker build -t "$REGISTRY/vfio-device-plugin:0.1.0" --build-arg GIT_COMMIT="$(git rev-parse --short=12 HEAD)" .
#   docker push "$REGISTRY/vfio-device-plugin:0.1.0"
#
# The tag is the project's version (the revision in pom.xml; VERSION below and ReleaseVersionTest keep them equal).
# GIT_COMMIT is what `vfio-device-plugin --version` names: the build context holds no .git (.dockerignore).
#
# The build stage runs the Maven build with the profile "image" (image/src/main/image/build.sh): jlink
# runtime, jar, JVM flags, class-data-sharing archive from a training run of `demo`, launcher.
# `./mvnw -B verify` runs the same build and tests its result (ImageIT).
# JDK 25, as the build the figures in docs/benchmarks.md come from: on 25 the training run writes an AOT
# cache (JEP 483/514), on 21 only a dynamic CDS archive, which starts slower and loads more classes.
ARG JDK_IMAGE=eclipse-temurin:25-jdk
ARG BASE_IMAGE=debian:trixie-slim

FROM ${JDK_IMAGE} AS build
ARG GIT_COMMIT=
WORKDIR /src
COPY . .
# Built where the image runs it: the archive records the jar's path, so nothing is relocated.
RUN ./mvnw -B -DskipTests -Dimage.dir=/opt/vfio-device-plugin -Dgit.commit.id.abbrev="${GIT_COMMIT}" package

# No pci.ids of the distribution's: the jar carries the newest Debian has (bin/refresh-pci-ids), and
# the plugin would use a system copy only when it is newer.
FROM ${BASE_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="vfio-device-plugin" \
      org.opencontainers.image.description="Kubernetes device plugin handing GPUs, vGPUs and permitted PCI devices to KubeVirt VMs via VFIO" \
      org.opencontainers.image.source="https://github.com/vfio-device-plugin/vfio-device-plugin" \
      org.opencontainers.image.version="${VERSION}"
# COPY keeps modification times, which the class-data-sharing archive checks against the jar. lib/ holds LICENSE and
# THIRD-PARTY.txt (every bundled artifact and its license) beside the jar.
COPY --from=build /opt/vfio-device-plugin /opt/vfio-device-plugin
ENTRYPOINT ["/opt/vfio-device-plugin/bin/vfio-device-plugin"]
CMD ["serve"]
