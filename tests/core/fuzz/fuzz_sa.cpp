// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SA MADs from the fabric (sa.cpp): a reassembled GetTableResp of any
 * length and a Report(Notice). Input: tid(8) then the MAD bytes. Nothing
 * is read outside the buffer (ASan), every record read is an MGID, the
 * walk ends, and a ReportResp repeats what it answers.
 */
#include <vector>

#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	uint8_t t[8];
	in.take(t, 8);
	uint64_t tid = 0;
	for (int i = 0; i < 8; i++)
		tid = tid << 8 | t[i];
	/* An exact-size copy, so that ASan sees any read past its end. */
	std::vector<uint8_t> buf(in.rest(), in.rest() + in.left());
	uint32_t len = static_cast<uint32_t>(buf.size());

	uint32_t pos = 0, n = 0;
	uint8_t mgid[16];
	int r;
	while ((r = ipc_sa_mcmember_table_next(buf.data(), len, tid, &pos,
					       mgid)) == 1) {
		FUZZ_CHECK(mgid[0] == 0xff);
		FUZZ_CHECK(++n <= len / 52);
	}
	FUZZ_CHECK(r == 0 || r == -IPC_EPROTO);

	(void)ipc_sa_inform_resp_check(buf.data(), len, tid);

	uint8_t resp[IPC_MAD_LEN];
	int trap = ipc_sa_notice_parse(buf.data(), len, mgid, resp);
	if (trap >= 0) {
		FUZZ_CHECK(len >= IPC_MAD_LEN);
		FUZZ_CHECK(resp[3] == 0x86);
		FUZZ_CHECK(std::memcmp(resp + 8, buf.data() + 8, 8) == 0);
		FUZZ_CHECK(std::memcmp(resp + IPC_SA_HDR_LEN,
				       buf.data() + IPC_SA_HDR_LEN,
				       IPC_MAD_LEN - IPC_SA_HDR_LEN) == 0);
	} else {
		FUZZ_CHECK(trap == -IPC_EPROTO);
	}
	return 0;
}
