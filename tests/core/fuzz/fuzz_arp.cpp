// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ipc_arp_validate() on arbitrary payloads, and ipc_arp_build() from the
 * same bytes: what validate accepts has the stated fields; what build
 * writes, validate accepts with the same fields.
 */
#include "fuzz_util.hpp"

static bool op_known(uint16_t op)
{
	return (op >= 1 && op <= 4) || op == 8 || op == 9;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t len = static_cast<uint32_t>(size);
	uint8_t *buf = new uint8_t[len ? len : 1];
	std::memcpy(buf, data, len);
	int rc = ipc_arp_validate(buf, len);
	FUZZ_CHECK(rc >= IPC_R_OK && rc < IPC_R_COUNT);
	if (rc == IPC_R_OK) {
		FUZZ_CHECK(len >= IPC_ARP_LEN);
		FUZZ_CHECK(be16(buf) == IPC_ARP_HWTYPE);
		FUZZ_CHECK(be16(buf + 2) == IPC_ETH_P_IP);
		FUZZ_CHECK(buf[4] == IPC_ADDR_LEN && buf[5] == 4);
		FUZZ_CHECK(op_known(be16(buf + 6)));
		FUZZ_CHECK(unicast_endpoint(buf + 8));
	} else if (len >= IPC_ARP_LEN && be16(buf) == IPC_ARP_HWTYPE &&
		   be16(buf + 2) == IPC_ETH_P_IP && buf[4] == 20 &&
		   buf[5] == 4 && op_known(be16(buf + 6))) {
		FUZZ_CHECK(rc == IPC_R_BAD_ADDR);
	}
	delete[] buf;

	/* Build from the input's bytes. */
	Input in(data, size);
	uint8_t opb = in.byte();
	uint8_t outlen = in.byte();
	uint8_t sha[20], tha[20], sip[4], tip[4];
	in.take(sha, 20);
	in.take(tha, 20);
	in.take(sip, 4);
	in.take(tip, 4);
	uint16_t op = opb & 3;
	uint32_t olen = outlen < 128 ? IPC_ARP_LEN : outlen - 128;
	uint8_t *out = new uint8_t[olen ? olen : 1];
	int b = ipc_arp_build(op, sha, sip, (opb & 4) ? tha : nullptr, tip, out,
			      olen);
	if ((op != 1 && op != 2) || !unicast_endpoint(sha)) {
		FUZZ_CHECK(b == -IPC_EINVAL);
	} else if (olen < IPC_ARP_LEN) {
		FUZZ_CHECK(b == -IPC_ERANGE);
	} else {
		FUZZ_CHECK(b == IPC_ARP_LEN);
		FUZZ_CHECK(ipc_arp_validate(out, olen) == IPC_R_OK);
		FUZZ_CHECK(be16(out + 6) == op);
		FUZZ_CHECK(out[8] == (sha[0] & IPC_ADDR_FLAG_CM));
		FUZZ_CHECK(std::memcmp(out + 9, sha + 1, 19) == 0);
		FUZZ_CHECK(std::memcmp(out + 28, sip, 4) == 0);
		FUZZ_CHECK(std::memcmp(out + 52, tip, 4) == 0);
		if (opb & 4)
			FUZZ_CHECK(std::memcmp(out + 33, tha + 1, 19) == 0);
	}
	delete[] out;
	return 0;
}
