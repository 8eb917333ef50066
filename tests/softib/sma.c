// SPDX-License-Identifier: GPL-2.0
/*
 * An HCA's SMA (IBA 14.2.5, design: "The SMA"): ops.process_mad sees every
 * SMP for the HCA's ports first, at hop 0 (mad.c:handle_outgoing_dr_smp)
 * and, once the wire exists, from QP0 (mad.c:ib_mad_recv_done). It may be
 * called under the MAD layer's locks, so it never sleeps. M_Key is stored,
 * not enforced: OpenSM uses 0.
 */
#include <rdma/ib_mad.h>

#include "softib.h"

/* PortInfo:RespTimeValue: 4.096 us * 2^8, about 1 ms. */
#define SOFTIB_SMA_RESP_TIME		8
/* PortInfo:VLArbHighCap and VLArbLowCap: table entries. */
#define SOFTIB_SMA_VLARB_CAP		8
/* PortInfo:ClientReregister, the top bit of its byte. */
#define SOFTIB_SMA_CLIENT_REREG		0x80

struct softib_sma_req {
	struct softib_hca *hca;
	u32 port_num;		/* the port the SMP came in on */
	bool set;
	u32 attr_mod;
	const u8 *in;		/* the SMP's data (a Set's values) */
	u8 *out;		/* the GetResp's data, zeroed */
};

static struct softib_hca_port *softib_sma_hport(struct softib_sma_req *r,
						u32 port_num)
{
	return &r->hca->hports[port_num - 1];
}

static u16 softib_sma_node_desc(struct softib_sma_req *r)
{
	if (r->set)
		return SOFTIB_SMP_BAD_ATTR;
	if (r->attr_mod)
		return SOFTIB_SMP_BAD_FIELD;
	memcpy(r->out, r->hca->rdi.ibdev.node_desc, IB_DEVICE_NODE_DESC_MAX);
	return 0;
}

/* NodeInfo (IBA 14.2.5.3), for HCAs and the switch alike. */
void softib_sma_node_info_fill(struct ib_node_info *ni,
			       const struct softib_node *node,
			       __be64 port_guid, u8 local_port)
{
	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = SOFTIB_SMP_CLASS_VERSION;
	ni->node_type = node->type;
	ni->num_ports = node->nports;
	ni->sys_guid = node->sys_guid;
	ni->node_guid = node->node_guid;
	ni->port_guid = port_guid;
	ni->partition_cap = cpu_to_be16(SOFTIB_NPKEYS);
	ni->device_id = cpu_to_be16(SOFTIB_DEVICE_ID);
	/* OpenSM learns the ingress port from this (ni_rcv_set_links). */
	ni->local_port_num = local_port;
	ni->vendor_id[0] = (SOFTIB_VENDOR_ID >> 16) & 0xff;
	ni->vendor_id[1] = (SOFTIB_VENDOR_ID >> 8) & 0xff;
	ni->vendor_id[2] = SOFTIB_VENDOR_ID & 0xff;
}

static u16 softib_sma_node_info(struct softib_sma_req *r)
{
	if (r->set)
		return SOFTIB_SMP_BAD_ATTR;
	if (r->attr_mod)
		return SOFTIB_SMP_BAD_FIELD;
	softib_sma_node_info_fill((struct ib_node_info *)r->out, &r->hca->node,
				  READ_ONCE(softib_sma_hport(r, r->port_num)->guids[0]),
				  r->port_num);
	return 0;
}

static void softib_sma_port_info_get(struct softib_sma_req *r, u32 port_num,
				     bool rereg)
{
	struct softib_hca_port *hp = softib_sma_hport(r, port_num);
	struct ib_port_info *pi = (struct ib_port_info *)r->out;
	struct softib_port *port = hp->port;
	struct rvt_ibport *rvp = &hp->rvp;

	pi->mkey = rvp->mkey;
	pi->gid_prefix = rvp->gid_prefix;
	pi->lid = cpu_to_be16(READ_ONCE(port->lid));
	pi->sm_lid = cpu_to_be16(rvp->sm_lid);
	pi->cap_mask = cpu_to_be32(rvp->port_cap_flags);
	pi->mkey_lease_period = cpu_to_be16(rvp->mkey_lease_period);
	pi->local_port_num = r->port_num;
	pi->link_width_enabled = port->link_width_enabled;
	pi->link_width_supported = SOFTIB_LINK_WIDTHS;
	pi->link_width_active = IB_WIDTH_4X;
	pi->linkspeed_portstate = SOFTIB_LINK_SPEEDS << 4 |
				  READ_ONCE(port->state);
	pi->portphysstate_linkdown = READ_ONCE(port->phys_state) << 4 |
				     port->link_down_default;
	pi->mkeyprot_resv_lmc = rvp->mkeyprot << 6 | READ_ONCE(port->lmc);
	pi->linkspeedactive_enabled = IB_SPEED_QDR << 4 |
				      port->link_speed_enabled;
	pi->neighbormtu_mastersmsl = READ_ONCE(port->neighbor_mtu) << 4 |
				     rvp->sm_sl;
	pi->vlcap_inittype = SOFTIB_DATA_VLS << 4;
	pi->vl_high_limit = rvp->vl_high_limit;
	pi->vl_arb_high_cap = SOFTIB_SMA_VLARB_CAP;
	pi->vl_arb_low_cap = SOFTIB_SMA_VLARB_CAP;
	pi->inittypereply_mtucap = IB_MTU_4096;
	pi->vlstallcnt_hoqlife = port->vl_stall_hoq;
	pi->operationalvl_pei_peo_fpi_fpo = READ_ONCE(port->op_vls) << 4;
	pi->mkey_violations = cpu_to_be16(rvp->mkey_violations);
	pi->pkey_violations = cpu_to_be16(rvp->pkey_violations);
	pi->qkey_violations = cpu_to_be16(rvp->qkey_violations);
	pi->guid_cap = SOFTIB_GUIDS;
	/* ClientReregister reads as 0; a Set's reply echoes it. */
	pi->clientrereg_resv_subnetto = (rereg ? SOFTIB_SMA_CLIENT_REREG : 0) |
					rvp->subnet_timeout;
	pi->resv_resptimevalue = SOFTIB_SMA_RESP_TIME;
	pi->localphyerrors_overrunerrors = port->error_thresholds;
}

/* 0 keeps, all ones selects everything supported, else a subset. */
static bool softib_sma_enable_ok(u8 val, u8 all, u8 supported)
{
	return !val || val == all || !(val & ~supported);
}

static u8 softib_sma_enable(u8 val, u8 all, u8 supported, u8 old)
{
	if (!val)
		return old;
	return val == all ? supported : val;
}

/* Every field is checked before any is applied. */
bool softib_sma_port_info_ok(const struct ib_port_info *pi,
			     struct softib_port *port)
{
	u8 state = pi->linkspeed_portstate & 0xf;
	u8 phys = pi->portphysstate_linkdown >> 4;
	u8 ldd = pi->portphysstate_linkdown & 0xf;
	u8 mtu = pi->neighbormtu_mastersmsl >> 4;
	u8 opvls = pi->operationalvl_pei_peo_fpi_fpo >> 4;
	u8 old = READ_ONCE(port->state);

	if (be16_to_cpu(pi->lid) >= be16_to_cpu(IB_MULTICAST_LID_BASE) ||
	    be16_to_cpu(pi->sm_lid) >= be16_to_cpu(IB_MULTICAST_LID_BASE))
		return false;
	if (!softib_sma_enable_ok(pi->link_width_enabled, 0xff,
				  SOFTIB_LINK_WIDTHS) ||
	    !softib_sma_enable_ok(pi->linkspeedactive_enabled & 0xf, 0xf,
				  SOFTIB_LINK_SPEEDS))
		return false;
	/* PortState: no change, Down, or the next step of INIT -> ACTIVE. */
	switch (state) {
	case IB_PORT_NOP:
	case IB_PORT_DOWN:
		break;
	case IB_PORT_ARMED:
		if (old != IB_PORT_INIT && old != IB_PORT_ARMED)
			return false;
		break;
	case IB_PORT_ACTIVE:
		if (old != IB_PORT_ARMED && old != IB_PORT_ACTIVE)
			return false;
		break;
	default:
		return false;
	}
	if (phys && phys != IB_PORT_PHYS_STATE_POLLING &&
	    phys != IB_PORT_PHYS_STATE_DISABLED)
		return false;
	if (ldd && ldd != IB_PORT_PHYS_STATE_SLEEP &&
	    ldd != IB_PORT_PHYS_STATE_POLLING)
		return false;
	if (mtu < IB_MTU_256 || mtu > IB_MTU_4096)
		return false;
	return opvls <= SOFTIB_DATA_VLS;
}

/* Apply a valid PortInfo; the link state last, events after the values. */
static void softib_sma_port_info_apply(struct softib_sma_req *r, u32 port_num,
				       const struct ib_port_info *pi)
{
	struct softib_hca_port *hp = softib_sma_hport(r, port_num);
	u8 state = pi->linkspeed_portstate & 0xf;
	u8 phys = pi->portphysstate_linkdown >> 4;
	u8 opvls = pi->operationalvl_pei_peo_fpi_fpo >> 4;
	u8 ldd = pi->portphysstate_linkdown & 0xf;
	u16 sm_lid = be16_to_cpu(pi->sm_lid);
	u8 sm_sl = pi->neighbormtu_mastersmsl & 0xf;
	struct softib_port *port = hp->port;
	struct rvt_ibport *rvp = &hp->rvp;
	bool lid_changed, sm_changed;
	unsigned long flags;

	spin_lock_irqsave(&rvp->lock, flags);
	rvp->mkey = pi->mkey;
	rvp->mkey_lease_period = be16_to_cpu(pi->mkey_lease_period);
	rvp->mkeyprot = pi->mkeyprot_resv_lmc >> 6;
	rvp->gid_prefix = pi->gid_prefix;
	sm_changed = rvp->sm_lid != sm_lid || rvp->sm_sl != sm_sl;
	rvp->sm_lid = sm_lid;
	rvp->sm_sl = sm_sl;
	rvp->vl_high_limit = pi->vl_high_limit;
	rvp->subnet_timeout = pi->clientrereg_resv_subnetto & 0x1f;
	/* A counter written as 0 is cleared; any other value is kept. */
	if (!pi->mkey_violations)
		rvp->mkey_violations = 0;
	if (!pi->pkey_violations)
		rvp->pkey_violations = 0;
	if (!pi->qkey_violations)
		rvp->qkey_violations = 0;
	spin_unlock_irqrestore(&rvp->lock, flags);

	spin_lock_irqsave(&port->lock, flags);
	lid_changed = port->lid != be16_to_cpu(pi->lid) ||
		      port->lmc != (pi->mkeyprot_resv_lmc & 7);
	port->lid = be16_to_cpu(pi->lid);
	port->lmc = pi->mkeyprot_resv_lmc & 7;
	port->link_width_enabled =
		softib_sma_enable(pi->link_width_enabled, 0xff,
				  SOFTIB_LINK_WIDTHS, port->link_width_enabled);
	port->link_speed_enabled =
		softib_sma_enable(pi->linkspeedactive_enabled & 0xf, 0xf,
				  SOFTIB_LINK_SPEEDS, port->link_speed_enabled);
	if (ldd)
		port->link_down_default = ldd;
	port->neighbor_mtu = pi->neighbormtu_mastersmsl >> 4;
	if (opvls)
		port->op_vls = opvls;
	port->vl_stall_hoq = pi->vlstallcnt_hoqlife;
	port->error_thresholds = pi->localphyerrors_overrunerrors;
	spin_unlock_irqrestore(&port->lock, flags);

	if (lid_changed)
		softib_hca_event(r->hca, port_num, IB_EVENT_LID_CHANGE);
	if (sm_changed)
		softib_hca_event(r->hca, port_num, IB_EVENT_SM_CHANGE);
	if (pi->clientrereg_resv_subnetto & SOFTIB_SMA_CLIENT_REREG)
		softib_hca_event(r->hca, port_num, IB_EVENT_CLIENT_REREGISTER);

	if (phys == IB_PORT_PHYS_STATE_DISABLED)
		softib_fabric_port_disable(port);
	else if (phys == IB_PORT_PHYS_STATE_POLLING || state == IB_PORT_DOWN)
		softib_fabric_port_bounce(port);
	else if (state == IB_PORT_ARMED || state == IB_PORT_ACTIVE)
		softib_fabric_port_set_state(port, state);
}

/* Modifier: the port; 0 is the one the SMP came in on. */
static u16 softib_sma_port_info(struct softib_sma_req *r)
{
	const struct ib_port_info *pi = (const struct ib_port_info *)r->in;
	u32 port_num = r->attr_mod ? r->attr_mod : r->port_num;
	u16 status = 0;

	if (port_num > r->hca->node.nports)
		return SOFTIB_SMP_BAD_FIELD;
	if (r->set) {
		if (softib_sma_port_info_ok(pi,
					    softib_sma_hport(r, port_num)->port))
			softib_sma_port_info_apply(r, port_num, pi);
		else
			status = SOFTIB_SMP_BAD_FIELD;
	}
	softib_sma_port_info_get(r, port_num,
				 r->set && !status &&
				 (pi->clientrereg_resv_subnetto &
				  SOFTIB_SMA_CLIENT_REREG));
	return status;
}

/* One block of 32 at the receiving port (IBA 14.2.5.7). */
static u16 softib_sma_pkey_table(struct softib_sma_req *r)
{
	struct softib_hca_port *hp = softib_sma_hport(r, r->port_num);
	const __be16 *in = (const __be16 *)r->in;
	__be16 *out = (__be16 *)r->out;
	bool changed = false;
	u16 pkey;
	int i;

	if ((r->attr_mod & 0xffff) != 0)
		return SOFTIB_SMP_BAD_FIELD;
	for (i = 0; i < SOFTIB_NPKEYS; i++) {
		pkey = be16_to_cpu(in[i]);
		if (r->set && hp->pkeys[i] != pkey) {
			/* rdmavt reads the table without locks. */
			WRITE_ONCE(hp->pkeys[i], pkey);
			changed = true;
		}
		out[i] = cpu_to_be16(READ_ONCE(hp->pkeys[i]));
	}
	if (changed)
		softib_hca_event(r->hca, r->port_num, IB_EVENT_PKEY_CHANGE);
	return 0;
}

/* One block of 8; entry 0, the port GUID, is read-only (IBA 14.2.5.5). */
static u16 softib_sma_guid_info(struct softib_sma_req *r)
{
	struct softib_hca_port *hp = softib_sma_hport(r, r->port_num);
	const __be64 *in = (const __be64 *)r->in;
	__be64 *out = (__be64 *)r->out;
	bool changed = false;
	int i;

	if (r->attr_mod)
		return SOFTIB_SMP_BAD_FIELD;
	for (i = 0; i < SOFTIB_GUIDS; i++) {
		if (r->set && i && hp->guids[i] != in[i]) {
			WRITE_ONCE(hp->guids[i], in[i]);
			changed = true;
		}
		out[i] = READ_ONCE(hp->guids[i]);
	}
	if (changed)
		softib_hca_event(r->hca, r->port_num, IB_EVENT_GID_CHANGE);
	return 0;
}

/* Stored as written; with VLCap 1 every SL uses VL0 anyway. */
static u16 softib_sma_sl_to_vl(struct softib_sma_req *r)
{
	struct softib_hca_port *hp = softib_sma_hport(r, r->port_num);

	if (r->attr_mod)
		return SOFTIB_SMP_BAD_FIELD;
	if (r->set)
		memcpy(hp->sl2vl, r->in, sizeof(hp->sl2vl));
	memcpy(r->out, hp->sl2vl, sizeof(hp->sl2vl));
	return 0;
}

/* Modifier bits 31-16: block 1..4 (low 0-31, low 32-63, high 0-31, 32-63). */
static u16 softib_sma_vl_arb(struct softib_sma_req *r)
{
	struct softib_hca_port *hp = softib_sma_hport(r, r->port_num);
	u32 block = r->attr_mod >> 16;

	if (block < 1 || block > SOFTIB_VLARB_BLOCKS || (r->attr_mod & 0xffff))
		return SOFTIB_SMP_BAD_FIELD;
	if (r->set)
		memcpy(hp->vlarb[block - 1], r->in, IB_SMP_DATA_SIZE);
	memcpy(r->out, hp->vlarb[block - 1], IB_SMP_DATA_SIZE);
	return 0;
}

static u16 softib_sma_attr(struct softib_sma_req *r, __be16 attr_id)
{
	switch (attr_id) {
	case IB_SMP_ATTR_NODE_DESC:
		return softib_sma_node_desc(r);
	case IB_SMP_ATTR_NODE_INFO:
		return softib_sma_node_info(r);
	case IB_SMP_ATTR_PORT_INFO:
		return softib_sma_port_info(r);
	case IB_SMP_ATTR_PKEY_TABLE:
		return softib_sma_pkey_table(r);
	case IB_SMP_ATTR_GUID_INFO:
		return softib_sma_guid_info(r);
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		return softib_sma_sl_to_vl(r);
	case IB_SMP_ATTR_VL_ARB_TABLE:
		return softib_sma_vl_arb(r);
	default:
		return SOFTIB_SMP_BAD_ATTR;
	}
}

/*
 * What an SMA of either kind (an HCA port's, the switch's) answers before
 * looking at the attribute: a bad base or class version, or a method
 * other than Get and Set; 0 when the attribute decides.
 */
u16 softib_smp_check(const struct ib_smp *smp)
{
	if (smp->base_version != IB_MGMT_BASE_VERSION ||
	    smp->class_version != SOFTIB_SMP_CLASS_VERSION)
		return IB_MGMT_MAD_STATUS_BAD_VERSION;
	if (smp->method != IB_MGMT_METHOD_GET &&
	    smp->method != IB_MGMT_METHOD_SET)
		return SOFTIB_SMP_BAD_METHOD;
	return 0;
}

int softib_sma_process_mad(struct ib_device *ibdev, int mad_flags,
			   u32 port_num, const struct ib_wc *in_wc,
			   const struct ib_grh *in_grh,
			   const struct ib_mad *in, struct ib_mad *out,
			   size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	const struct ib_smp *in_smp = (const struct ib_smp *)in;
	struct softib_hca *hca = softib_hca_from_ibdev(ibdev);
	struct ib_smp *smp = (struct ib_smp *)out;
	struct softib_sma_req req = {
		.hca = hca,
		.port_num = port_num,
		.set = in_smp->method == IB_MGMT_METHOD_SET,
		.attr_mod = be32_to_cpu(in_smp->attr_mod),
		.in = in_smp->data,
		.out = smp->data,
	};
	u16 status;

	if (in_smp->mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED &&
	    in_smp->mgmt_class != IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		return IB_MAD_RESULT_SUCCESS;
	switch (in_smp->method) {
	case IB_MGMT_METHOD_GET:
	case IB_MGMT_METHOD_SET:
		break;
	case IB_MGMT_METHOD_TRAP_REPRESS:
		/* An HCA's SMA sends no traps (only the switch, switch.c). */
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	case IB_MGMT_METHOD_GET_RESP:
	case IB_MGMT_METHOD_TRAP:
	case IB_MGMT_METHOD_REPORT:
	case IB_MGMT_METHOD_REPORT_RESP:
		return IB_MAD_RESULT_SUCCESS;	/* for the SM's agent */
	default:
		break;
	}
	/* SMInfo is the SM's to answer, where one runs; else nobody does. */
	if (in_smp->attr_id == IB_SMP_ATTR_SM_INFO) {
		if (READ_ONCE(hca->hports[port_num - 1].rvp.port_cap_flags) &
		    IB_PORT_SM)
			return IB_MAD_RESULT_SUCCESS;
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	}

	*smp = *in_smp;
	memset(smp->data, 0, sizeof(smp->data));
	status = softib_smp_check(in_smp) ?:
		 softib_sma_attr(&req, in_smp->attr_id);
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status = cpu_to_be16(status);
	/* The reply travels back along the directed route (IBA 14.2.2). */
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		smp->status |= IB_SMP_DIRECTION;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
