// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address decode/encode/same/hash, tx classification and the multicast
 * addresses of a link: every one the stack's mapping (ip_ib_mc_map(),
 * ipv6_ib_mc_map(), as ct::mgid_v4()/mgid_v6()) makes is the link's.
 * Input: addr(20) qpn(4) port gid(16) pkey(2) scope(1) group6(16) seed(4).
 */
#include "core_test.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	uint8_t a[20];
	in.take(a, 20);
	struct ipc_ifid self = {};
	self.qpn = in.u32() & IPC_QPN_MASK;
	in.take(self.gid, 16);
	uint8_t pk[2];
	in.take(pk, 2);
	uint8_t scope = in.byte();
	uint8_t group6[16];
	in.take(group6, 16);
	uint32_t seed = in.u32();
	uint16_t pkey = be16(pk);
	uint8_t bc[20];
	ipc_addr_broadcast(pkey, scope, bc);
	std::memcpy(self.bcast_gid, bc + 4, 16);

	/* decode/encode: reserved flag bits cleared, endpoint unchanged */
	struct ipc_addr d;
	uint8_t e[20];
	ipc_addr_decode(a, &d);
	ipc_addr_encode(&d, e);
	FUZZ_CHECK(e[0] == (a[0] & IPC_ADDR_FLAG_CM));
	FUZZ_CHECK(std::memcmp(e + 1, a + 1, 19) == 0);
	FUZZ_CHECK(ipc_addr_same(a, e) == 1);
	FUZZ_CHECK(ipc_addr_hash(a, seed) == ipc_addr_hash(e, seed));
	/* multicast: the multicast QPN and an ff00::/8 GID, both */
	FUZZ_CHECK(
		(ipc_mcast_addr_check(a, self.bcast_gid) != IPC_R_BAD_ADDR) ==
		(be24(a + 1) == IPC_QPN_MCAST && a[4] == 0xff));

	/* tx classification */
	struct ipc_tx_verdict v;
	int rc = ipc_tx_classify(&self, a, &v);
	uint32_t q = be24(a + 1);
	if (rc == IPC_R_OK) {
		FUZZ_CHECK(v.qpn == q && std::memcmp(v.gid, a + 4, 16) == 0);
		if (v.kind == IPC_TX_UNICAST)
			FUZZ_CHECK(unicast_endpoint(a));
		else
			FUZZ_CHECK(q == IPC_QPN_MCAST &&
				   ipc_mcast_addr_check(a, self.bcast_gid) ==
					   IPC_R_OK);
		FUZZ_CHECK((v.kind == IPC_TX_BROADCAST) ==
			   (std::memcmp(a + 4, self.bcast_gid, 16) == 0));
	} else {
		FUZZ_CHECK(rc == IPC_R_BAD_ADDR || rc == IPC_R_WRONG_LINK);
		FUZZ_CHECK(!unicast_endpoint(a));
	}

	/* mapping: every mapped group is a multicast address of this link */
	uint8_t m[20] = { 0, 0xff, 0xff, 0xff };
	ct::mgid_v4(a, self.bcast_gid, m + 4);
	FUZZ_CHECK(ipc_mcast_addr_check(m, self.bcast_gid) == IPC_R_OK);
	FUZZ_CHECK(ipc_tx_classify(&self, m, &v) == IPC_R_OK);
	FUZZ_CHECK(v.kind != IPC_TX_UNICAST);
	FUZZ_CHECK(ipc_mgid_scope(m + 4) == (scope & 0xf));
	ct::mgid_v6(group6, self.bcast_gid, m + 4);
	FUZZ_CHECK(ipc_mcast_addr_check(m, self.bcast_gid) == IPC_R_OK);
	FUZZ_CHECK(std::memcmp(m + 10, group6 + 6, 10) == 0);
	/* its all-routers group too */
	uint8_t r[20] = { 0, 0xff, 0xff, 0xff };
	ipc_mgid_all_routers(m + 4, r + 4);
	FUZZ_CHECK(ipc_mgid_is_all_routers(r + 4) == 1);
	FUZZ_CHECK(ipc_mcast_addr_check(r, self.bcast_gid) == IPC_R_OK);
	FUZZ_CHECK(ipc_ipv6_mc_scope(group6) == (group6[1] & 0xf));
	FUZZ_CHECK(ipc_ipv4_mc_scope(a) <= 0xe);
	/* a different P_Key is another link */
	uint8_t other[20];
	ipc_addr_broadcast(pkey ^ 1, scope, other);
	FUZZ_CHECK(ipc_mcast_addr_check(m, other + 4) == IPC_R_WRONG_LINK);
	return 0;
}
