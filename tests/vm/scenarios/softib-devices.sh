#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# softib-devices: the devices of softib.ko, build plan step 1 of
# Documentation/softib-design.rst. No SM and no data plane yet: every
# cabled port is LinkUp in INIT with LID 0.
#
#   softib0 (HCA) port 1 ---+
#   softib1 (HCA) port 1 ---+--- sw0 ports 1..3     sw0 ports 4..8 uncabled
#   softib2 (HCA) port 1 ---+    (fabric state, not an ib_device)
#
# For each HCA: ibv_devinfo through libipathverbs (RDMA_DRIVER_QIB):
# transport and link layer InfiniBand, PORT_INIT, LINK_UP, MTU 4096, LID 0,
# 4X at 10 Gb/s a lane, the design's GUIDs; ibstat: Initializing, LinkUp,
# Rate 40, "Link layer: InfiniBand"; rdma link; the cable in sysfs. Then an
# open uverbs file pins the module, a hop-1 SMP leaves QP0 through the send
# engine and the switch answers it, and 20 unload/load cycles
# leave no device, reference, leak message or kernel warning behind.

# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

SOFTIB_CYCLES=20
# What the cycles may add to vmalloc and unreclaimable slab (kB). One load
# allocates about 1.6 MB of vmalloc (three 512 kB lkey tables, the QPs'
# send queues): a leak of anything per cycle shows.
SOFTIB_VMALLOC_SLACK=1024
SOFTIB_SLAB_SLACK=1024

meminfo_kb() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

softib_devices() {
	find /sys/class/infiniband -maxdepth 1 -name 'softib*' -printf '%f\n' | sort | xargs
}

load_softib
check rdma link show
ibv_devices

want=$(seq -f 'softib%g' 0 $((SOFTIB_HCAS - 1)) | xargs)
[[ $(softib_devices) == "$want" ]] || fail "devices '$(softib_devices)', want '$want'"

for ((i = 0; i < SOFTIB_HCAS; i++)); do
	d=softib$i
	n=$((i + 1))	# node number: sw0 is node 0
	log "$d: ibv_devinfo, ibstat, rdma link, sysfs"
	check ibv_devinfo -v -d "$d" > "/tmp/$d.devinfo"
	expect_lines "/tmp/$d.devinfo" \
		"^hca_id:[[:space:]]+$d\$" \
		"transport:[[:space:]]+InfiniBand \(0\)" \
		"node_guid:[[:space:]]+0200:0000:0000:0${n}00\$" \
		"sys_image_guid:[[:space:]]+0200:0000:0000:0${n}00\$" \
		"phys_port_cnt:[[:space:]]+1\$" \
		"state:[[:space:]]+PORT_INIT \(2\)" \
		"max_mtu:[[:space:]]+4096 \(5\)" \
		"active_mtu:[[:space:]]+4096 \(5\)" \
		"port_lid:[[:space:]]+0\$" \
		"link_layer:[[:space:]]+InfiniBand" \
		"phys_state:[[:space:]]+LINK_UP \(5\)" \
		"active_width:[[:space:]]+4X \(2\)" \
		"active_speed:[[:space:]]+10.0 Gbps \(4\)" \
		"max_pkeys:[[:space:]]+32\$" \
		"GID\[  0\]:[[:space:]]+fe80:0000:0000:0000:0200:0000:0000:0${n}01"

	check ibstat "$d" > "/tmp/$d.ibstat"
	expect_lines "/tmp/$d.ibstat" \
		"^CA '$d'" \
		"Number of ports: 1\$" \
		"Node GUID: 0x0200000000000${n}00\$" \
		"State: Initializing\$" \
		"Physical state: LinkUp\$" \
		"Rate: 40\$" \
		"Base lid: 0\$" \
		"Port GUID: 0x0200000000000${n}01\$" \
		"Link layer: InfiniBand\$"

	expect_lines <(rdma link show "$d/1") "state INIT physical_state LINK_UP"
	peer=$(< "/sys/class/infiniband/$d/ports/1/softib/peer")
	[[ $peer == "sw0:$n" ]] || fail "$d port 1 is cabled to '$peer', want sw0:$n"
	[[ $(< "/sys/class/infiniband/$d/ports/1/rate") == "40 Gb/sec (4X QDR)" ]] ||
		fail "$d: rate '$(< "/sys/class/infiniband/$d/ports/1/rate")'"
done

# ops.owner: an open uverbs file pins the module (no disassociate_ucontext).
uverbs=
for u in /sys/class/infiniband_verbs/uverbs*; do
	[[ $(< "$u/ibdev") == softib1 ]] && uverbs=/dev/infiniband/${u##*/}
done
[[ -n $uverbs ]] || fail "no uverbs device for softib1"
exec {fd}< "$uverbs"
check_fails rmmod softib
exec {fd}<&-

# A DR SMP for hop 1 leaves on QP0, crosses the cable and the switch
# answers (step 3; softib-wire checks the answers).
log "smpquery -D nodeinfo 0,1 on softib1: the switch answers"
check timeout 60 smpquery -C softib1 -P 1 -t 1000 -D nodeinfo 0,1

# Warm up once, then measure what the cycles leave behind.
unload_softib
load_softib
unload_softib
vmalloc0=$(meminfo_kb VmallocUsed)
slab0=$(meminfo_kb SUnreclaim)
log "$SOFTIB_CYCLES unload/load cycles (VmallocUsed ${vmalloc0} kB, SUnreclaim ${slab0} kB)"
for ((c = 1; c <= SOFTIB_CYCLES; c++)); do
	load_softib
	[[ $(softib_devices) == "$want" ]] || fail "cycle $c: devices '$(softib_devices)'"
	ibv_devinfo -d softib2 | grep -q PORT_INIT || fail "cycle $c: softib2 not in INIT"
	unload_softib
	[[ -z $(softib_devices) ]] || fail "cycle $c: '$(softib_devices)' left after rmmod"
done
sync
vmalloc1=$(meminfo_kb VmallocUsed)
slab1=$(meminfo_kb SUnreclaim)
log "after: VmallocUsed ${vmalloc1} kB, SUnreclaim ${slab1} kB"
((vmalloc1 - vmalloc0 <= SOFTIB_VMALLOC_SLACK)) ||
	fail "vmalloc grew by $((vmalloc1 - vmalloc0)) kB over $SOFTIB_CYCLES cycles"
((slab1 - slab0 <= SOFTIB_SLAB_SLACK)) ||
	fail "unreclaimable slab grew by $((slab1 - slab0)) kB over $SOFTIB_CYCLES cycles"

# Every reference softib took is back: rdmavt unloads.
check rmmod rdmavt

# rdmavt's complaints are errors, not warnings: look for them. Its
# messages go through the fabric's pci_dev: " softib: softibN: ...".
if dmesg | grep -E "Driver support req not met|Error in driver|softib[0-9]+: .*([Ee]rror|[Ff]ail|leak)"; then
	fail "rdmavt or softib complained (above)"
fi
log "softib-devices: PASS"
