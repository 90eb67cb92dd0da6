#!/bin/sh
# Builds the installable plugin directory (the container image's /opt/vfio-device-plugin) from the
# shaded jar, with the JDK the build runs on:
#
#   OUT/runtime/                  Java runtime made by jlink: the modules jdeps finds in the jar
#   OUT/lib/vfio-device-plugin.jar  the jar (JDK 25+: picocli's classes as Java 8 class files, archivable)
#   OUT/lib/LICENSE               the project's license (Apache-2.0)
#   OUT/lib/THIRD-PARTY.txt       every third-party artifact in the jar with its license, and the Java runtime's
#   OUT/lib/jvm.options           the shipped JVM flags
#   OUT/lib/compile-commands      the shipped compile thresholds of the request path (-XX:CompileCommandFile)
#   OUT/lib/native/               netty's epoll transport and JNA's dispatcher, unpacked from the jar
#   OUT/lib/vfio-device-plugin.jsa class-data-sharing archive made by a training run of `demo`:
#                                 on JDK 25+ an AOT cache (JEP 483/514/515), before a dynamic archive
#   OUT/lib/vfio-device-plugin-api.jsa the same, trained on the demo's DRA part: serve with the API
#   OUT/bin/vfio-device-plugin    launcher using all of the above
#
# Usage: build.sh JAVA_HOME JAR OUT DEMO KIT. JAR is the agent's shaded jar (agent/target), DEMO the
# demo's jar (module demo: its main class io.vfiodp.cli.DemoMain runs the training runs) and KIT the
# test kit's jar, the kubelet simulators of the training run's demo, with fabric8's mock API server
# beside it for its DRA part (image/target/demo-lib): the image holds none of them. Run by the Maven
# profile "image" (image/pom.xml), which the Dockerfile's build stage runs; every step of the image
# build is here, so the tests see it.
set -eu

java_home=$1
jar=$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2")
out=$(mkdir -p "$3" && cd "$3" && pwd -P)
if [ ! -f "$4" ]; then
    echo "image: the demo's jar $4 is missing; the training run runs the demo" >&2
    exit 1
fi
demo=$(cd "$(dirname "$4")" && pwd -P)/$(basename "$4")
if [ ! -f "$5" ]; then
    echo "image: the test kit's jar $5 is missing; the training run's demo needs its kubelet simulators" >&2
    exit 1
fi
kit=$(cd "$(dirname "$5")" && pwd -P)/$(basename "$5")
src=$(cd "$(dirname "$0")" && pwd -P)

feature=$("$java_home/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1)
if [ -z "$feature" ]; then
    echo "image: cannot tell the Java version of $java_home/bin/java" >&2
    exit 1
fi

modules=$("$java_home/bin/jdeps" --multi-release "$feature" --ignore-missing-deps --print-module-deps "$jar")
# jdk.jfr is there for netty's buffer events only: netty asks jdk.jfr.FlightRecorder.isAvailable() once,
# catching any Throwable, and touches its event classes only when that said yes. Without the module the
# answer is no and the runtime loads none of JFR's Java side (docs/deployment.md, "Build").
modules=$(printf '%s' "$modules" | tr ',' '\n' | grep -vx 'jdk.jfr' | paste -sd, -)
extra=""
if [ "$feature" -lt 22 ]; then
    # Up to JDK 21 the EC and XDH key agreement (SunEC) live in jdk.crypto.ec, found by the JCA
    # provider lookup, which jdeps cannot see; without them TLS to the API server (Go offers only
    # x25519 and NIST curves) fails (ImageIT.serveFollowsTheKubeVirtCrOverTls). JDK 22 moved SunEC
    # into java.base.
    extra=",jdk.crypto.ec"
fi
options=""
cds="--generate-cds-archive"
if [ "$feature" -ge 25 ]; then
    # The AOT cache is a static archive holding the JDK classes too, so the runtime needs no
    # default archive of its own, and the image is smaller without it (docs/benchmarks.md,
    # "Choices in the image").
    cds=""
fi
if [ "$feature" -ge 23 ]; then
    # netty (inside grpc-netty-shaded) uses sun.misc.Unsafe memory access, and protobuf's lite runtime
    # (the generated messages) cannot do without it: JDK 24+ warns on every start, and with access
    # denied (the default JEP 471 plans for a later JDK) lite messages throw. The option exists from
    # JDK 23 on, so it goes into this runtime, not into jvm.options.
    # The launcher starts the main class from the class path, not with -jar (which would read the
    # jar's central directory once more before main), so the manifest's
    # Enable-Native-Access does not apply: the runtime enables it for netty's and JNA's JNI, and
    # since it is the runtime's, the training run has it too (an AOT cache made without it refuses
    # to map).
    options="--add-options=--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
fi

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
echo "image: jlink (JDK $feature) --add-modules $modules$extra"
# shellcheck disable=SC2086 # $cds is one word or none
if ! "$java_home/bin/jlink" --add-modules "$modules$extra" ${options:+"$options"} \
        --strip-debug --no-header-files --no-man-pages $cds \
        --output "$out/runtime"; then
    echo "image: jlink failed with the JDK in $java_home; it needs the JDK's jmods (Debian: the openjdk-N-jmods" \
        "package) or a JDK built to link from its own runtime (Temurin 24+). -DskipImage builds the jar only." >&2
    exit 1
fi

cp -p "$jar" "$out/lib/vfio-device-plugin.jar"

if [ "$feature" -ge 25 ]; then
    # picocli's class files are Java 5's, and HotSpot keeps class files older than Java 6 out of the
    # AOT cache: each start loaded them from the jar and ran the old verifier over them before
    # registration (docs/benchmarks.md, "Choices in the image"). Rewritten as Java 8 class files with
    # stack maps, the bytecode unchanged (ArchivableClassFiles.java), they go into the cache with the rest.
    classes=$(mktemp -d)
    (cd "$classes" && "$java_home/bin/jar" xf "$out/lib/vfio-device-plugin.jar" picocli)
    if ! "$java_home/bin/java" "$src/ArchivableClassFiles.java" "$classes"; then
        rm -rf "$classes"
        echo "image: could not rewrite picocli's class files (above)" >&2
        exit 1
    fi
    (cd "$classes" && "$java_home/bin/jar" uf "$out/lib/vfio-device-plugin.jar" picocli)
    rm -rf "$classes"
fi

# netty's epoll transport and JNA's dispatcher are native libraries inside the jar, which both
# libraries would otherwise unpack to java.io.tmpdir at every start (time, and a writable /tmp).
# Unpacked here once; the launcher points java.library.path (netty looks there first) and
# jna.boot.library.path at them.
case $(uname -m) in
    x86_64) netty_arch=x86_64 jna_arch=x86-64 ;;
    aarch64) netty_arch=aarch_64 jna_arch=aarch64 ;;
    *) echo "image: no epoll transport for $(uname -m) in the jar (grpc-netty-shaded has x86_64 and aarch64)" >&2; exit 1 ;;
esac
mkdir -p "$out/lib/native"
(cd "$out/lib/native" && "$java_home/bin/jar" xf "$out/lib/vfio-device-plugin.jar" \
    "META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_$netty_arch.so" \
    "com/sun/jna/linux-$jna_arch/libjnidispatch.so" \
    && mv "META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_$netty_arch.so" \
        "com/sun/jna/linux-$jna_arch/libjnidispatch.so" . \
    && rm -r META-INF com)
cp "$src/jvm.options" "$out/lib/jvm.options"
# The licenses, beside the jar: the project's, and every third-party artifact the jar bundles (the listing the
# build generated from Maven's metadata, agent/pom.xml) followed by the Java runtime made above, whose own
# notices jlink keeps in runtime/legal.
# (jar extracts every entry that starts with a name given, META-INF/LICENSE.txt too: into a directory of its own)
notices=$(mktemp -d)
(cd "$notices" && "$java_home/bin/jar" xf "$out/lib/vfio-device-plugin.jar" META-INF/LICENSE META-INF/THIRD-PARTY.txt)
cp "$notices/META-INF/LICENSE" "$notices/META-INF/THIRD-PARTY.txt" "$out/lib/" 2>/dev/null || true
rm -rf "$notices"
if [ ! -s "$out/lib/LICENSE" ] || [ ! -s "$out/lib/THIRD-PARTY.txt" ]; then
    echo "image: the jar holds no META-INF/LICENSE or META-INF/THIRD-PARTY.txt (agent/pom.xml puts them there)" >&2
    exit 1
fi
# Artifacts that other artifacts carry inside them (woodstox-core relocates MSV's xsdlib and isorelax) are not
# Maven dependencies, so the listing misses them; their own POMs, which they brought into the jar, name their
# licenses.
poms=$(mktemp -d)
(cd "$poms" && "$java_home/bin/jar" xf "$out/lib/vfio-device-plugin.jar" META-INF/maven)
embedded=""
for props in "$poms"/META-INF/maven/*/*/pom.properties; do
    group=$(sed -n 's/^groupId=//p' "$props"); artifact=$(sed -n 's/^artifactId=//p' "$props"); version=$(sed -n 's/^version=//p' "$props")
    [ "$group" = io.vfiodp ] && continue
    grep -qF "($group:$artifact:" "$out/lib/THIRD-PARTY.txt" && continue
    license=$(sed -n '/<licenses>/,/<\/licenses>/s/.*<name>\(.*\)<\/name>.*/\1/p' "$(dirname "$props")/pom.xml" | paste -sd, -)
    embedded="$embedded     (${license:-no license in its POM}) $artifact ($group:$artifact:$version, inside another artifact of the list)
"
done
rm -rf "$poms"
if [ -n "$embedded" ]; then
    printf '\nCarried inside the artifacts above (each named by the POM it brought along):\n%s' "$embedded" >>"$out/lib/THIRD-PARTY.txt"
fi
runtime_version=$(sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$out/runtime/release")
runtime_vendor=$(sed -n 's/^IMPLEMENTOR="\(.*\)"$/\1/p' "$out/runtime/release")
cat >>"$out/lib/THIRD-PARTY.txt" <<EOF

The Java runtime in runtime/ (made by jlink from the build's JDK):
     (GPL-2.0-only WITH Classpath-exception-2.0) OpenJDK $runtime_version${runtime_vendor:+ from $runtime_vendor}; the notices of each of its modules are in runtime/legal/

In the container image, the operating system's files come from the Dockerfile's base image (Debian); each
package's license is in /usr/share/doc/<package>/copyright there.
EOF
cp "$src/compile-commands" "$out/lib/compile-commands"
cp "$src/vfio-device-plugin" "$out/bin/vfio-device-plugin"
chmod 755 "$out/bin/vfio-device-plugin"

# Training run: the archive holds every class `serve` loads in the demo (scan, policy, the gRPC
# servers and registration, Allocate, the kubelet's probes), parsed and linked, mapped at each
# start instead. Every node answers the probes; only a node with monitoring is scraped, so the
# demo asks /healthz and /readyz alone (--probes-only): the scrape's classes (the text format,
# the snapshots) load from the jar at a node's first scrape instead of at every start. The demo
# runs serve as a process of its own next to its kubelet simulator (the test kit, on the demo's
# class path only), and only that process writes the archive: none of the demo's own classes
# (inventory, simulator, printers) are in it, as serve on a node never loads them. That process
# runs from the jar alone (ServeProcess: the jar comes first on the demo's class path), with the shipped
# flags and the launcher's native library path, so that the archive matches the JVM it is used
# with. JDK 25+ writes an AOT cache: the JDK's and the plugin's classes in one static archive,
# loaded and linked before main runs (serve starts faster than on the dynamic archive: docs/deployment.md,
# "Build"); -XX:SharedArchiveFile maps it like any static archive, so the launcher is the
# same for both. Up to JDK 24 (no one-step -XX:AOTCacheOutput) it is a dynamic archive on top of
# the runtime's default one (jlink --generate-cds-archive). Both are written as serve exits on
# the demo's SIGTERM.
if [ "$feature" -ge 25 ]; then
    training="-XX:AOTCacheOutput=$out/lib/vfio-device-plugin.jsa"
    # Without the method profiles of JEP 515 (which steer C2, which the shipped flags leave out):
    # less resident memory after registration, and no slower start (docs/benchmarks.md, "Choices
    # in the image").
    profiles="--serve-java-option=-XX:-AOTRecordTraining"
else
    training="-XX:ArchiveClassesAtExit=$out/lib/vfio-device-plugin.jsa"
    profiles=""
fi
work=$(mktemp -d)
log="$out.training.log"
# shellcheck disable=SC2086 # $profiles is one word or none
if ! (cd "$work" && "$out/runtime/bin/java" "@$out/lib/jvm.options" -cp "$out/lib/vfio-device-plugin.jar:$demo:$kit" io.vfiodp.cli.DemoMain \
        "--serve-java-option=@$out/lib/jvm.options" "--serve-java-option=-XX:CompileCommandFile=$out/lib/compile-commands" \
        "--serve-java-option=$training" \
        "--serve-java-option=-Djava.library.path=$out/lib/native" "--serve-java-option=-Djna.boot.library.path=$out/lib/native" \
        --probes-only $profiles >"$log" 2>&1); then
    rm -rf "$work"
    echo "image: the training run (demo) failed; its output:" >&2
    cat "$log" >&2
    exit 1
fi
rm -rf "$work"
if [ ! -s "$out/lib/vfio-device-plugin.jsa" ]; then
    echo "image: the training run wrote no archive; see $log" >&2
    exit 1
fi

# A second archive, for serve with the Kubernetes API (in a pod): the DRA part of the same demo,
# against fabric8's mock API server (in the demo's process, from the test kit's directory), trains
# it on that part's serve process alone. With the API serve loads the Kubernetes client, Jackson,
# the JDK's HTTP client and the DRA driver: thousands of classes the first cache leaves out, as a
# node without the API never loads them and every class in a cache is loaded at every start.
# The launcher maps this one when serve runs with the API, and the DaemonSet names it (docs/deployment.md, "Build").
training_api=$(printf '%s' "$training" | sed 's/vfio-device-plugin\.jsa$/vfio-device-plugin-api.jsa/')
work=$(mktemp -d)
log_api="$out.training-api.log"
# shellcheck disable=SC2086 # $profiles is one word or none
if ! (cd "$work" && "$out/runtime/bin/java" "@$out/lib/jvm.options" -cp "$out/lib/vfio-device-plugin.jar:$demo:$(dirname "$kit")/*" \
        io.vfiodp.cli.DemoMain \
        "--serve-java-option=@$out/lib/jvm.options" "--serve-java-option=-XX:CompileCommandFile=$out/lib/compile-commands" \
        "--serve-java-option=-Djava.library.path=$out/lib/native" "--serve-java-option=-Djna.boot.library.path=$out/lib/native" \
        "--dra-serve-java-option=$training_api" \
        $(printf '%s' "$profiles" | sed 's/^--serve-java-option=/--dra-serve-java-option=/') \
        --probes-only >"$log_api" 2>&1); then
    rm -rf "$work"
    echo "image: the training run with the API (demo's DRA part) failed; its output:" >&2
    cat "$log_api" >&2
    exit 1
fi
rm -rf "$work"
if [ ! -s "$out/lib/vfio-device-plugin-api.jsa" ]; then
    echo "image: the training run with the API wrote no archive (is fabric8's mock server beside the test kit?); see $log_api" >&2
    exit 1
fi
echo "image: $out ($(du -sh "$out" | cut -f1)), training log $log"
