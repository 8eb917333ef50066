// SPDX-License-Identifier: GPL-2.0
/*
 * An HCA: one ib_device on rdmavt per host, link layer InfiniBand, bound
 * by Debian's libipathverbs through RDMA_DRIVER_QIB (design: "Registering
 * an HCA"). Its ports are fabric ports: their state is the fabric's.
 */
#include <linux/log2.h>
#include <rdma/ib_mad.h>

#include "softib.h"

/* The link-local subnet prefix, until the SM sets PortInfo:GIDPrefix. */
#define SOFTIB_GID_PREFIX	0xfe80000000000000ULL

static struct softib_hca_port *softib_hca_port(struct rvt_dev_info *rdi,
					       u32 port_num)
{
	return &softib_hca_from_rdi(rdi)->hports[port_num - 1];
}

static struct pci_dev *softib_hca_get_pci_dev(struct rvt_dev_info *rdi)
{
	return &softib_hca_from_rdi(rdi)->fabric->pdev;
}

/* The fields rdmavt's query_port leaves to the driver (vt.c:rvt_query_port). */
static int softib_hca_query_port_state(struct rvt_dev_info *rdi, u32 port_num,
				       struct ib_port_attr *props)
{
	struct softib_port *port = softib_hca_port(rdi, port_num)->port;

	props->state = READ_ONCE(port->state);
	props->phys_state = READ_ONCE(port->phys_state);
	props->lid = READ_ONCE(port->lid);
	props->lmc = READ_ONCE(port->lmc);
	props->gid_tbl_len = SOFTIB_GUIDS;
	/* 4X QDR: 40 Gb/s, what ibstat and the SA's rate say. */
	props->active_width = IB_WIDTH_4X;
	props->active_speed = IB_SPEED_QDR;
	props->max_vl_num = SOFTIB_DATA_VLS;	/* VLCap encoding: 1 = VL0 */
	props->max_mtu = IB_MTU_4096;
	props->active_mtu = READ_ONCE(port->neighbor_mtu);
	return 0;
}

static int softib_hca_get_guid_be(struct rvt_dev_info *rdi,
				  struct rvt_ibport *rvp, int guid_index,
				  __be64 *guid)
{
	struct softib_hca_port *hp = container_of(rvp, struct softib_hca_port,
						  rvp);

	if (guid_index < 0 || guid_index >= SOFTIB_GUIDS)
		return -EINVAL;
	*guid = READ_ONCE(hp->guids[guid_index]);
	return 0;
}

/* ib_modify_port(IB_PORT_SHUTDOWN): the port goes Disabled, as a cable pull. */
static int softib_hca_shut_down_port(struct rvt_dev_info *rdi, u32 port_num)
{
	softib_fabric_port_disable(softib_hca_port(rdi, port_num)->port);
	return 0;
}

/*
 * IsSM or IsCM changed (vt.c:rvt_modify_port). Trap 144 goes to the SM
 * once a port has one (build plan step 4); until then nobody listens.
 */
static void softib_hca_cap_mask_chg(struct rvt_dev_info *rdi, u32 port_num)
{
}

/*
 * SL 0..15; a multicast DLID needs a GRH, the permissive LID excepted.
 * DLID 0 is accepted: MasterSMLID is 0 until an SM sets it, and ib_sa
 * makes its SM AH at once (sa_query.c:update_sm_ah) and would warn. No
 * port has LID 0, so the fabric drops what is sent there.
 */
static int softib_hca_check_ah(struct ib_device *ibdev,
			       struct rdma_ah_attr *ah_attr)
{
	u16 dlid = rdma_ah_get_dlid(ah_attr);

	if (rdma_ah_get_sl(ah_attr) > 15)
		return -EINVAL;
	if (dlid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	    dlid != be16_to_cpu(IB_LID_PERMISSIVE) &&
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return -EINVAL;
	return 0;
}

/* Every SL maps to VL0; a UD message fits the port's active MTU. */
static void softib_hca_notify_new_ah(struct ib_device *ibdev,
				     struct rdma_ah_attr *ah_attr,
				     struct rvt_ah *ah)
{
	struct softib_hca_port *hp =
		softib_hca_port(ib_to_rvt(ibdev), rdma_ah_get_port_num(ah_attr));

	ah->vl = 0;
	ah->log_pmtu = ilog2(ib_mtu_enum_to_int(READ_ONCE(hp->port->neighbor_mtu)));
}

/* Only the node description may change (sysfs node_desc). */
static int softib_hca_modify_device(struct ib_device *ibdev, int mask,
				    struct ib_device_modify *props)
{
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ibdev->node_desc, props->node_desc,
		       IB_DEVICE_NODE_DESC_MAX);
	return 0;
}

/* Set before rvt_register_device(): the first setter of an op wins. */
static const struct ib_device_ops softib_hca_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_QIB,	/* libipathverbs binds it */
	.port_groups = softib_sysfs_port_groups,
	.modify_device = softib_hca_modify_device,
	.process_mad = softib_sma_process_mad,
};

/* The limits rdmavt enforces (qp.c:rvt_create_qp, cq.c, ah.c, mcast.c). */
static void softib_hca_set_props(struct softib_hca *hca)
{
	struct ib_device_attr *props = &hca->rdi.dparms.props;

	props->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
				  IB_DEVICE_BAD_QKEY_CNTR |
				  IB_DEVICE_SHUTDOWN_PORT |
				  IB_DEVICE_SYS_IMAGE_GUID |
				  IB_DEVICE_PORT_ACTIVE_EVENT |
				  IB_DEVICE_RC_RNR_NAK_GEN;
	props->vendor_id = SOFTIB_VENDOR_ID;
	props->vendor_part_id = SOFTIB_DEVICE_ID;
	props->sys_image_guid = hca->node.sys_guid;
	props->page_size_cap = PAGE_SIZE;
	props->max_mr_size = ~0ULL;
	props->max_qp = 1024;
	props->max_qp_wr = 16383;
	/* ipoib_ng's TX uses MAX_SKB_FRAGS + 1 SGEs. */
	props->max_send_sge = 32;
	props->max_recv_sge = 32;
	props->max_sge_rd = 32;
	props->max_cq = 1024;
	props->max_cqe = 131071;
	props->max_pd = 1024;
	props->max_ah = 65535;
	props->max_srq = 1024;
	props->max_srq_wr = 16383;
	props->max_srq_sge = 32;
	/* RDMA READ's depth (rvt_modify_qp checks it); no atomics. */
	props->atomic_cap = IB_ATOMIC_NONE;
	props->max_qp_rd_atom = SOFTIB_MAX_RD_ATOMIC;
	props->max_qp_init_rd_atom = SOFTIB_MAX_RD_ATOMIC;
	props->max_pkeys = SOFTIB_NPKEYS;
	props->max_mcast_grp = 8192;
	props->max_mcast_qp_attach = 32;
	props->max_total_mcast_qp_attach = props->max_mcast_grp *
					   props->max_mcast_qp_attach;
}

static void softib_hca_set_params(struct softib_hca *hca)
{
	struct rvt_driver_params *dp = &hca->rdi.dparms;

	softib_hca_set_props(hca);
	dp->lkey_table_size = SOFTIB_LKEY_TABLE_BITS;
	dp->qp_table_size = SOFTIB_QP_TABLE_SIZE;
	dp->sge_copy_mode = RVT_SGE_COPY_MEMCPY;
	/*
	 * QPNs 2, 4, 6, ... (qp.c:alloc_qpn; 0 and 1 are per port). rdmavt
	 * wants a reserved range: QPN 0, which its bitmap never hands out.
	 */
	dp->qpn_start = 1;
	dp->qpn_inc = 1;
	dp->qos_shift = 1;
	dp->qpn_res_start = 0;
	dp->qpn_res_end = 0;
	dp->nports = hca->node.nports;
	dp->npkeys = SOFTIB_NPKEYS;
	/* cq.c:rvt_create_cq indexes cpumask_of_node(): not NUMA_NO_NODE. */
	dp->node = 0;
	dp->psn_mask = SOFTIB_PSN_MASK;
	dp->psn_shift = SOFTIB_PSN_SHIFT;
	dp->psn_modify_mask = SOFTIB_PSN_MASK;
	dp->core_cap_flags = RDMA_CORE_PORT_IBA_IB;	/* link layer InfiniBand */
	dp->max_mad_size = IB_MGMT_MAD_SIZE;
	dp->max_rdma_atomic = SOFTIB_MAX_RD_ATOMIC;

	hca->rdi.post_parms = softib_qp_post_parms;
	hca->rdi.wc_opcode = softib_qp_wc_opcode;

	hca->rdi.driver_f.get_pci_dev = softib_hca_get_pci_dev;
	hca->rdi.driver_f.query_port_state = softib_hca_query_port_state;
	hca->rdi.driver_f.get_guid_be = softib_hca_get_guid_be;
	hca->rdi.driver_f.shut_down_port = softib_hca_shut_down_port;
	hca->rdi.driver_f.cap_mask_chg = softib_hca_cap_mask_chg;
	hca->rdi.driver_f.check_ah = softib_hca_check_ah;
	hca->rdi.driver_f.notify_new_ah = softib_hca_notify_new_ah;
	softib_qp_set_callbacks(&hca->rdi.driver_f);
}

static void softib_hca_port_init(struct softib_hca *hca, int idx)
{
	struct softib_hca_port *hp = &hca->hports[idx];
	struct rvt_ibport *rvp = &hp->rvp;

	hp->port = &hca->node.ports[idx + 1];
	softib_qp_sa_held_init(hp);
	hp->pkeys[0] = IB_DEFAULT_PKEY_FULL;
	hp->guids[0] = cpu_to_be64(be64_to_cpu(hca->node.node_guid) + idx + 1);

	spin_lock_init(&rvp->lock);
	rvp->gid_prefix = cpu_to_be64(SOFTIB_GID_PREFIX);
	/*
	 * Without IsClientReregistrationSupported OpenSM never sets the
	 * reregister bit (osm_lid_mgr.c:lid_mgr_set_physp_pi).
	 */
	rvp->port_cap_flags = IB_PORT_TRAP_SUP | IB_PORT_SYS_IMAGE_GUID_SUP |
			      IB_PORT_CAP_MASK_NOTICE_SUP |
			      IB_PORT_CLIENT_REG_SUP;
	rvt_init_port(&hca->rdi, rvp, idx, hp->pkeys);
}

/* HCA @index, its ports cabled to the switch, ready to register. */
struct softib_hca *softib_hca_create(struct softib_fabric *fabric, int index)
{
	int nports = fabric->ports_per_hca;
	struct rvt_dev_info *rdi;
	struct softib_port *sw;
	struct softib_hca *hca;
	int i, ret;

	rdi = rvt_alloc_device(sizeof(*hca), nports);
	if (!rdi)
		return ERR_PTR(-ENOMEM);
	hca = softib_hca_from_rdi(rdi);
	hca->fabric = fabric;
	ret = softib_fabric_node_init(fabric, &hca->node, SOFTIB_NODE_CA, index,
				      nports);
	if (ret) {
		rvt_dealloc_device(rdi);
		return ERR_PTR(ret);
	}
	rvt_set_ibdev_name(rdi, "%s%d", "softib", index);
	rdi->ibdev.node_guid = hca->node.node_guid;
	rdi->ibdev.phys_port_cnt = nports;
	rdi->ibdev.dev.parent = fabric->root;
	snprintf(rdi->ibdev.node_desc, sizeof(rdi->ibdev.node_desc),
		 "softib%d HCA-1", index);
	softib_hca_set_params(hca);
	for (i = 0; i < nports; i++) {
		softib_hca_port_init(hca, i);
		sw = softib_fabric_switch_port(fabric, index, i + 1);
		if (sw)
			softib_fabric_cable(hca->hports[i].port, sw);
	}
	ib_set_device_ops(&rdi->ibdev, &softib_hca_ops);
	return hca;
}

/*
 * Registration creates QP0 and QP1 through softib (mad.c:ib_mad_port_open),
 * so the fabric and cables come first.
 */
int softib_hca_register(struct softib_hca *hca)
{
	int ret = rvt_register_device(&hca->rdi);

	if (!ret)
		WRITE_ONCE(hca->registered, true);
	return ret;
}

/*
 * Destroys every QP left (ULPs' and users'), waiting for each. Events
 * dispatched before are flushed by ib_core; none is dispatched after.
 */
void softib_hca_unregister(struct softib_hca *hca)
{
	WRITE_ONCE(hca->registered, false);
	/* No packet is still on its way into the QP table (wire.c). */
	synchronize_rcu();
	rvt_unregister_device(&hca->rdi);
}

/* An asynchronous event to ib_core's clients (cache, ib_sa, IPoIB). */
void softib_hca_event(struct softib_hca *hca, u32 port_num,
		      enum ib_event_type type)
{
	struct ib_event event = {
		.device = &hca->rdi.ibdev,
		.element.port_num = port_num,
		.event = type,
	};

	/* ib_dispatch_event() only queues work: any context. */
	if (READ_ONCE(hca->registered))
		ib_dispatch_event(&event);
}

/* PORT_ACTIVE entering ACTIVE, PORT_ERR leaving it (design: "Port states"). */
void softib_hca_port_changed(struct softib_port *port, u8 old_state)
{
	struct softib_hca *hca = container_of(port->node, struct softib_hca,
					      node);
	bool active = READ_ONCE(port->state) == IB_PORT_ACTIVE;

	if (active && old_state != IB_PORT_ACTIVE)
		softib_hca_event(hca, port->num, IB_EVENT_PORT_ACTIVE);
	else if (!active && old_state == IB_PORT_ACTIVE)
		softib_hca_event(hca, port->num, IB_EVENT_PORT_ERR);
}

void softib_hca_destroy(struct softib_hca *hca)
{
	struct softib_port *port;
	int i;

	for (i = 0; i < hca->node.nports; i++) {
		port = hca->hports[i].port;
		softib_qp_sa_held_flush(&hca->hports[i]);
		softib_fabric_port_cancel(port);
		if (port->peer)
			softib_fabric_port_cancel(port->peer);
		softib_fabric_uncable(port);
	}
	/* Another HCA's send work may still be crossing a pulled cable. */
	synchronize_rcu();
	softib_fabric_node_uninit(&hca->node);
	rvt_dealloc_device(&hca->rdi);
}
