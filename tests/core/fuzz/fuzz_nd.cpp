// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ipc_nd_opt_validate() on arbitrary options and the build/validate round
 * trip of ipc_nd_opt_build().
 */
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t len = static_cast<uint32_t>(size);
	uint8_t *opt = new uint8_t[len ? len : 1];
	std::memcpy(opt, data, len);
	const uint8_t *addr = opt;
	int rc = ipc_nd_opt_validate(opt, len, &addr);
	FUZZ_CHECK(rc >= IPC_R_OK && rc < IPC_R_COUNT);
	if (rc == IPC_R_OK) {
		FUZZ_CHECK(len >= IPC_ND_OPT_LEN);
		FUZZ_CHECK(opt[0] == 1 || opt[0] == 2);
		FUZZ_CHECK(opt[1] == 3 && opt[2] == 0 && opt[3] == 0);
		FUZZ_CHECK(addr == opt + 4);
		FUZZ_CHECK(unicast_endpoint(addr));
	} else {
		FUZZ_CHECK(addr == nullptr);
	}
	delete[] opt;

	Input in(data, size);
	uint8_t type = in.byte() & 3;
	uint8_t a[20];
	in.take(a, 20);
	uint8_t out[24];
	int b = ipc_nd_opt_build(type, a, out);
	if ((type != 1 && type != 2) || !unicast_endpoint(a)) {
		FUZZ_CHECK(b == -IPC_EINVAL);
	} else {
		FUZZ_CHECK(b == IPC_ND_OPT_LEN);
		const uint8_t *got = nullptr;
		FUZZ_CHECK(ipc_nd_opt_validate(out, 24, &got) == IPC_R_OK);
		FUZZ_CHECK(got == out + 4 && out[0] == type);
		FUZZ_CHECK(ipc_addr_same(got, a));
		FUZZ_CHECK((got[0] & ~IPC_ADDR_FLAG_CM) == 0);
	}
	return 0;
}
