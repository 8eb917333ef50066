// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ipc_hdr_parse() and ipc_rx_classify() on arbitrary datagrams, against a
 * model of the checks of ARP (RFC 4391 s9.2) and of the link-layer
 * address options of ND (s9.3) written from ipoib_core.h's contract.
 * Input: flags(1) src_qpn(4) our_qpn(4) sgid(16) dgid(16) our_gid(16)
 * bcast(16) payload(rest). flags bit 0: sgid present, bit 1: dgid present,
 * bit 2: sgid := our gid, bit 3: src_qpn := our qpn, bit 4: dgid := bcast.
 */
#include "fuzz_util.hpp"

static bool known_type(uint16_t t)
{
	return t == IPC_ETH_P_IP || t == IPC_ETH_P_ARP || t == IPC_ETH_P_RARP ||
	       t == IPC_ETH_P_IPV6;
}

/* s9.2: an ARP/RARP/InARP packet of n bytes. */
static int model_arp(const uint8_t *p, size_t n)
{
	if (n < 8)
		return IPC_R_TRUNCATED;
	if (be16(p) != IPC_ARP_HWTYPE)
		return IPC_R_BAD_HWTYPE;
	if (be16(p + 2) != IPC_ETH_P_IP)
		return IPC_R_BAD_PROTO;
	if (p[4] != IPC_ADDR_LEN)
		return IPC_R_BAD_HLEN;
	if (p[5] != 4)
		return IPC_R_BAD_PLEN;
	uint16_t op = be16(p + 6);
	if (!((op >= 1 && op <= 4) || op == 8 || op == 9))
		return IPC_R_BAD_OP;
	if (n < IPC_ARP_LEN)
		return IPC_R_TRUNCATED;
	return unicast_endpoint(p + 8) ? IPC_R_OK : IPC_R_BAD_ADDR;
}

/*
 * An IPv6 packet of n bytes: the source/target link-layer address options
 * of an ND message (RFC 4861 types 133..137), after at most 8 hop-by-hop,
 * routing and destination options headers; the options within the
 * payload length.
 */
static int model_nd(const uint8_t *p, size_t n)
{
	if (n < 40)
		return IPC_R_TRUNCATED;
	if (p[0] >> 4 != 6)
		return IPC_R_OK;
	const size_t end = 40 + be16(p + 4);
	size_t off = 40;
	uint8_t next = p[6];
	for (int hdrs = 0; next == 0 || next == 43 || next == 60; hdrs++) {
		if (hdrs == 8)
			return IPC_R_OK;
		if (n < off + 2)
			return IPC_R_TRUNCATED;
		next = p[off];
		off += 8 * (size_t(p[off + 1]) + 1);
	}
	if (next != 58)
		return IPC_R_OK;
	if (n <= off)
		return IPC_R_TRUNCATED;
	static const uint8_t opts_at[] = { 8, 16, 24, 24, 40 };
	if (p[off] < 133 || p[off] > 137)
		return IPC_R_OK;
	off += opts_at[p[off] - 133];
	while (off + 2 <= end) {
		if (n < off + 2)
			return IPC_R_TRUNCATED;
		const uint8_t *o = p + off;
		size_t olen = 8 * size_t(o[1]);
		if (olen == 0)
			return IPC_R_BAD_OPT_LEN;
		if (o[0] == 1 || o[0] == 2) {
			if (n < off + olen)
				return IPC_R_TRUNCATED;
			if (o[1] != 3)
				return IPC_R_BAD_OPT_LEN;
			if (o[2] != 0 || o[3] != 0)
				return IPC_R_BAD_PAD;
			if (!unicast_endpoint(o + 4))
				return IPC_R_BAD_ADDR;
		}
		off += olen;
	}
	return IPC_R_OK;
}

static int model_payload(uint16_t et, const uint8_t *p, size_t n)
{
	if (et == IPC_ETH_P_ARP || et == IPC_ETH_P_RARP)
		return model_arp(p, n);
	if (et == IPC_ETH_P_IPV6)
		return model_nd(p, n);
	return IPC_R_OK;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	uint8_t flags = in.byte();
	uint32_t src_qpn = in.u32();
	struct ipc_ifid self = {};
	uint8_t sgid[16], dgid[16];
	self.qpn = in.u32() & IPC_QPN_MASK;
	in.take(sgid, 16);
	in.take(dgid, 16);
	in.take(self.gid, 16);
	in.take(self.bcast_gid, 16);
	/*
	 * Send-only QPNs (transmit queues): as many as flags' top 3 bits say,
	 * taken from no input so that the seeds keep their layout; every
	 * slot filled, those past the count not ours.
	 */
	self.send_qpns = flags >> 5;
	for (uint32_t i = 0; i < IPC_SEND_QPN_MAX; i++)
		self.send_qpn[i] = (self.qpn ^ (0x10101u * (i + 1))) &
				   IPC_QPN_MASK;
	if (flags & 4)
		std::memcpy(sgid, self.gid, 16);
	if (flags & 8)
		src_qpn =
			!self.send_qpns || (src_qpn & 1) ?
				self.qpn :
				self.send_qpn[(src_qpn >> 1) % IPC_SEND_QPN_MAX];
	if (flags & 16)
		std::memcpy(dgid, self.bcast_gid, 16);
	const uint8_t *sg = (flags & 1) ? sgid : nullptr;
	const uint8_t *dg = (flags & 2) ? dgid : nullptr;
	uint32_t len = static_cast<uint32_t>(in.left());
	/* A copy of exactly len bytes so ASan sees any overread. */
	uint8_t *payload = new uint8_t[len ? len : 1];
	std::memcpy(payload, in.rest(), len);

	uint16_t et = 0x1234;
	int hr = ipc_hdr_parse(payload, len, &et);
	if (hr == IPC_R_OK) {
		FUZZ_CHECK(len >= IPC_HDR_LEN);
		FUZZ_CHECK(et == be16(payload) && known_type(et));
		uint8_t h[4];
		ipc_hdr_build(et, h);
		FUZZ_CHECK(be16(h) == et && h[2] == 0 && h[3] == 0);
	} else {
		FUZZ_CHECK(et == 0x1234);
		FUZZ_CHECK(hr == (len < IPC_HDR_LEN ? IPC_R_TRUNCATED :
						      IPC_R_BAD_TYPE));
	}

	struct ipc_rx_verdict v;
	int rc = ipc_rx_classify(&self, sg, dg, src_qpn, payload, len, &v);
	bool our_qpn = (src_qpn & IPC_QPN_MASK) == self.qpn;
	for (uint32_t i = 0; i < self.send_qpns; i++)
		our_qpn |= (src_qpn & IPC_QPN_MASK) == self.send_qpn[i];
	bool ours = sg && our_qpn && std::memcmp(sg, self.gid, 16) == 0;
	if (ours) {
		FUZZ_CHECK(rc == IPC_R_LOOPBACK);
	} else if (hr != IPC_R_OK) {
		FUZZ_CHECK(rc == hr);
	} else if (int bad = model_payload(et, payload + IPC_HDR_LEN,
					   len - IPC_HDR_LEN)) {
		FUZZ_CHECK(rc == bad);
		FUZZ_CHECK(v.has_src == 0);
	} else {
		FUZZ_CHECK(rc == IPC_R_OK);
		FUZZ_CHECK(v.ethertype == et);
		FUZZ_CHECK(v.has_src == (sg != nullptr));
		if (sg) {
			FUZZ_CHECK(v.src_addr[0] == 0);
			FUZZ_CHECK(be24(v.src_addr + 1) ==
				   (src_qpn & IPC_QPN_MASK));
			FUZZ_CHECK(std::memcmp(v.src_addr + 4, sg, 16) == 0);
		}
		int want = IPC_PKT_HOST;
		if (dg && dg[0] == 0xff)
			want = std::memcmp(dg, self.bcast_gid, 16) == 0 ?
				       IPC_PKT_BROADCAST :
				       IPC_PKT_MULTICAST;
		FUZZ_CHECK(v.pkt_type == want);
	}
	delete[] payload;
	return 0;
}
