# Sourced by ./mvnw and .ci/run: make JAVA_HOME point at a JDK >= 21.
# The machine's default java may be older (Debian 12 ships 17); a newer JDK usually sits
# beside it under /usr/lib/jvm. An explicit JAVA_HOME that is new enough is kept.

vfiodp_java_feature() {
  # prints the feature release (17, 21, 25...) of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

vfiodp_select_jdk() {
  vfiodp_min=21
  if [ -n "${JAVA_HOME-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    v=$(vfiodp_java_feature "$JAVA_HOME/bin/java")
    if [ -n "$v" ] && [ "$v" -ge "$vfiodp_min" ]; then return 0; fi
  fi
  best=""; bestv=0
  # mvnw runs under 'set -f'; the search below needs globbing
  case $- in *f*) vfiodp_noglob=1; set +f ;; *) vfiodp_noglob=0 ;; esac
  for home in ${JDK_HOME-} /usr/lib/jvm/* /opt/java/openjdk /opt/jdk* "$(dirname "$(dirname "$(readlink -f "$(command -v javac 2>/dev/null || echo /nonexistent)")")")"; do
    [ -x "$home/bin/javac" ] || continue
    v=$(vfiodp_java_feature "$home/bin/java")
    [ -n "$v" ] || continue
    if [ "$v" -ge "$vfiodp_min" ] && [ "$v" -gt "$bestv" ]; then best=$home; bestv=$v; fi
  done
  [ "$vfiodp_noglob" = 1 ] && set -f
  if [ -z "$best" ]; then
    echo "vfio-device-plugin: no JDK >= $vfiodp_min found (looked at JAVA_HOME, JDK_HOME, /usr/lib/jvm/*, /opt). Install one (e.g. 'apt-get install openjdk-21-jdk-headless' or Temurin 21) or set JAVA_HOME." >&2
    return 1
  fi
  JAVA_HOME=$best
  export JAVA_HOME
}
