// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - the interface's sysfs files (the in-tree driver's, same names
 * and formats) and the children they create and delete.
 */
#include <linux/rtnetlink.h>
#include "ipoib_ng.h"

/* ------------------------------------------------------------------ */
/* sysfs: the in-tree driver's files, same names and formats, since     */
/* NetworkManager and scripts write them; and which RDMA port it is.    */
/* ------------------------------------------------------------------ */

static ssize_t ibdev_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%s\n", dev_name(&priv->ca->dev));
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t ibport_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%u\n", priv->port);
}
static DEVICE_ATTR_RO(ibport);

static ssize_t pkey_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "0x%04x\n", priv->pkey);
}
static DEVICE_ATTR_RO(pkey);

static bool ipn_sysfs_capable(struct device *d)
{
	return ns_capable(dev_net(to_net_dev(d))->user_ns, CAP_NET_ADMIN);
}

/*
 * Review L4: a P_Key child puts the host into a partition, which the
 * fabric's administrator gives, not a container's: making one (sysfs or
 * netlink) needs CAP_NET_ADMIN in the initial user namespace. The root
 * of a user namespace may still be given a child, and run it: mode,
 * umcast, rings, addresses, deleting it (the kernel's rules for an
 * interface of its own network namespace).
 */
bool ipn_may_choose_pkey(void)
{
	return capable(CAP_NET_ADMIN);
}

static ssize_t mode_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%s\n", READ_ONCE(priv->cm_mode) ?
			  "connected" : "datagram");
}

static ssize_t mode_store(struct device *d, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));
	bool cm;
	int ret;

	if (!ipn_sysfs_capable(d))
		return -EPERM;
	if (sysfs_streq(buf, "datagram"))
		cm = false;
	else if (sysfs_streq(buf, "connected"))
		cm = true;
	else
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();
	ret = ipn_dev_set_mode(priv, cm, NULL);
	rtnl_unlock();
	return ret ?: count;
}
static DEVICE_ATTR_RW(mode);

static ssize_t umcast_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "%d\n", READ_ONCE(priv->umcast));
}

static ssize_t umcast_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct ipn_priv *priv = netdev_priv(to_net_dev(d));
	unsigned long val;
	int ret;

	if (!ipn_sysfs_capable(d))
		return -EPERM;
	ret = kstrtoul(buf, 0, &val);
	if (ret)
		return ret;
	WRITE_ONCE(priv->umcast, !!val);
	return count;
}
static DEVICE_ATTR_RW(umcast);

/*
 * create_child/delete_child: the caller's right, then a valid P_Key
 * ("0x8001" or "32769"), then rtnl, held on success. Unregistering the
 * parent waits for these writes: they never block on rtnl.
 */
static int ipn_sysfs_child_begin(struct device *d, const char *buf,
				 u16 *pkey)
{
	int ret;

	if (!ipn_sysfs_capable(d))
		return -EPERM;
	ret = kstrtou16(buf, 0, pkey);
	if (ret)
		return ret;
	if (!ipc_pkey_valid(*pkey))
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();
	return 0;
}

/* The child is named <parent>.<P_Key as written, %04x>, as in ib_ipoib. */
static ssize_t create_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct net_device *pdev = to_net_dev(d), *dev;
	char name[IFNAMSIZ];
	u16 pkey;
	int ret;

	if (!ipn_may_choose_pkey())
		return -EPERM;
	ret = ipn_sysfs_child_begin(d, buf, &pkey);
	if (ret)
		return ret;
	ret = -ENODEV;
	if (pdev->reg_state != NETREG_REGISTERED)
		goto out;
	snprintf(name, sizeof(name), "%.10s.%04x", pdev->name, pkey);
	ret = -ENOMEM;
	dev = alloc_netdev_mqs(sizeof(struct ipn_priv), name, NET_NAME_USER,
			       ipn_setup, ipn_txq_max(), 1);
	if (!dev)
		goto out;
	dev_net_set(dev, dev_net(pdev));
	ret = ipn_child_create(netdev_priv(pdev), dev, ipc_pkey_full(pkey),
			       true);
	if (ret)
		free_netdev(dev);
out:
	rtnl_unlock();
	return ret ?: count;
}
static DEVICE_ATTR_WO(create_child);

/*
 * Deletes a child made through create_child with this P_Key, if the
 * writer may administer the namespace the child is in now, which need
 * not be the parent's.
 */
static ssize_t delete_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct ipn_priv *ppriv = netdev_priv(to_net_dev(d)), *priv;
	int ret;
	u16 pkey;

	ret = ipn_sysfs_child_begin(d, buf, &pkey);
	if (ret)
		return ret;
	ret = -ENODEV;
	list_for_each_entry(priv, &ppriv->children, list) {
		if (priv->sysfs_child && priv->pkey == ipc_pkey_full(pkey)) {
			ret = -EPERM;
			if (!ns_capable(dev_net(priv->dev)->user_ns,
					CAP_NET_ADMIN))
				break;
			unregister_netdevice(priv->dev);
			ret = 0;
			break;
		}
	}
	rtnl_unlock();
	return ret ?: count;
}
static DEVICE_ATTR_WO(delete_child);

/*
 * A net_device has one driver group (sysfs_groups[0]); only port
 * interfaces have children (as in ib_ipoib), so there are two groups.
 * Not one group that hides two files with .is_visible: moving an
 * interface into a netns of another user namespace changes the owner of
 * every file of its groups, and in 6.1 a hidden one makes that fail
 * with a WARN in __dev_change_net_namespace() (found by privilege.sh).
 */
static struct attribute *ipn_port_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_ibport.attr,
	&dev_attr_pkey.attr,
	&dev_attr_mode.attr,
	&dev_attr_umcast.attr,
	&dev_attr_create_child.attr,
	&dev_attr_delete_child.attr,
	NULL,
};

/* The same but create_child and delete_child, the last two. */
static struct attribute *ipn_child_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_ibport.attr,
	&dev_attr_pkey.attr,
	&dev_attr_mode.attr,
	&dev_attr_umcast.attr,
	NULL,
};

const struct attribute_group ipn_port_attr_group = {
	.attrs = ipn_port_attrs,
};

const struct attribute_group ipn_child_attr_group = {
	.attrs = ipn_child_attrs,
};
