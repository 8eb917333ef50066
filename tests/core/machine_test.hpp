// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Small drivers for the path and multicast machines in unit tests. */
#ifndef IPOIB_MACHINE_TEST_HPP
#define IPOIB_MACHINE_TEST_HPP

#include <gtest/gtest.h>

#include <algorithm>

#include <string>

#include "core_test.hpp"

namespace ct
{

/* "QUEUE|START_QUERY" for failure messages. */
inline std::string acts(uint32_t a)
{
	static const char *const names[] = {
		"SEND",	       "QUEUE",	       "DROP",	      "DROP_OLDEST",
		"START_QUERY", "CANCEL_QUERY", "FLUSH_QUEUE", "PURGE_QUEUE",
		"RELEASE_AH",  "JOIN",	       "LEAVE",	      "ATTACH",
		"DETACH",      "TO_ROUTERS",   "FREE",	      "LOG",
		"CONNECT",     "DISCONNECT",   "VIA_UD",
	};
	std::string s;
	for (int i = 0; i < 19; i++)
		if (a & (1u << i))
			s += (s.empty() ? "" : "|") + std::string(names[i]);
	return s.empty() ? "none" : s;
}

#define EXPECT_ACTS(r, want) EXPECT_EQ(ct::acts((r).actions), ct::acts(want))
#define ASSERT_ACTS(r, want) ASSERT_EQ(ct::acts((r).actions), ct::acts(want))

struct PathT {
	struct ipc_path p;
	struct ipc_path_cfg c;
	struct ipc_rng rng;
	struct ipc_result r;

	PathT()
	{
		ipc_path_cfg_default(&c);
		ipc_path_init(&p);
		ipc_rng_seed(&rng, 99);
	}
	const ipc_result &tx(uint64_t now)
	{
		ipc_path_tx(&p, &c, now, &r);
		return r;
	}
	const ipc_result &done(uint64_t now, int status)
	{
		ipc_path_query_done(&p, &c, now, status, &rng, &r);
		return r;
	}
	const ipc_result &timer(uint64_t now)
	{
		ipc_path_timer(&p, &c, now, &rng, &r);
		return r;
	}
	const ipc_result &flush(uint64_t now)
	{
		ipc_path_flush(&p, &c, now, &rng, &r);
		return r;
	}
	const ipc_result &destroy()
	{
		ipc_path_destroy(&p, &r);
		return r;
	}
	const ipc_result &held()
	{
		ipc_path_query_held(&p, &r);
		return r;
	}
	const ipc_result &sent(uint64_t now)
	{
		ipc_path_query_sent(&p, &c, now, &r);
		return r;
	}
	int evictable(uint64_t now) const
	{
		return ipc_path_evictable(&p, &c, now);
	}
	int state() const
	{
		return p.state;
	}
};

struct McT {
	struct ipc_mc m;
	struct ipc_mc_cfg c;
	struct ipc_rng rng;
	struct ipc_result r;

	explicit McT(uint8_t scope = IPC_SCOPE_LINK)
	{
		ipc_mc_cfg_default(&c);
		ipc_mc_init(&m, scope);
		ipc_rng_seed(&rng, 7);
	}
	const ipc_result &sub(uint64_t now, int type = IPC_JOIN_FULL)
	{
		ipc_mc_subscribe(&m, &c, type, now, &r);
		return r;
	}
	const ipc_result &unsub(uint64_t now, int type = IPC_JOIN_FULL)
	{
		ipc_mc_unsubscribe(&m, &c, type, now, &r);
		return r;
	}
	const ipc_result &tx(uint64_t now, int routers = 0)
	{
		ipc_mc_tx(&m, &c, now, routers, &r);
		return r;
	}
	const ipc_result &done(uint64_t now, int status, int routers = 0)
	{
		ipc_mc_join_done(&m, &c, now, status, routers, &rng, &r);
		return r;
	}
	const ipc_result &timer(uint64_t now)
	{
		ipc_mc_timer(&m, &c, now, &rng, &r);
		return r;
	}
	const ipc_result &flush(uint64_t now, uint32_t spread)
	{
		ipc_mc_flush(&m, &c, now, spread, &rng, &r);
		return r;
	}
	const ipc_result &bcast_joined(uint64_t now)
	{
		ipc_mc_bcast_joined(&m, &c, now, &r);
		return r;
	}
	const ipc_result &notice(uint64_t now, int created)
	{
		ipc_mc_notice(&m, &c, now, created, &r);
		return r;
	}
	const ipc_result &destroy()
	{
		ipc_mc_destroy(&m, &r);
		return r;
	}
	int evictable(uint64_t now) const
	{
		return ipc_mc_evictable(&m, &c, now);
	}
	int state() const
	{
		return m.state;
	}
};

struct CmT {
	struct ipc_cm m;
	struct ipc_cm_cfg c;
	struct ipc_rng rng;
	struct ipc_result r;

	CmT()
	{
		ipc_cm_cfg_default(&c);
		ipc_cm_init(&m);
		ipc_rng_seed(&rng, 11);
	}
	const ipc_result &tx(uint64_t now, uint32_t len = 1000,
			     uint32_t ud_max = 2048)
	{
		ipc_cm_tx(&m, &c, now, len, ud_max, &r);
		return r;
	}
	const ipc_result &done(uint64_t now, int status,
			       uint32_t frame_max = IPC_CM_RX_MAX)
	{
		ipc_cm_connect_done(&m, &c, now, status, frame_max, &rng, &r);
		return r;
	}
	const ipc_result &broken(uint64_t now)
	{
		ipc_cm_broken(&m, &c, now, &r);
		return r;
	}
	const ipc_result &timer(uint64_t now)
	{
		ipc_cm_timer(&m, &c, now, &rng, &r);
		return r;
	}
	const ipc_result &destroy()
	{
		ipc_cm_destroy(&m, &r);
		return r;
	}
	int state() const
	{
		return m.state;
	}
};

} // namespace ct

#endif
