# Shared by scripts/setup, scripts/cluster and scripts/test. Sourced, never run.
# Paths and helpers only: every script stays readable on its own.

FT_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FT_CACHE=${MPIRUN_FT_CACHE:-/var/cache/mpirun-ft}
FT_IMAGE=${MPIRUN_FT_IMAGE:-$FT_CACHE/image}
FT_OMPI_VERSION=5.0.7
# Versioned so a rebuild with other options never mixes with an older install.
FT_OMPI_PREFIX=/opt/mpirun-ft/openmpi-$FT_OMPI_VERSION-ulfm-prrte5
FT_MPI_JAR_COORDS=org.open-mpi:mpi:$FT_OMPI_VERSION

ft_log() { printf '[%s] %s\n' "${FT_SCRIPT:-mpirun-ft}" "$*" >&2; }
ft_die() { printf '[%s] error: %s\n' "${FT_SCRIPT:-mpirun-ft}" "$*" >&2; exit 1; }

# The median of the numbers on stdin, one a line (the mean of the middle two for an even count).
ft_median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

ft_require_root() {
  [ "$(id -u)" = 0 ] || ft_die "must run as root (namespaces, chroot and apt need it); rerun with sudo"
}

# The root file system the MPI side runs in: the node image, or / when MPI_HOME names
# a host install that already has Java bindings, ULFM and PRRTE >= 5.
ft_rootfs() { if [ -n "${MPI_HOME:-}" ]; then echo /; else echo "$FT_IMAGE"; fi; }
ft_mpi_home() { echo "${MPI_HOME:-$FT_OMPI_PREFIX}"; }

# A JDK 25 on the host to build and run the tests with (class files of mpi.jar are 25).
ft_host_java_home() {
  local candidate
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-* /usr/lib/jvm/java-25-* /usr/lib/jvm/jdk-25*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/javac" ] || continue
    if "$candidate/bin/javac" -version 2>&1 | grep -Eq '^javac 25(\.|$)'; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}

# Runs a command chrooted into the node image in a private mount namespace, so the
# bind mounts it needs vanish with it, even when the command crashes.
ft_in_image() {
  local image=$1; shift
  unshare --mount --propagation private -- /bin/bash -c '
    set -e
    image=$1; shift
    mount --rbind /dev "$image/dev"
    mount -t proc proc "$image/proc"
    mount --rbind /sys "$image/sys"
    cp /etc/resolv.conf "$image/etc/resolv.conf" 2>/dev/null || true
    exec chroot "$image" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
  ' ft-in-image "$image" "$@"
}
