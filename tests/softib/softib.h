/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softib: a simulated InfiniBand fabric for ipoib-ng's tests
 * (Documentation/softib-design.rst). Test-only: never part of ipoib_ng.ko,
 * the package or DKMS. One private header; a section per file.
 */
#ifndef SOFTIB_H
#define SOFTIB_H

#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

/* Module parameter bounds: a small fabric is all the VM tests need. */
#define SOFTIB_MAX_HCAS			16
#define SOFTIB_MAX_PORTS_PER_HCA	2
/* NumPorts is 8 bits (IBA 14.2.5.3); 36 ports is a common switch ASIC. */
#define SOFTIB_MAX_SWITCH_PORTS		36
/* PartitionCap: one PKeyTable block of 32 entries (IBA 14.2.5.7). */
#define SOFTIB_NPKEYS			32
/* SA requests a port holds at most for sa_delay_ms; past it, lost. */
#define SOFTIB_SA_HELD_MAX		256
/* sa_delay_ms at most: longer than any requester waits for an answer. */
#define SOFTIB_SA_DELAY_MAX_MS		30000
/* GUIDCap: one GUIDInfo block of 8 GUIDs (IBA 14.2.5.5). */
#define SOFTIB_GUIDS			8
/* VLCap 1: data on VL0, SMPs on VL15 (design: "The packet"). */
#define SOFTIB_DATA_VLS			1
/* PortInfo: LinkWidthSupported 1X|4X, LinkSpeedSupported SDR|DDR|QDR. */
#define SOFTIB_LINK_WIDTHS		(1 | 2)
#define SOFTIB_LINK_SPEEDS		(1 | 2 | 4)
/* VLArbitrationTable: low and high priority, two blocks of 32 each. */
#define SOFTIB_VLARB_BLOCKS		4
/* A link set down (PortState Down, PhysState Polling) trains up again. */
#define SOFTIB_RETRAIN_MS		50

/*
 * An SMA's answers (HCA ports' sma.c, the switch's switch.c), from
 * <rdma/ib_mad.h>. SMP class version (IBA 14.2.1.1).
 */
#define SOFTIB_SMP_CLASS_VERSION	1
/* Get and Set only: GetResp, Trap, Report and the rest pass through. */
#define SOFTIB_SMP_BAD_METHOD	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD
/* Unknown attribute, or Set of a read-only one (0x000C). */
#define SOFTIB_SMP_BAD_ATTR	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB
/* A field or the modifier is invalid (0x001C): nothing is applied. */
#define SOFTIB_SMP_BAD_FIELD	IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE
/* rdmavt tables: 2^16 lkeys, a 256-bucket QPN hash. */
#define SOFTIB_LKEY_TABLE_BITS		16
#define SOFTIB_QP_TABLE_SIZE		256
/* 24-bit PSNs (BTH, IBA 9.2), kept in the top bits as rdmavt expects. */
#define SOFTIB_PSN_MASK			0xffffff
#define SOFTIB_PSN_SHIFT		8
/* Outside the Mellanox IDs for which OpenSM asks ExtendedPortInfo. */
#define SOFTIB_VENDOR_ID		0x000000
#define SOFTIB_DEVICE_ID		0x5f1b
/* SwitchInfo:LinearFDBCap and MulticastFDBCap (design: "The attributes"). */
#define SOFTIB_LFT_CAP			49152
#define SOFTIB_MFT_CAP			1024
/* The permissive LID (IBA 7.11.1), host order. */
#define SOFTIB_LID_PERMISSIVE		0xffff
/* The VL of subnet management packets (IBA 7.6.5). */
#define SOFTIB_VL15			15
/* RDMA READs outstanding per RC QP, both ways (ib_ipoib asks 4). */
#define SOFTIB_MAX_RD_ATOMIC		16
/* The largest UD payload: a 4096-byte MTU (IBA 9.7.7). */
#define SOFTIB_MAX_PAYLOAD		4096

/* NodeInfo:NodeType (IBA 14.2.5.3). */
enum softib_node_type {
	SOFTIB_NODE_CA = 1,
	SOFTIB_NODE_SWITCH = 2,
};

struct softib_fabric;
struct softib_node;

/*
 * One end of a cable. The link fields are written under @lock and read
 * with READ_ONCE() on paths that do not take it.
 */
struct softib_port {
	struct softib_node *node;
	/* The cable's far end, NULL: none. Set before registration. */
	struct softib_port *peer;
	u8 num;				/* port number within the node */
	spinlock_t lock;
	u8 state;			/* enum ib_port_state: PortState */
	u8 phys_state;			/* enum ib_port_phys_state */
	u16 lid;
	u8 lmc;
	u8 neighbor_mtu;		/* enum ib_mtu: NeighborMTU */
	u8 op_vls;			/* OperationalVLs */
	/* PortInfo fields the SMA stores (IBA 14.2.5.6). */
	u8 link_down_default;		/* LinkDownDefaultState */
	u8 link_width_enabled;
	u8 link_speed_enabled;
	u8 vl_stall_hoq;		/* VLStallCount << 5 | HOQLife */
	u8 error_thresholds;		/* LocalPhyErrors << 4 | Overrun */
	/* Brings a bounced link back up (softib_fabric_port_bounce). */
	struct delayed_work retrain;
};

/* A CA or switch of the subnet: what NodeInfo and NodeDescription say. */
struct softib_node {
	struct softib_fabric *fabric;
	enum softib_node_type type;
	__be64 node_guid;
	__be64 sys_guid;
	char name[IB_DEVICE_NAME_MAX];	/* softib1, sw0: for messages */
	u8 nports;			/* external ports */
	/* Indexed by port number: a switch's port 0 is its SMA, a CA's unused. */
	struct softib_port *ports;
};

/*
 * The SA requests a port sends (QP1, class SubnAdm, no response bit), by
 * what they ask; read in ports/P/softib/sa_* to compare ULPs' SA load.
 */
enum softib_sa_count {
	SOFTIB_SA_REQUESTS,		/* every one */
	SOFTIB_SA_JOINS,		/* Set of MCMemberRecord */
	SOFTIB_SA_LEAVES,		/* Delete of MCMemberRecord */
	SOFTIB_SA_PATHS,		/* Get or GetTable of PathRecord */
	SOFTIB_SA_INFORMS,		/* Set of InformInfo */
	SOFTIB_SA_DROPPED,		/* of them, lost on purpose (sa_drop_pct) */
	SOFTIB_SA_DELAYED,		/* of them, held for sa_delay_ms */
	SOFTIB_SA_NCOUNTS
};

/* An HCA port: rdmavt's view and the fabric's. */
struct softib_hca_port {
	struct rvt_ibport rvp;
	atomic64_t sa_counts[SOFTIB_SA_NCOUNTS];
	/* Percent of the SA requests the port sends that are lost (sysfs). */
	u8 sa_drop_pct;
	/*
	 * Milliseconds the SA requests the port sends are held before they
	 * go (sysfs: a slow SA), in sa_held, FIFO, at most SOFTIB_SA_HELD_MAX.
	 */
	u16 sa_delay_ms;
	spinlock_t sa_held_lock;	/* sa_held, sa_nheld */
	struct list_head sa_held;
	unsigned int sa_nheld;
	struct delayed_work sa_held_work;
	struct softib_port *port;
	u16 pkeys[SOFTIB_NPKEYS];	/* rdmavt reads it without locks */
	__be64 guids[SOFTIB_GUIDS];	/* GUIDInfo; [0] is the port GUID */
	/* Stored on Set, not used: VLCap 1 (design: "The attributes"). */
	u8 sl2vl[8];			/* 16 SLs, a VL in 4 bits each */
	u8 vlarb[SOFTIB_VLARB_BLOCKS][IB_SMP_DATA_SIZE];
};

struct softib_hca {
	struct rvt_dev_info rdi;	/* first: rdma_vt.h "Keep this first" */
	struct softib_fabric *fabric;
	struct softib_node node;
	bool registered;		/* events go to ib_core only then */
	struct softib_hca_port hports[SOFTIB_MAX_PORTS_PER_HCA];
};

/*
 * The switch is fabric state, not an ib_device (design: "Objects"). Its
 * SMA's state is written under @lock; port 0's LID is node.ports[0].lid.
 */
struct softib_switch {
	struct softib_node node;
	spinlock_t lock;		/* the tables, SwitchInfo, port 0 */
	u8 *lft;			/* SOFTIB_LFT_CAP egress ports by LID */
	u64 *mft;			/* SOFTIB_MFT_CAP port masks by MLID */
	u16 lft_top;			/* SwitchInfo:LinearFDBTop */
	u8 life_time;			/* SwitchInfo:LifeTimeValue */
	bool port_state_change;		/* SwitchInfo:PortStateChange */
	/* Port 0's PortInfo fields the SMA stores (IBA 14.2.5.6). */
	__be64 mkey;
	__be64 gid_prefix;
	u16 sm_lid;
	u8 sm_sl;
	u8 subnet_timeout;
	u16 pkeys[SOFTIB_NPKEYS];	/* port 0's PKeyTable */
	/* Trap 128 to the SM until repressed (switch.c, IBA 14.2.5.4). */
	struct delayed_work trap_work;
	__be64 trap_tid;		/* the trap in flight, 0: none */
	u8 trap_sends;			/* sends of it so far */
	u32 trap_tid_next;
};

/*
 * A packet on the wire as a descriptor, not bytes (design: "The packet"):
 * the LRH, GRH, BTH and DETH fields, the payload copied once at send.
 */
struct softib_pkt {
	struct list_head list;		/* the send work's batch */
	unsigned long due;		/* jiffies: a held SA request's send */
	u8 port_num;			/* the sending HCA port */
	u8 vl;				/* LRH */
	u8 sl;
	u16 dlid;
	u16 slid;
	bool has_grh;
	struct ib_grh grh;		/* wire order, copied verbatim */
	bool solicited;			/* BTH */
	u16 pkey;
	u32 dqpn;
	u32 psn;
	u32 qkey;			/* DETH */
	u32 sqpn;
	bool has_imm;
	__be32 imm;
	u8 hops;			/* links crossed: a loop guard */
	/*
	 * RC (rc.c): a whole message, not a packet (the ideal wire), and
	 * the responder's answer, which delivery returns synchronously.
	 */
	bool rc;
	u8 opcode;			/* enum ib_wr_opcode */
	u8 rc_result;			/* enum softib_rc_result */
	u8 rnr_timer;			/* an RNR NAK's timer code */
	u64 vaddr;			/* RETH (IBA 9.3.3) */
	u32 rkey;
	u32 len;
	u8 data[];
};

/*
 * What came back for an RC message: nothing (lost on the way, dropped by
 * the responder's checks: the requester times out), an ACK, an RNR NAK,
 * or a NAK (IBA 9.7.5.2).
 */
enum softib_rc_result {
	SOFTIB_RC_LOST,
	SOFTIB_RC_ACK,
	SOFTIB_RC_RNR,
	SOFTIB_RC_NAK_INV,		/* invalid request */
	SOFTIB_RC_NAK_ACCESS,		/* remote access error */
	SOFTIB_RC_NAK_OP,		/* remote operational error */
};

struct softib_fabric {
	/*
	 * rdmavt prints through get_pci_dev()'s device (risk R1): a zeroed
	 * pci_dev named "softib", never registered, never a parent (root is).
	 */
	struct pci_dev pdev;
	/*
	 * The HCAs' parent, /sys/devices/softib, as a PCI function is a real
	 * HCA's: ULPs read it (ib_ipoib's ethtool -i: dev_name(parent)).
	 */
	struct device *root;
	struct workqueue_struct *wq;	/* the QPs' send work */
	struct softib_switch sw;
	u64 guid_base;
	int nhcas;
	int ports_per_hca;
	struct softib_hca *hcas[SOFTIB_MAX_HCAS];
};

/* Per-QP driver data (rdmavt's qp->priv). */
struct softib_qp {
	struct rvt_qp *qp;
	struct work_struct send_work;
};

static inline struct softib_hca *softib_hca_from_rdi(struct rvt_dev_info *rdi)
{
	return container_of(rdi, struct softib_hca, rdi);
}

static inline struct softib_hca *softib_hca_from_ibdev(struct ib_device *ibdev)
{
	return softib_hca_from_rdi(ib_to_rvt(ibdev));
}

/* fabric.c */
struct softib_fabric *softib_fabric_create(int nhcas, int ports_per_hca,
					   int switch_ports, u64 guid_base);
void softib_fabric_destroy(struct softib_fabric *fabric);
int softib_fabric_node_init(struct softib_fabric *fabric,
			    struct softib_node *node,
			    enum softib_node_type type, int index, int nports);
void softib_fabric_node_uninit(struct softib_node *node);
void softib_fabric_cable(struct softib_port *a, struct softib_port *b);
void softib_fabric_uncable(struct softib_port *port);
void softib_fabric_port_disable(struct softib_port *port);
void softib_fabric_port_bounce(struct softib_port *port);
int softib_fabric_port_set_state(struct softib_port *port, u8 state);
void softib_fabric_port_cancel(struct softib_port *port);
struct softib_port *softib_fabric_switch_port(struct softib_fabric *fabric,
					      int hca, int port);

/* hca.c */
struct softib_hca *softib_hca_create(struct softib_fabric *fabric, int index);
int softib_hca_register(struct softib_hca *hca);
void softib_hca_unregister(struct softib_hca *hca);
void softib_hca_destroy(struct softib_hca *hca);
void softib_hca_event(struct softib_hca *hca, u32 port_num,
		      enum ib_event_type type);
void softib_hca_port_changed(struct softib_port *port, u8 old_state);

/* qp.c */
void softib_qp_set_callbacks(struct rvt_driver_provided *f);
void softib_qp_fill_lrh(struct rvt_qp *qp, const struct rdma_ah_attr *attr,
			u8 port_num, struct softib_pkt *pkt);
bool softib_qp_queue_send(struct rvt_qp *qp);
void softib_qp_wqe_ss(struct rvt_swqe *wqe, struct rvt_sge_state *ss);
void softib_qp_copy_out(struct rvt_sge_state *ss, u8 *data, u32 len,
			bool release);
void softib_qp_xmit(struct softib_hca *hca, u32 port_num,
		    struct softib_pkt *pkt);
void softib_qp_sa_held_init(struct softib_hca_port *hp);
void softib_qp_sa_held_flush(struct softib_hca_port *hp);
extern const struct rvt_operation_params softib_qp_post_parms[RVT_OPERATION_MAX];
extern const enum ib_wc_opcode softib_qp_wc_opcode[];

/* rc.c */
void softib_rc_send_work(struct rvt_qp *qp);
void softib_rc_rx(struct softib_hca_port *hp, struct rvt_qp *qp,
		  struct softib_pkt *pkt);

/* wire.c */
struct softib_pkt *softib_pkt_alloc(u32 len, gfp_t gfp);
bool softib_wire_pkey_match(u16 a, u16 b);
void softib_wire_xmit(struct softib_port *port, struct softib_pkt *pkt);
void softib_wire_forward(struct softib_switch *sw, u8 in_port,
			 struct softib_pkt *pkt);
void softib_wire_hca_rx(struct softib_port *port, struct softib_pkt *pkt);

/* switch.c */
int softib_switch_init(struct softib_switch *sw);
void softib_switch_uninit(struct softib_switch *sw);
void softib_switch_rx(struct softib_port *port, struct softib_pkt *pkt);
void softib_switch_port_changed(struct softib_switch *sw);

/* sma.c */
void softib_sma_node_info_fill(struct ib_node_info *ni,
			       const struct softib_node *node,
			       __be64 port_guid, u8 local_port);
bool softib_sma_port_info_ok(const struct ib_port_info *pi,
			     struct softib_port *port);
u16 softib_smp_check(const struct ib_smp *smp);
int softib_sma_process_mad(struct ib_device *ibdev, int mad_flags,
			   u32 port_num, const struct ib_wc *in_wc,
			   const struct ib_grh *in_grh,
			   const struct ib_mad *in, struct ib_mad *out,
			   size_t *out_mad_size, u16 *out_mad_pkey_index);

/* sysfs.c */
extern const struct attribute_group *softib_sysfs_port_groups[];

#endif /* SOFTIB_H */
