#!/usr/bin/env bash
# Installs every Debian package that smclab's build, tests, benchmarks and
# demo need. Idempotent and non-interactive; the one place that lists
# dependencies. Run as root (or with sudo available).
set -euo pipefail

packages=(
    # toolchain
    build-essential cmake ninja-build pkg-config git ccache
    clang libclang-rt-14-dev clang-format clang-tidy
    # engine: rdma-core for the verbs fabric (built when found)
    libibverbs-dev rdma-core ibverbs-utils
    # Qt 6 (agents, db, gui), SQLite, plots
    qt6-base-dev qt6-base-dev-tools qt6-websockets-dev libqt6sql6-sqlite libqt6sql6-psql
    libqcustomplot-dev libqcustomplot2.1-qt6 libgl-dev
    libsqlite3-dev sqlite3
    # tests: capture decoding, network namespaces, reference tools
    tshark iproute2 procps psmisc
    # tests: throwaway TLS certificates for the agent's wss:// test
    openssl
    qperf redis-server redis-tools wrk nginx-light iperf3 curl python3
    # tests: a throwaway PostgreSQL server for the store's postgresql tests
    postgresql
    # smclab lab deploy uses the user's OpenSSH client; its test runs a real sshd
    openssh-client openssh-server
    # tests: promtool checks the agent's --metrics page (Debian prometheus)
    prometheus
    # VM lab hosts (smclab lab vm): QEMU, a static busybox for their initramfs,
    # depmod for the kernel package's modules (fetched by apt-get download)
    qemu-system-x86 busybox-static kmod
    # smc_synopt: the SMC TCP option on SYN/SYN-ACK, a BPF sock_ops program
    # (clang's BPF target) loaded with libbpf
    libbpf-dev
    # packaging checks
    dpkg-dev fakeroot file
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages present"
    exit 0
fi

echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
# The reference servers are started by the tests that need them, on their own
# ports; the distribution's default instances are not used.
for svc in redis-server nginx postgresql prometheus; do
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
        $SUDO systemctl stop "$svc" || true
    fi
done
echo "install-deps: done"
