// SPDX-License-Identifier: GPL-2.0
/*
 * The switch: directed routes through it (IBA 14.2.2), LID routing by its
 * LFT (wire.c) and its SMA on port 0 (IBA 14.2.5; design: "The switch SMA
 * and directed routes"). The switch is fabric state, not an ib_device:
 * ib_core's DR helpers (smi.c) are static and its MAD layer is not here.
 * Everything runs in the sending QP's send work and never sleeps.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>

#include "softib.h"

/* PortInfo:RespTimeValue: 4.096 us * 2^8, about 1 ms. */
#define SOFTIB_SW_RESP_TIME	8
/* LinearForwardingTable: 64 ports per block (IBA 14.2.5.10). */
#define SOFTIB_SW_LFT_BLOCK	64
/* MulticastForwardingTable: 32 MLIDs per block, 16 ports per position. */
#define SOFTIB_SW_MFT_BLOCK	32
#define SOFTIB_SW_MFT_POSITION	16
/* SwitchInfo:LifeTimeValue at reset (IBA 14.2.5.4). */
#define SOFTIB_SW_LIFE_TIME	18
/* Trap 128: PortStateChange (IBA 14.2.5.1, Table 128). */
#define SOFTIB_SW_TRAP_LINK	128
/* A trap not repressed is sent again this often, this many times. */
#define SOFTIB_SW_TRAP_RESEND_MS	1000
#define SOFTIB_SW_TRAP_SENDS	5

/* SwitchInfo (IBA 14.2.5.4), the first 20 bytes of the SMP data. */
struct softib_switch_info {
	__be16 lft_cap;			/* LinearFDBCap */
	__be16 rft_cap;			/* RandomFDBCap: 0 */
	__be16 mft_cap;			/* MulticastFDBCap */
	__be16 lft_top;			/* LinearFDBTop */
	u8 default_port;
	u8 default_mcast_primary_port;
	u8 default_mcast_not_primary_port;
	/* LifeTimeValue 7..3, PortStateChange 2, OptimizedSLtoVL 1..0 */
	u8 life_time_psc;
	__be16 lids_per_port;
	__be16 partition_enforcement_cap;
	/* Inbound/OutboundEnforcementCap, FilterRaw*, EnhancedPort0 3 */
	u8 flags;
	u8 reserved;
	__be16 mft_top;			/* MulticastFDBTop */
} __packed;

#define SOFTIB_SW_PSC		BIT(2)

struct softib_switch_req {
	struct softib_switch *sw;
	u8 in_port;			/* the port the SMP came in on */
	bool set;
	u32 attr_mod;
	const u8 *in;
	u8 *out;			/* zeroed */
};

static void softib_switch_trap_work(struct work_struct *work);

int softib_switch_init(struct softib_switch *sw)
{
	spin_lock_init(&sw->lock);
	INIT_DELAYED_WORK(&sw->trap_work, softib_switch_trap_work);
	sw->lft = kvzalloc(SOFTIB_LFT_CAP, GFP_KERNEL);
	sw->mft = kvcalloc(SOFTIB_MFT_CAP, sizeof(*sw->mft), GFP_KERNEL);
	if (!sw->lft || !sw->mft) {
		softib_switch_uninit(sw);
		return -ENOMEM;
	}
	/* IBA 18.2.4.3.1: an unset LFT entry is 255, drop. */
	memset(sw->lft, 0xff, SOFTIB_LFT_CAP);
	sw->life_time = SOFTIB_SW_LIFE_TIME;
	sw->gid_prefix = cpu_to_be64(0xfe80000000000000ULL);
	sw->pkeys[0] = IB_DEFAULT_PKEY_FULL;
	/* Base port 0 is always linked (IBA 14.2.5.6): INIT until the SM. */
	sw->node.ports[0].state = IB_PORT_INIT;
	return 0;
}

/* After every HCA is gone, so that no port change queues a trap again. */
void softib_switch_uninit(struct softib_switch *sw)
{
	cancel_delayed_work_sync(&sw->trap_work);
	kvfree(sw->lft);
	kvfree(sw->mft);
	sw->lft = NULL;
	sw->mft = NULL;
}

static u16 softib_switch_node_info(struct softib_switch_req *r)
{
	struct softib_node *node = &r->sw->node;

	if (r->set)
		return SOFTIB_SMP_BAD_ATTR;
	if (r->attr_mod)
		return SOFTIB_SMP_BAD_FIELD;
	/* Every port of a switch has port 0's GUID (IBA 14.2.5.3). */
	softib_sma_node_info_fill((struct ib_node_info *)r->out, node,
				  node->node_guid, r->in_port);
	return 0;
}

static u16 softib_switch_node_desc(struct softib_switch_req *r)
{
	if (r->set)
		return SOFTIB_SMP_BAD_ATTR;
	if (r->attr_mod)
		return SOFTIB_SMP_BAD_FIELD;
	snprintf(r->out, IB_DEVICE_NODE_DESC_MAX, "%.32s softib switch",
		 r->sw->node.name);
	return 0;
}

static void softib_switch_port_info_get(struct softib_switch_req *r,
					struct softib_port *port)
{
	struct ib_port_info *pi = (struct ib_port_info *)r->out;
	struct softib_switch *sw = r->sw;
	struct softib_port *p0 = &sw->node.ports[0];

	/* LID, SM LID, keys: port 0's for every port (IBA 14.2.5.6). */
	pi->mkey = sw->mkey;
	pi->gid_prefix = sw->gid_prefix;
	pi->lid = cpu_to_be16(READ_ONCE(p0->lid));
	pi->sm_lid = cpu_to_be16(sw->sm_lid);
	if (!port->num)
		pi->cap_mask = cpu_to_be32(IB_PORT_TRAP_SUP |
					   IB_PORT_SYS_IMAGE_GUID_SUP);
	pi->local_port_num = r->in_port;
	pi->link_width_enabled = port->link_width_enabled;
	pi->link_width_supported = SOFTIB_LINK_WIDTHS;
	pi->link_width_active = IB_WIDTH_4X;
	pi->linkspeed_portstate = SOFTIB_LINK_SPEEDS << 4 |
				  READ_ONCE(port->state);
	pi->portphysstate_linkdown = READ_ONCE(port->phys_state) << 4 |
				     port->link_down_default;
	pi->mkeyprot_resv_lmc = READ_ONCE(p0->lmc);
	pi->linkspeedactive_enabled = IB_SPEED_QDR << 4 |
				      port->link_speed_enabled;
	pi->neighbormtu_mastersmsl = READ_ONCE(port->neighbor_mtu) << 4 |
				     sw->sm_sl;
	pi->vlcap_inittype = SOFTIB_DATA_VLS << 4;
	pi->inittypereply_mtucap = IB_MTU_4096;
	pi->vlstallcnt_hoqlife = port->vl_stall_hoq;
	pi->operationalvl_pei_peo_fpi_fpo = READ_ONCE(port->op_vls) << 4;
	pi->guid_cap = 1;
	pi->clientrereg_resv_subnetto = sw->subnet_timeout;
	pi->resv_resptimevalue = SOFTIB_SW_RESP_TIME;
	pi->localphyerrors_overrunerrors = port->error_thresholds;
}

/* Port 0 keeps the switch's LID and SM fields; every port its link. */
static void softib_switch_port_info_apply(struct softib_switch_req *r,
					  struct softib_port *port,
					  const struct ib_port_info *pi)
{
	u8 state = pi->linkspeed_portstate & 0xf;
	u8 phys = pi->portphysstate_linkdown >> 4;
	u8 opvls = pi->operationalvl_pei_peo_fpi_fpo >> 4;
	u8 ldd = pi->portphysstate_linkdown & 0xf;
	struct softib_switch *sw = r->sw;
	unsigned long flags;

	if (!port->num) {
		spin_lock_irqsave(&sw->lock, flags);
		sw->mkey = pi->mkey;
		sw->gid_prefix = pi->gid_prefix;
		sw->sm_lid = be16_to_cpu(pi->sm_lid);
		sw->sm_sl = pi->neighbormtu_mastersmsl & 0xf;
		sw->subnet_timeout = pi->clientrereg_resv_subnetto & 0x1f;
		spin_unlock_irqrestore(&sw->lock, flags);
	}
	spin_lock_irqsave(&port->lock, flags);
	if (!port->num) {
		port->lid = be16_to_cpu(pi->lid);
		port->lmc = pi->mkeyprot_resv_lmc & 7;
	}
	if (pi->link_width_enabled)
		port->link_width_enabled = pi->link_width_enabled == 0xff ?
			SOFTIB_LINK_WIDTHS : pi->link_width_enabled;
	if (pi->linkspeedactive_enabled & 0xf)
		port->link_speed_enabled =
			(pi->linkspeedactive_enabled & 0xf) == 0xf ?
			SOFTIB_LINK_SPEEDS : pi->linkspeedactive_enabled & 0xf;
	if (ldd)
		port->link_down_default = ldd;
	port->neighbor_mtu = pi->neighbormtu_mastersmsl >> 4;
	if (opvls)
		port->op_vls = opvls;
	port->vl_stall_hoq = pi->vlstallcnt_hoqlife;
	port->error_thresholds = pi->localphyerrors_overrunerrors;
	spin_unlock_irqrestore(&port->lock, flags);

	/* Port 0 has no link to take down (IBA 14.2.5.6, base port 0). */
	if (!port->num) {
		if (state == IB_PORT_ARMED || state == IB_PORT_ACTIVE)
			softib_fabric_port_set_state(port, state);
	} else if (phys == IB_PORT_PHYS_STATE_DISABLED) {
		softib_fabric_port_disable(port);
	} else if (phys == IB_PORT_PHYS_STATE_POLLING ||
		   state == IB_PORT_DOWN) {
		softib_fabric_port_bounce(port);
	} else if (state == IB_PORT_ARMED || state == IB_PORT_ACTIVE) {
		softib_fabric_port_set_state(port, state);
	}
}

/* Modifier: the port number, 0 to NumPorts (IBA 14.2.5.6). */
static u16 softib_switch_port_info(struct softib_switch_req *r)
{
	const struct ib_port_info *pi = (const struct ib_port_info *)r->in;
	struct softib_port *port;
	u16 status = 0;

	if (r->attr_mod > r->sw->node.nports)
		return SOFTIB_SMP_BAD_FIELD;
	port = &r->sw->node.ports[r->attr_mod];
	if (r->set) {
		if (softib_sma_port_info_ok(pi, port))
			softib_switch_port_info_apply(r, port, pi);
		else
			status = SOFTIB_SMP_BAD_FIELD;
	}
	softib_switch_port_info_get(r, port);
	return status;
}

/*
 * SwitchInfo (IBA 14.2.5.4). A Set writes LinearFDBTop, the default
 * ports, LifeTimeValue; PortStateChange written as 1 clears it.
 */
static u16 softib_switch_switch_info(struct softib_switch_req *r)
{
	const struct softib_switch_info *in = (const void *)r->in;
	struct softib_switch_info *si = (void *)r->out;
	struct softib_switch *sw = r->sw;
	unsigned long flags;
	u16 top;

	if (r->attr_mod)
		return SOFTIB_SMP_BAD_FIELD;
	spin_lock_irqsave(&sw->lock, flags);
	if (r->set) {
		top = be16_to_cpu(in->lft_top);
		if (top >= SOFTIB_LFT_CAP) {
			spin_unlock_irqrestore(&sw->lock, flags);
			return SOFTIB_SMP_BAD_FIELD;
		}
		sw->lft_top = top;
		sw->life_time = in->life_time_psc >> 3;
		if (in->life_time_psc & SOFTIB_SW_PSC)
			WRITE_ONCE(sw->port_state_change, false);
	}
	si->lft_cap = cpu_to_be16(SOFTIB_LFT_CAP);
	si->mft_cap = cpu_to_be16(SOFTIB_MFT_CAP);
	si->lft_top = cpu_to_be16(sw->lft_top);
	si->life_time_psc = sw->life_time << 3 |
			    (READ_ONCE(sw->port_state_change) ? SOFTIB_SW_PSC : 0);
	si->lids_per_port = cpu_to_be16(1);
	/* 0: P_Keys are checked at the HCAs (design: "P_Key tables"). */
	si->partition_enforcement_cap = 0;
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

/* One block of 64 LIDs (IBA 14.2.5.10). */
static u16 softib_switch_lft(struct softib_switch_req *r)
{
	u32 base = r->attr_mod * SOFTIB_SW_LFT_BLOCK;
	struct softib_switch *sw = r->sw;
	unsigned long flags;

	if (r->attr_mod >= SOFTIB_LFT_CAP / SOFTIB_SW_LFT_BLOCK)
		return SOFTIB_SMP_BAD_FIELD;
	spin_lock_irqsave(&sw->lock, flags);
	if (r->set)
		memcpy(&sw->lft[base], r->in, SOFTIB_SW_LFT_BLOCK);
	memcpy(r->out, &sw->lft[base], SOFTIB_SW_LFT_BLOCK);
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

/*
 * One block of 32 MLIDs, one position of 16 ports (IBA 14.2.5.11):
 * modifier bits 8..0 the block, 31..28 the position.
 */
static u16 softib_switch_mft(struct softib_switch_req *r)
{
	u32 block = r->attr_mod & 0x1ff, pos = r->attr_mod >> 28;
	const __be16 *in = (const __be16 *)r->in;
	struct softib_switch *sw = r->sw;
	__be16 *out = (__be16 *)r->out;
	unsigned int shift = pos * SOFTIB_SW_MFT_POSITION;
	unsigned long flags;
	u64 *mask;
	int i;

	if (block >= SOFTIB_MFT_CAP / SOFTIB_SW_MFT_BLOCK ||
	    shift > sw->node.nports || (r->attr_mod & 0x0ffffe00))
		return SOFTIB_SMP_BAD_FIELD;
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < SOFTIB_SW_MFT_BLOCK; i++) {
		mask = &sw->mft[block * SOFTIB_SW_MFT_BLOCK + i];
		if (r->set) {
			*mask &= ~((u64)0xffff << shift);
			*mask |= (u64)be16_to_cpu(in[i]) << shift;
			/* Only ports that exist (IBA 14.2.5.11). */
			*mask &= GENMASK_ULL(sw->node.nports, 0);
		}
		out[i] = cpu_to_be16((*mask >> shift) & 0xffff);
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

/* Port 0 only: external ports enforce no partitions (IBA 14.2.5.7). */
static u16 softib_switch_pkey_table(struct softib_switch_req *r)
{
	const __be16 *in = (const __be16 *)r->in;
	struct softib_switch *sw = r->sw;
	__be16 *out = (__be16 *)r->out;
	unsigned long flags;
	int i;

	if (r->attr_mod)
		return SOFTIB_SMP_BAD_FIELD;
	spin_lock_irqsave(&sw->lock, flags);
	for (i = 0; i < SOFTIB_NPKEYS; i++) {
		if (r->set)
			sw->pkeys[i] = be16_to_cpu(in[i]);
		out[i] = cpu_to_be16(sw->pkeys[i]);
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	return 0;
}

static u16 softib_switch_attr(struct softib_switch_req *r, __be16 attr_id)
{
	switch (attr_id) {
	case IB_SMP_ATTR_NODE_INFO:
		return softib_switch_node_info(r);
	case IB_SMP_ATTR_NODE_DESC:
		return softib_switch_node_desc(r);
	case IB_SMP_ATTR_PORT_INFO:
		return softib_switch_port_info(r);
	case IB_SMP_ATTR_SWITCH_INFO:
		return softib_switch_switch_info(r);
	case IB_SMP_ATTR_LINEAR_FORWARD_TABLE:
		return softib_switch_lft(r);
	case IB_SMP_ATTR_MCAST_FORWARD_TABLE:
		return softib_switch_mft(r);
	case IB_SMP_ATTR_PKEY_TABLE:
		return softib_switch_pkey_table(r);
	default:
		return SOFTIB_SMP_BAD_ATTR;
	}
}

/*
 * The SMA answers an SMP in place (IBA 14.2.5): GetResp with the status,
 * true to send it back; false drops it (a response nobody here waits
 * for, TrapRepress before the switch sends traps in step 4).
 */
static bool softib_switch_sma(struct softib_switch *sw, u8 in_port,
			      struct ib_smp *smp)
{
	struct softib_switch_req r = {
		.sw = sw,
		.in_port = in_port,
		.set = smp->method == IB_MGMT_METHOD_SET,
		.attr_mod = be32_to_cpu(smp->attr_mod),
	};
	u8 in[IB_SMP_DATA_SIZE];
	u16 status;

	switch (smp->method) {
	case IB_MGMT_METHOD_GET_RESP:
	case IB_MGMT_METHOD_TRAP:
	case IB_MGMT_METHOD_TRAP_REPRESS:
	case IB_MGMT_METHOD_REPORT:
	case IB_MGMT_METHOD_REPORT_RESP:
		return false;
	default:
		break;
	}
	memcpy(in, smp->data, sizeof(in));
	memset(smp->data, 0, sizeof(smp->data));
	r.in = in;
	r.out = smp->data;
	status = softib_smp_check(smp) ?: softib_switch_attr(&r, smp->attr_id);
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status = cpu_to_be16(status);
	return true;
}

/*
 * A directed-route SMP arriving on port @in_port (IBA 14.2.2.2 outbound,
 * C14-9; 14.2.2.4 returning, C14-13). The switch does both halves a
 * node does, receive and send, in one step. Returns the port to send the
 * SMP out of, 0 to hand it to the SMA, -1 to drop it. A DR path with a
 * LID-routed part (DrDLID or DrSLID not permissive) is dropped: OpenSM
 * and the -D tools use none (design: "The switch SMA").
 */
static int softib_switch_dr(struct softib_switch *sw, u8 in_port,
			    struct ib_smp *smp)
{
	u8 nports = sw->node.nports;
	u8 out;

	/* C14-6: hop counts 0..63. */
	if (smp->hop_cnt >= IB_SMP_MAX_PATH_HOPS)
		return -1;
	if (!ib_get_smp_direction(smp)) {
		/* C14-9:1: the sender increments hop_ptr past 0. */
		if (!smp->hop_ptr || smp->hop_ptr > smp->hop_cnt)
			return -1;
		smp->return_path[smp->hop_ptr] = in_port;
		/* C14-9:3: the end of the path: this SMA's. */
		if (smp->hop_ptr == smp->hop_cnt) {
			if (smp->dr_dlid != IB_LID_PERMISSIVE)
				return -1;
			smp->hop_ptr++;
			return 0;
		}
		/* C14-9:2: an intermediate hop, out of initial_path. */
		out = smp->initial_path[++smp->hop_ptr];
		return out && out <= nports ? out : -1;
	}
	/* C14-13:2: returning, out of return_path. */
	if (smp->hop_ptr >= 2 && smp->hop_ptr <= smp->hop_cnt) {
		out = smp->return_path[--smp->hop_ptr];
		return out && out <= nports ? out : -1;
	}
	/* C14-13:3 at a switch means a LID-routed last part, or an SM here. */
	return -1;
}

/* The SMA's answer leaves port 0 back along the return path (C14-13:1). */
static void softib_switch_dr_reply(struct softib_switch *sw,
				   struct softib_pkt *pkt, struct ib_smp *smp)
{
	u8 out;

	smp->status |= IB_SMP_DIRECTION;
	if (!smp->hop_cnt || smp->hop_ptr != smp->hop_cnt + 1)
		return;
	out = smp->return_path[--smp->hop_ptr];
	if (!out || out > sw->node.nports)
		return;
	pkt->dlid = SOFTIB_LID_PERMISSIVE;
	pkt->slid = SOFTIB_LID_PERMISSIVE;
	pkt->dqpn = 0;
	pkt->sqpn = 0;
	softib_wire_xmit(&sw->node.ports[out], pkt);
}

/* A LID-routed SMP for the switch: the answer goes to its SLID. */
static void softib_switch_lid_reply(struct softib_switch *sw,
				    struct softib_pkt *pkt)
{
	pkt->dlid = pkt->slid;
	pkt->slid = READ_ONCE(sw->node.ports[0].lid);
	pkt->dqpn = pkt->sqpn;
	pkt->sqpn = 0;
	softib_wire_forward(sw, 0, pkt);
}

/*
 * Trap 128 (IBA 14.2.5.4, 14.2.5.1): when PortStateChange goes from 0 to
 * 1 the switch's SMA traps to the SM, a LID-routed SubnTrap(Notice) from
 * its LID to the SM LID, QP0 to QP0 on VL15. It is sent again until the
 * SM answers TrapRepress with its TID (IBA 13.4.9), or clears
 * PortStateChange, up to SOFTIB_SW_TRAP_SENDS times. Without an SM LID or
 * a LID of its own the switch cannot trap: the SM's next sweep reads
 * PortStateChange instead.
 */
void softib_switch_port_changed(struct softib_switch *sw)
{
	struct softib_fabric *fabric = sw->node.fabric;
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&sw->lock, flags);
	first = !sw->port_state_change;
	WRITE_ONCE(sw->port_state_change, true);
	if (first) {
		sw->trap_tid = cpu_to_be64((u64)SOFTIB_SW_TRAP_LINK << 32 |
					   ++sw->trap_tid_next);
		sw->trap_sends = 0;
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	if (first)
		mod_delayed_work(fabric->wq, &sw->trap_work, 0);
}

static struct softib_pkt *softib_switch_trap(struct softib_switch *sw)
{
	struct ib_mad_notice_attr *ntc;
	struct softib_pkt *pkt;
	struct ib_smp *smp;
	unsigned long flags;
	u16 lid;

	pkt = softib_pkt_alloc(sizeof(*smp), GFP_KERNEL);
	if (!pkt)
		return NULL;
	smp = (struct ib_smp *)pkt->data;
	lid = READ_ONCE(sw->node.ports[0].lid);
	spin_lock_irqsave(&sw->lock, flags);
	if (!sw->trap_tid || !sw->port_state_change || !sw->sm_lid || !lid ||
	    sw->trap_sends >= SOFTIB_SW_TRAP_SENDS) {
		sw->trap_tid = 0;
		spin_unlock_irqrestore(&sw->lock, flags);
		kfree(pkt);
		return NULL;
	}
	sw->trap_sends++;
	smp->tid = sw->trap_tid;
	pkt->dlid = sw->sm_lid;
	pkt->sl = sw->sm_sl;
	spin_unlock_irqrestore(&sw->lock, flags);

	pkt->vl = SOFTIB_VL15;
	pkt->slid = lid;
	pkt->pkey = IB_DEFAULT_PKEY_FULL;
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = SOFTIB_SMP_CLASS_VERSION;
	smp->method = IB_MGMT_METHOD_TRAP;
	smp->attr_id = IB_SMP_ATTR_NOTICE;
	ntc = (struct ib_mad_notice_attr *)smp->data;
	ntc->generic_type = IB_NOTICE_TYPE_URGENT;
	ntc->prod_type_lsb = IB_NOTICE_PROD_SWITCH;
	ntc->trap_num = cpu_to_be16(SOFTIB_SW_TRAP_LINK);
	ntc->issuer_lid = cpu_to_be16(lid);
	/* Table 128: LIDADDR, the switch whose port changed. */
	ntc->details.raw_data.details[0] = lid >> 8;
	ntc->details.raw_data.details[1] = lid & 0xff;
	return pkt;
}

static void softib_switch_trap_work(struct work_struct *work)
{
	struct softib_switch *sw = container_of(to_delayed_work(work),
						struct softib_switch,
						trap_work);
	struct softib_pkt *pkt = softib_switch_trap(sw);

	if (!pkt)
		return;
	softib_wire_forward(sw, 0, pkt);
	kfree(pkt);
	queue_delayed_work(sw->node.fabric->wq, &sw->trap_work,
			   msecs_to_jiffies(SOFTIB_SW_TRAP_RESEND_MS));
}

/* The SM's TrapRepress for the trap in flight ends its resends. */
static void softib_switch_trap_repress(struct softib_switch *sw,
				       const struct ib_smp *smp)
{
	unsigned long flags;

	if (smp->attr_id != IB_SMP_ATTR_NOTICE)
		return;
	spin_lock_irqsave(&sw->lock, flags);
	if (sw->trap_tid && smp->tid == sw->trap_tid)
		sw->trap_tid = 0;
	spin_unlock_irqrestore(&sw->lock, flags);
}

/*
 * A packet arrives at switch port @port. SMPs on VL15 are switched by
 * their directed route, or, LID-routed, reach the SMA at the switch's LID
 * (LFT entry 0, IBA 18.2.4.3); other packets are forwarded by the LFT.
 */
void softib_switch_rx(struct softib_port *port, struct softib_pkt *pkt)
{
	struct softib_switch *sw = container_of(port->node,
						struct softib_switch, node);
	struct ib_smp *smp = (struct ib_smp *)pkt->data;
	u16 lid = READ_ONCE(sw->node.ports[0].lid);
	int out;

	if (pkt->vl != SOFTIB_VL15) {
		if (!lid || pkt->dlid != lid)
			softib_wire_forward(sw, port->num, pkt);
		return;	/* no GSI agent on port 0 (design: open question) */
	}
	if (pkt->dqpn != 0 || pkt->len != sizeof(*smp))
		return;
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE &&
	    pkt->dlid == SOFTIB_LID_PERMISSIVE) {
		out = softib_switch_dr(sw, port->num, smp);
		if (out > 0)
			softib_wire_xmit(&sw->node.ports[out], pkt);
		else if (!out && softib_switch_sma(sw, port->num, smp))
			softib_switch_dr_reply(sw, pkt, smp);
		return;
	}
	if (!lid || pkt->dlid != lid) {
		softib_wire_forward(sw, port->num, pkt);
		return;
	}
	if (smp->mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED)
		return;
	if (smp->method == IB_MGMT_METHOD_TRAP_REPRESS)
		softib_switch_trap_repress(sw, smp);
	else if (softib_switch_sma(sw, port->num, smp))
		softib_switch_lid_reply(sw, pkt);
}
