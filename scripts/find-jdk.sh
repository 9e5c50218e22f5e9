#!/usr/bin/env bash
# Prints the home of a JDK of the given feature version (e.g. 25): $JDK<N>_HOME if set, else the first match
# among the usual install locations; exits 1 when none is found, saying on stderr how to get one.
set -uo pipefail
version=${1:?usage: find-jdk.sh VERSION}
var="JDK${version}_HOME"
candidates=("${!var:-}")
for dir in /usr/lib/jvm/* /usr/local/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/*; do
    candidates+=("$dir")
done
for home in "${candidates[@]}"; do
    [ -n "$home" ] && [ -x "$home/bin/java" ] && [ -f "$home/release" ] || continue
    if grep -qE "^JAVA_VERSION=\"$version([.\"])" "$home/release"; then
        echo "$home"
        exit 0
    fi
done
cat >&2 <<MESSAGE
No JDK $version found (looked at \$$var, /usr/lib/jvm, /usr/local/lib/jvm, /opt/java, /opt/jdk*, ~/.sdkman and ~/.jdks).
Get one, e.g. Eclipse Temurin $version: on Debian or Ubuntu add Adoptium's apt repository
(https://adoptium.net/installation/linux/) and run 'apt-get install temurin-$version-jdk', or download it from
https://adoptium.net/temurin/releases/?version=$version and unpack it. Then set $var to its home if it is
not in one of those places.
MESSAGE
exit 1
