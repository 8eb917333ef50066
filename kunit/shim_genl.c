// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit module's copy of driver/genl.c (see Kbuild). The family is
 * never registered here (ipoib_ng.ko owns the name), so the events of the
 * test interfaces go nowhere.
 */
#define IPN_KUNIT 1
#include "../driver/genl.c"
#include <kunit/test.h>
#include "ipn_kunit.h"

/*
 * The message a dump would carry for the path to gid (mgid NULL) or for
 * the group mgid, into skb: what ipoibctl and the YNL client read, built
 * on the KUnit interfaces, whose SA is scripted (InfiniBand records).
 */
int ipn_kunit_genl_msg(struct ipn_priv *priv, const u8 *gid, const u8 *mgid,
		       struct sk_buff *skb)
{
	struct nlmsghdr nlh = {};
	struct netlink_callback cb = { .skb = skb, .nlh = &nlh };
	struct ipn_mcast *mc;
	struct ipn_path *path;
	int ret = -ENOENT;
	void *hdr;

	spin_lock_bh(&priv->lock);
	if (!mgid) {
		path = ipn_path_find(priv, gid);
		if (path)
			ret = ipn_genl_fill_path(skb, &cb, priv, path,
						 ipn_now_ms());
	} else {
		mc = ipn_mcast_find(priv, mgid);
		hdr = mc ? ipn_genl_entry_put(skb, &cb,
					      IPOIB_NG_CMD_GROUP_GET) : NULL;
		if (hdr) {
			ret = ipn_genl_put_group(skb, priv, mc, ipn_now_ms());
			if (ret)
				genlmsg_cancel(skb, hdr);
			else
				genlmsg_end(skb, hdr);
		}
	}
	spin_unlock_bh(&priv->lock);
	return ret;
}
