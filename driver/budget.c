// SPDX-License-Identifier: GPL-2.0
/*
 * budget.c - the SA request budget of a port (the core's: budget.cpp)
 * applied to the entries' SA requests: a path query (START_QUERY) or a
 * join (JOIN) of an InfiniBand interface asks the port's bucket at the
 * verdict; without a token it is held on the interface's list of its
 * class, its timeout stopped, and the tick lets it go when the core says
 * so. The all-multicast mode's MADs are charged as they go.
 *
 * The bucket is the port's (struct ipn_sa_port in the port's interface),
 * shared by the parent and its P_Key children; each interface holds its
 * own entries. Lock order: priv->lock, then the port's sa.lock; nothing
 * is taken under sa.lock.
 */
#include "ipoib_ng.h"

/* Module parameters (main.c), read at every request. */
static void ipn_sa_cfg(struct ipc_sa_budget_cfg *c)
{
	c->rate = READ_ONCE(ipn_sa_rate);
	c->burst = READ_ONCE(ipn_sa_burst);
}

static struct ipn_sa_port *ipn_sa_port_of(struct ipn_priv *priv)
{
	return &(priv->parent ?: priv)->sa_port;
}

void ipn_sa_init(struct ipn_priv *priv)
{
	struct ipc_sa_budget_cfg c;
	unsigned int i;

	ipn_sa_cfg(&c);
	spin_lock_init(&priv->sa_port.lock);
	ipc_sa_budget_init(&priv->sa_port.b, &c, ipn_now_ms());
	for (i = 0; i < IPC_SA_CLASS_COUNT; i++)
		INIT_LIST_HEAD(&priv->sa_held[i]);
}

/* Whether e's starts go through the budget: SA requests only. */
static bool ipn_sa_budgeted(struct ipn_priv *priv, struct ipn_entry *e)
{
	return priv->ops->sa_directory && e->kind->sa_class;
}

/*
 * A start act (START_QUERY, JOIN) of e at the verdict. True: it goes now,
 * the caller queues it for the control work. False: held, on e's class
 * list, its timeout stopped, the tick armed for its turn. A start while
 * one is held stays held (the JOIN's type is the entry's latest).
 * priv->lock held.
 */
bool ipn_sa_gate(struct ipn_priv *priv, struct ipn_entry *e, u32 act)
{
	struct ipn_sa_port *port;
	struct ipc_sa_budget_cfg c;
	struct ipc_result r;
	u64 now, retry;
	int cls, go;

	lockdep_assert_held(&priv->lock);
	if (!ipn_sa_budgeted(priv, e))
		return true;
	if (e->sa_act)
		return false;
	port = ipn_sa_port_of(priv);
	cls = e->kind->sa_class(e);
	now = ipn_now_ms();
	ipn_sa_cfg(&c);
	spin_lock(&port->lock);
	go = ipc_sa_budget_ask(&port->b, &c, now, cls, &retry);
	spin_unlock(&port->lock);
	if (go) {
		ipn_inc(priv, sa_requests);
		return true;
	}
	e->sa_act = act;
	e->sa_class = cls;
	e->sa_since = now;
	list_add_tail(&e->sa_node, &priv->sa_held[cls]);
	ipn_inc(priv, sa_delayed);
	e->kind->sa_held(priv, e, &r);
	ipn_tick_arm(priv, retry);
	return false;
}

/*
 * e's held start is ended (CANCEL_QUERY, LEAVE, FREE): it is no longer
 * held, and the port's count of held requests goes down. priv->lock held.
 */
void ipn_sa_withdraw(struct ipn_priv *priv, struct ipn_entry *e)
{
	struct ipn_sa_port *port = ipn_sa_port_of(priv);

	lockdep_assert_held(&priv->lock);
	if (!e->sa_act)
		return;
	list_del_init(&e->sa_node);
	e->sa_act = 0;
	spin_lock(&port->lock);
	ipc_sa_budget_withdraw(&port->b, e->sa_class);
	spin_unlock(&port->lock);
}

/*
 * The tick: let go what the budget allows, most important class first,
 * each class in order of arrival; stop at the first refusal (every
 * later one would be refused too) and come back when the core says.
 * priv->lock held.
 */
void ipn_sa_release(struct ipn_priv *priv, u64 now)
{
	struct ipn_sa_port *port = ipn_sa_port_of(priv);
	struct ipc_sa_budget_cfg c;
	struct ipn_entry *e;
	struct ipc_result r;
	unsigned int cls;
	u64 retry;
	int go;

	lockdep_assert_held(&priv->lock);
	ipn_sa_cfg(&c);
	for (cls = 0; cls < IPC_SA_CLASS_COUNT; cls++) {
		while ((e = list_first_entry_or_null(&priv->sa_held[cls],
						     struct ipn_entry,
						     sa_node))) {
			spin_lock(&port->lock);
			go = ipc_sa_budget_next(&port->b, &c, now, cls, &retry);
			spin_unlock(&port->lock);
			if (!go) {
				ipn_tick_arm(priv, retry);
				return;
			}
			list_del_init(&e->sa_node);
			ipn_inc(priv, sa_requests);
			ipn_add(priv, sa_delay_ms, now - e->sa_since);
			e->kind->sa_sent(priv, e, now, &r);
			ipn_entry_queue_ops(priv, e, e->sa_act);
			e->sa_act = 0;
			ipn_entry_file(priv, e);
		}
	}
}

/* An SA MAD that does not wait (allmulti.c): its token is spent. */
void ipn_sa_charge(struct ipn_priv *priv)
{
	struct ipn_sa_port *port = ipn_sa_port_of(priv);
	struct ipc_sa_budget_cfg c;

	ipn_sa_cfg(&c);
	spin_lock_bh(&port->lock);
	ipc_sa_budget_charge(&port->b, &c, ipn_now_ms());
	spin_unlock_bh(&port->lock);
	ipn_inc(priv, sa_requests);
}
