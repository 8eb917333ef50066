#!/bin/bash
# Install every Debian 12 package the project needs (build, tests, VM).
# Idempotent: installs only what is missing. Run as root (CI is root):
# `make deps`. With --check, install nothing: list what is missing and
# fail, without root (`make check` and the other targets start so).
set -euo pipefail
check_only=false
[ "${1:-}" = --check ] && check_only=true

PKGS=(
	build-essential g++ make bc bison flex libelf-dev libssl-dev dwarves kmod
	cpio patch linux-headers-amd64 linux-image-amd64 linux-source-6.1
	# Debian 12's second kernel line (and its PREEMPT_RT flavour): the
	# metapackages follow the 6.12.x point releases.
	linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64
	linux-image-6.12-amd64 linux-image-6.12-rt-amd64
	qemu-system-x86 busybox-static
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev libibumad-dev infiniband-diags perftest
	# The softib fabric's SM and SA (tests/softib/, Documentation/softib-design.rst);
	# ibverbs-providers' libipathverbs binds softib's HCAs for ibv_devinfo.
	opensm
	iproute2 iputils-ping iputils-arping ethtool tcpdump iperf3 procps
	# The kernel's driver selftests (the kselftest scenario): ping.py's TCP case.
	socat
	# systemd-networkd against ipoib_ng (the networkd scenario): networkd,
	# networkctl and the system bus they talk over, a DHCP server.
	systemd dbus dnsmasq-base
	# NetworkManager and netplan against ipoib_ng (the nm scenario); the
	# daemon runs only in the test VM: see the masking below.
	network-manager netplan.io
	dkms dh-dkms debhelper dpkg-dev sparse clang clang-format libclang-rt-14-dev
	cmake libgtest-dev libgmock-dev libbenchmark-dev lcov libmnl-dev
	# The kernel's YNL client (scripts/ynl.sh: tools/net/ynl of the 6.12
	# source) and the Python modules it needs.
	linux-source-6.12 python3-yaml python3-jsonschema
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "setup: all ${#PKGS[@]} packages present"
	exit 0
fi
if $check_only; then
	echo "deps: missing ${missing[*]}: run \`make deps\` as root first" >&2
	exit 1
fi
echo "setup: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "setup: must run as root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# NetworkManager is installed for the nm scenario, which starts it by hand
# in the test VM. On a host that did not have it, it must not start now
# (its postinst would) nor at the next boot and take over the host's
# interfaces: its units are masked before it is installed.
if [[ " ${missing[*]} " == *" network-manager "* ]]; then
	for u in NetworkManager NetworkManager-wait-online NetworkManager-dispatcher; do
		mkdir -p /etc/systemd/system
		[ -e "/etc/systemd/system/$u.service" ] ||
			ln -s /dev/null "/etc/systemd/system/$u.service"
	done
	echo "setup: NetworkManager's units are masked (systemctl unmask NetworkManager to use it)"
fi
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
