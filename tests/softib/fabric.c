// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric: nodes, their ports and the cables between them. One per
 * load: the switch sw0 and the HCAs softib0..N-1, HCA i's port p cabled to
 * switch port i * ports_per_hca + p (design: "Objects").
 */
#include <linux/device.h>
#include <linux/slab.h>

#include "softib.h"

/*
 * GUIDs are locally administered (guid_base, 0x02... by default): node n
 * (the switch is 0, HCA i is i + 1) has NodeGUID guid_base | n << 8, its
 * port p the port GUID NodeGUID + p.
 */
static __be64 softib_fabric_node_guid(struct softib_fabric *fabric, int n)
{
	return cpu_to_be64(fabric->guid_base | ((u64)n << 8));
}

static void softib_fabric_retrain(struct work_struct *work);

static void softib_fabric_port_init(struct softib_node *node,
				    struct softib_port *port, int num)
{
	port->node = node;
	port->num = num;
	spin_lock_init(&port->lock);
	/* Uncabled: PortState Down, PortPhysicalState Polling (IBA 14.2.5.6). */
	port->state = IB_PORT_DOWN;
	port->phys_state = IB_PORT_PHYS_STATE_POLLING;
	/*
	 * NeighborMTU and OperationalVLs at their maximum: OpenSM sets a port
	 * down to retrain it when its values differ (design: "PortInfo").
	 */
	port->neighbor_mtu = IB_MTU_4096;
	port->op_vls = SOFTIB_DATA_VLS;
	port->link_down_default = IB_PORT_PHYS_STATE_POLLING;
	port->link_width_enabled = SOFTIB_LINK_WIDTHS;
	port->link_speed_enabled = SOFTIB_LINK_SPEEDS;
	INIT_DELAYED_WORK(&port->retrain, softib_fabric_retrain);
}

/*
 * A node with @nports external ports. A switch also has port 0, its
 * management port: no cable, its physical state always LinkUp.
 */
int softib_fabric_node_init(struct softib_fabric *fabric,
			    struct softib_node *node,
			    enum softib_node_type type, int index, int nports)
{
	int i;

	node->fabric = fabric;
	node->type = type;
	node->nports = nports;
	node->ports = kcalloc(nports + 1, sizeof(*node->ports), GFP_KERNEL);
	if (!node->ports)
		return -ENOMEM;
	if (type == SOFTIB_NODE_SWITCH) {
		node->node_guid = softib_fabric_node_guid(fabric, 0);
		snprintf(node->name, sizeof(node->name), "sw%d", index);
	} else {
		node->node_guid = softib_fabric_node_guid(fabric, index + 1);
		snprintf(node->name, sizeof(node->name), "softib%d", index);
	}
	/* Each host is its own system (design: one ib_device per HCA). */
	node->sys_guid = node->node_guid;
	for (i = 0; i <= nports; i++)
		softib_fabric_port_init(node, &node->ports[i], i);
	if (type == SOFTIB_NODE_SWITCH)
		node->ports[0].phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	return 0;
}

void softib_fabric_node_uninit(struct softib_node *node)
{
	int i;

	for (i = 0; i <= node->nports; i++)
		softib_fabric_port_cancel(&node->ports[i]);
	kfree(node->ports);
	node->ports = NULL;
}

/*
 * An HCA port's owner hears of the change (ib_core events). A switch
 * external port going Down or coming up from Down sets SwitchInfo:
 * PortStateChange and traps to the SM (IBA 14.2.5.4: "as a result of
 * link state machine logic"; switch.c): the SM's own Sets of ARMED and
 * ACTIVE do not, or every sweep would trap in the middle of itself.
 */
static void softib_fabric_changed(struct softib_port *port, u8 old_state)
{
	struct softib_switch *sw;

	if (port->node->type == SOFTIB_NODE_CA) {
		softib_hca_port_changed(port, old_state);
	} else if (port->num &&
		   (old_state == IB_PORT_DOWN) !=
		   (READ_ONCE(port->state) == IB_PORT_DOWN)) {
		sw = container_of(port->node, struct softib_switch, node);
		softib_switch_port_changed(sw);
	}
}

static void softib_fabric_link_set(struct softib_port *port, u8 phys_state,
				   u8 state)
{
	unsigned long flags;
	u8 old;

	spin_lock_irqsave(&port->lock, flags);
	old = port->state;
	port->phys_state = phys_state;
	port->state = state;
	spin_unlock_irqrestore(&port->lock, flags);
	softib_fabric_changed(port, old);
}

/*
 * PortInfo:PortState Set of ARMED or ACTIVE (IBA 14.2.5.6): ARMED from
 * INIT or ARMED, ACTIVE from ARMED or ACTIVE, nothing else. 0 or -EINVAL.
 */
int softib_fabric_port_set_state(struct softib_port *port, u8 state)
{
	unsigned long flags;
	int ret = -EINVAL;
	u8 old;

	spin_lock_irqsave(&port->lock, flags);
	old = port->state;
	if ((state == IB_PORT_ARMED &&
	     (old == IB_PORT_INIT || old == IB_PORT_ARMED)) ||
	    (state == IB_PORT_ACTIVE &&
	     (old == IB_PORT_ARMED || old == IB_PORT_ACTIVE))) {
		port->state = state;
		ret = 0;
	}
	spin_unlock_irqrestore(&port->lock, flags);
	if (!ret)
		softib_fabric_changed(port, old);
	return ret;
}

/*
 * Plug a cable between two uncabled ports: both links train up to
 * LinkUp and PortState Init, LID 0 until the SM assigns one.
 */
void softib_fabric_cable(struct softib_port *a, struct softib_port *b)
{
	a->peer = b;
	b->peer = a;
	softib_fabric_link_set(a, IB_PORT_PHYS_STATE_LINK_UP, IB_PORT_INIT);
	softib_fabric_link_set(b, IB_PORT_PHYS_STATE_LINK_UP, IB_PORT_INIT);
}

/* Pull the cable at @port, if any: both ends go down and poll. */
void softib_fabric_uncable(struct softib_port *port)
{
	struct softib_port *peer = port->peer;

	if (!peer)
		return;
	softib_fabric_link_set(port, IB_PORT_PHYS_STATE_POLLING, IB_PORT_DOWN);
	softib_fabric_link_set(peer, IB_PORT_PHYS_STATE_POLLING, IB_PORT_DOWN);
	/* The wire reads peers under rcu_read_lock() (wire.c). */
	WRITE_ONCE(port->peer, NULL);
	WRITE_ONCE(peer->peer, NULL);
}

/*
 * Disable @port, as IB_PORT_SHUTDOWN or PortInfo:PortPhysicalState 3 do:
 * the cable stays, the far end loses the link and polls.
 */
void softib_fabric_port_disable(struct softib_port *port)
{
	softib_fabric_link_set(port, IB_PORT_PHYS_STATE_DISABLED, IB_PORT_DOWN);
	if (port->peer)
		softib_fabric_link_set(port->peer, IB_PORT_PHYS_STATE_POLLING,
				       IB_PORT_DOWN);
}

/*
 * PortState Down or PortPhysicalState Polling: both ends of the cable
 * lose the link and poll; SOFTIB_RETRAIN_MS later it trains up to INIT
 * again, as LinkDownDefaultState Polling makes a real link do.
 */
void softib_fabric_port_bounce(struct softib_port *port)
{
	struct softib_fabric *fabric = port->node->fabric;

	softib_fabric_link_set(port, IB_PORT_PHYS_STATE_POLLING, IB_PORT_DOWN);
	if (!port->peer)
		return;
	if (READ_ONCE(port->peer->phys_state) != IB_PORT_PHYS_STATE_DISABLED)
		softib_fabric_link_set(port->peer, IB_PORT_PHYS_STATE_POLLING,
				       IB_PORT_DOWN);
	mod_delayed_work(fabric->wq, &port->retrain,
			 msecs_to_jiffies(SOFTIB_RETRAIN_MS));
}

static void softib_fabric_retrain(struct work_struct *work)
{
	struct softib_port *port = container_of(to_delayed_work(work),
						struct softib_port, retrain);
	struct softib_port *peer = port->peer;

	if (!peer ||
	    READ_ONCE(port->phys_state) != IB_PORT_PHYS_STATE_POLLING ||
	    READ_ONCE(peer->phys_state) != IB_PORT_PHYS_STATE_POLLING)
		return;
	softib_fabric_link_set(port, IB_PORT_PHYS_STATE_LINK_UP, IB_PORT_INIT);
	softib_fabric_link_set(peer, IB_PORT_PHYS_STATE_LINK_UP, IB_PORT_INIT);
}

/* Before a cable is pulled: no retrain is pending or running at @port. */
void softib_fabric_port_cancel(struct softib_port *port)
{
	cancel_delayed_work_sync(&port->retrain);
}

/* The switch port HCA @hca's port @port (1-based) is cabled to. */
struct softib_port *softib_fabric_switch_port(struct softib_fabric *fabric,
					      int hca, int port)
{
	int num = hca * fabric->ports_per_hca + port;

	if (num > fabric->sw.node.nports)
		return NULL;
	return &fabric->sw.node.ports[num];
}

struct softib_fabric *softib_fabric_create(int nhcas, int ports_per_hca,
					   int switch_ports, u64 guid_base)
{
	struct softib_fabric *fabric;
	int ret;

	fabric = kzalloc(sizeof(*fabric), GFP_KERNEL);
	if (!fabric)
		return ERR_PTR(-ENOMEM);
	fabric->nhcas = nhcas;
	fabric->ports_per_hca = ports_per_hca;
	fabric->guid_base = guid_base;
	/* dev_printk() needs only a name: no bus, class or driver (R1). */
	fabric->pdev.dev.init_name = "softib";

	fabric->root = root_device_register("softib");
	if (IS_ERR(fabric->root)) {
		ret = PTR_ERR(fabric->root);
		goto err_free;
	}
	fabric->wq = alloc_workqueue("softib", WQ_UNBOUND, 0);
	if (!fabric->wq) {
		ret = -ENOMEM;
		goto err_root;
	}
	ret = softib_fabric_node_init(fabric, &fabric->sw.node,
				      SOFTIB_NODE_SWITCH, 0, switch_ports);
	if (ret)
		goto err_wq;
	ret = softib_switch_init(&fabric->sw);
	if (ret)
		goto err_node;
	return fabric;

err_node:
	softib_fabric_node_uninit(&fabric->sw.node);
err_wq:
	destroy_workqueue(fabric->wq);
err_root:
	root_device_unregister(fabric->root);
err_free:
	kfree(fabric);
	return ERR_PTR(ret);
}

/* After every HCA is gone: no QP is left to queue send work. */
void softib_fabric_destroy(struct softib_fabric *fabric)
{
	softib_switch_uninit(&fabric->sw);
	softib_fabric_node_uninit(&fabric->sw.node);
	destroy_workqueue(fabric->wq);
	root_device_unregister(fabric->root);
	kfree(fabric);
}
