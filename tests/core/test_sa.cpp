// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SA MADs of the s11 promiscuous multicast emulation (sa.cpp), byte
 * for byte against IBA s13.4 / s15.2, and which groups a router joins.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core_test.hpp"

namespace
{

using Bytes = std::vector<uint8_t>;
using ct::BCAST;
using ct::mgid;

constexpr uint64_t TID = 0x1234567800000042ull;

uint16_t be16(const uint8_t *p)
{
	return static_cast<uint16_t>(p[0] << 8 | p[1]);
}

uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = static_cast<uint8_t>(v);
}

/* A reassembled GetTableResp: SA header + records of stride words * 8. */
Bytes table_resp(const std::vector<Bytes> &groups, uint16_t words = 7,
		 uint16_t status = 0, uint32_t pad = 0)
{
	Bytes b(IPC_SA_HDR_LEN + groups.size() * words * 8 + pad, 0);
	b[0] = 1;
	b[1] = 0x03;
	b[2] = 2;
	b[3] = 0x92;
	b[4] = static_cast<uint8_t>(status >> 8);
	b[5] = static_cast<uint8_t>(status);
	put_be64(&b[8], TID);
	b[16] = 0;
	b[17] = 0x38;
	b[44] = static_cast<uint8_t>(words >> 8);
	b[45] = static_cast<uint8_t>(words);
	for (size_t i = 0; i < groups.size(); i++)
		memcpy(&b[IPC_SA_HDR_LEN + i * words * 8], groups[i].data(),
		       16);
	return b;
}

std::vector<Bytes> parse(const Bytes &b, int *last = nullptr)
{
	std::vector<Bytes> out;
	uint32_t pos = 0;
	uint8_t g[16];
	int r;
	while ((r = ipc_sa_mcmember_table_next(b.data(),
					       static_cast<uint32_t>(b.size()),
					       TID, &pos, g)) == 1)
		out.emplace_back(g, g + 16);
	if (last)
		*last = r;
	return out;
}

TEST(sa, report_only_from_the_sm_on_the_default_partition)
{
	EXPECT_TRUE(ipc_sa_report_source_ok(1, 1, 0xffff));
	EXPECT_TRUE(ipc_sa_report_source_ok(1, 1, 0x7fff));
	/* Another node: its LID is not the SM's. */
	EXPECT_FALSE(ipc_sa_report_source_ok(7, 1, 0xffff));
	/* The SM's LID, but another partition. */
	EXPECT_FALSE(ipc_sa_report_source_ok(1, 1, 0x8001));
	EXPECT_FALSE(ipc_sa_report_source_ok(1, 1, 0x0001));
}

TEST(sa, mcmember_table_request_bytes)
{
	uint8_t mad[IPC_MAD_LEN];
	memset(mad, 0xaa, sizeof(mad));
	ipc_sa_mcmember_table_req(mad, TID);
	EXPECT_EQ(mad[0], 1); /* BaseVersion */
	EXPECT_EQ(mad[1], 0x03); /* SubnAdm */
	EXPECT_EQ(mad[2], 2); /* ClassVersion */
	EXPECT_EQ(mad[3], 0x12); /* GetTable */
	EXPECT_EQ(be16(mad + 4), 0);
	EXPECT_EQ(be64(mad + 8), TID);
	EXPECT_EQ(be16(mad + 16), 0x38); /* MCMemberRecord */
	for (unsigned i = 18; i < IPC_MAD_LEN; i++)
		EXPECT_EQ(mad[i], 0) << "byte " << i;
}

TEST(sa, mcmember_table_records)
{
	std::vector<Bytes> groups = { mgid(2, 0x401b, 0xffff, 1),
				      mgid(2, 0x601b, 0xffff, 2),
				      mgid(2, 0x401b, 0x8001, 3) };
	int last;
	auto got = parse(table_resp(groups), &last);
	EXPECT_EQ(last, 0);
	ASSERT_EQ(got.size(), 3u);
	for (size_t i = 0; i < 3; i++)
		EXPECT_EQ(got[i], groups[i]);
	/* The stride is AttributeOffset's, not 52 bytes. */
	got = parse(table_resp(groups, 8));
	ASSERT_EQ(got.size(), 3u);
	EXPECT_EQ(got[2], groups[2]);
	/* Zero padding after the last record is no group. */
	got = parse(table_resp(groups, 7, 0, 100));
	EXPECT_EQ(got.size(), 3u);
	/* No records: an empty table or the "no records" status. */
	EXPECT_EQ(parse(table_resp({}), &last).size(), 0u);
	EXPECT_EQ(last, 0);
	EXPECT_EQ(parse(table_resp(groups, 7, 0x0300), &last).size(), 0u);
	EXPECT_EQ(last, 0);
}

TEST(sa, mcmember_table_rejects)
{
	std::vector<Bytes> groups = { mgid(2, 0x401b, 0xffff, 1) };
	int last;
	/* A MAD status, another TID, method, attribute, a short stride. */
	EXPECT_TRUE(parse(table_resp(groups, 7, 0x0200), &last).empty());
	EXPECT_EQ(last, -IPC_EPROTO);
	Bytes b = table_resp(groups);
	b[15] ^= 1;
	EXPECT_TRUE(parse(b, &last).empty());
	EXPECT_EQ(last, -IPC_EPROTO);
	b = table_resp(groups);
	b[3] = 0x81;
	parse(b, &last);
	EXPECT_EQ(last, -IPC_EPROTO);
	b = table_resp(groups);
	b[17] = 0x35;
	parse(b, &last);
	EXPECT_EQ(last, -IPC_EPROTO);
	b = table_resp(groups, 6);
	parse(b, &last);
	EXPECT_EQ(last, -IPC_EPROTO);
	/* Shorter than the SA header. */
	b.resize(40);
	parse(b, &last);
	EXPECT_EQ(last, -IPC_EPROTO);
	/* A record cut short is not read. */
	b = table_resp(groups);
	b.resize(b.size() - 8);
	EXPECT_TRUE(parse(b, &last).empty());
	EXPECT_EQ(last, 0);
}

TEST(sa, inform_info_request_bytes)
{
	uint8_t mad[IPC_MAD_LEN];
	ipc_sa_inform_req(mad, TID, IPC_TRAP_MCG_CREATED, 1);
	EXPECT_EQ(mad[1], 0x03);
	EXPECT_EQ(mad[3], 0x02); /* Set */
	EXPECT_EQ(be64(mad + 8), TID);
	EXPECT_EQ(be16(mad + 16), 0x03); /* InformInfo */
	const uint8_t *ii = mad + IPC_SA_HDR_LEN;
	for (int i = 0; i < 16; i++)
		EXPECT_EQ(ii[i], 0); /* GID: any */
	EXPECT_EQ(be16(ii + 16), 0xffff); /* LIDRangeBegin: all */
	EXPECT_EQ(be16(ii + 18), 0);
	EXPECT_EQ(ii[22], 1); /* IsGeneric */
	EXPECT_EQ(ii[23], 1); /* Subscribe */
	EXPECT_EQ(be16(ii + 24), 0xffff); /* Type: all */
	EXPECT_EQ(be16(ii + 26), 66); /* trap 66 */
	EXPECT_EQ(ii[28], 0); /* QPN 1 */
	EXPECT_EQ(ii[29], 0);
	EXPECT_EQ(ii[30], 1);
	EXPECT_EQ(ii[31] & 0x1f, 19); /* RespTimeValue */
	EXPECT_EQ(ii[33], 0xff); /* ProducerType: all */
	EXPECT_EQ(ii[34], 0xff);
	EXPECT_EQ(ii[35], 0xff);
	ipc_sa_inform_req(mad, TID, IPC_TRAP_MCG_CREATED, 0);
	EXPECT_EQ(ii[23], 0); /* unsubscribe */
}

TEST(sa, inform_info_response)
{
	uint8_t mad[IPC_MAD_LEN];
	ipc_sa_inform_req(mad, TID, IPC_TRAP_MCG_CREATED, 1);
	mad[3] = 0x81; /* the SA's GetResp */
	EXPECT_EQ(ipc_sa_inform_resp_check(mad, IPC_MAD_LEN, TID), 0);
	EXPECT_EQ(ipc_sa_inform_resp_check(mad, IPC_MAD_LEN, TID + 1),
		  -IPC_EPROTO);
	mad[5] = 0x0c; /* status */
	EXPECT_EQ(ipc_sa_inform_resp_check(mad, IPC_MAD_LEN, TID), -IPC_EPROTO);
}

Bytes report(uint16_t trap, const Bytes &gid, bool generic = true)
{
	Bytes m(IPC_MAD_LEN, 0);
	m[0] = 1;
	m[1] = 0x03;
	m[2] = 2;
	m[3] = 0x06; /* Report */
	put_be64(&m[8], 0x77);
	m[17] = 0x02; /* Notice */
	m[24] = 1; /* an RMPP version the response must not keep */
	uint8_t *n = &m[IPC_SA_HDR_LEN];
	n[0] = generic ? 0x80 | 4 : 4;
	n[3] = 4; /* producer: SM */
	n[4] = static_cast<uint8_t>(trap >> 8);
	n[5] = static_cast<uint8_t>(trap);
	memcpy(n + IPC_SA_NOTICE_GID_OFF, gid.data(), 16);
	return m;
}

TEST(sa, notice_of_a_new_group)
{
	Bytes g = mgid(2, 0x601b, 0xffff, 7);
	Bytes r = report(IPC_TRAP_MCG_CREATED, g);
	uint8_t out[16] = {}, resp[IPC_MAD_LEN];
	EXPECT_EQ(ipc_sa_notice_parse(r.data(), IPC_MAD_LEN, out, resp),
		  IPC_TRAP_MCG_CREATED);
	EXPECT_EQ(Bytes(out, out + 16), g);
	/* ReportResp: same TID and Notice, method 0x86, no RMPP. */
	EXPECT_EQ(resp[3], 0x86);
	EXPECT_EQ(be64(resp + 8), 0x77u);
	EXPECT_EQ(resp[24], 0);
	EXPECT_EQ(memcmp(resp + IPC_SA_HDR_LEN, r.data() + IPC_SA_HDR_LEN,
			 IPC_MAD_LEN - IPC_SA_HDR_LEN),
		  0);
	EXPECT_EQ(ipc_sa_notice_parse(report(67, g).data(), IPC_MAD_LEN, out,
				      resp),
		  IPC_TRAP_MCG_DELETED);
}

TEST(sa, notice_rejects)
{
	Bytes g = mgid(2, 0x601b, 0xffff, 7);
	uint8_t out[16], resp[IPC_MAD_LEN];
	EXPECT_EQ(ipc_sa_notice_parse(report(66, g, false).data(), IPC_MAD_LEN,
				      out, resp),
		  -IPC_EPROTO);
	Bytes r = report(66, g);
	EXPECT_EQ(ipc_sa_notice_parse(r.data(), 100, out, resp), -IPC_EPROTO);
	r[3] = 0x81;
	EXPECT_EQ(ipc_sa_notice_parse(r.data(), IPC_MAD_LEN, out, resp),
		  -IPC_EPROTO);
}

/* Reports acted on at most IPC_NOTICE_RATE a second after a burst. */
TEST(sa, notice_rate_refills_at_the_rate)
{
	struct ipc_notice_rate n;
	ipc_u64 t = 1000;
	const ipc_u64 step = 1000 / IPC_NOTICE_RATE;
	unsigned int acted = 0;

	ipc_notice_rate_init(&n, t);
	while (ipc_notice_admit(&n, t))
		;
	/* One a step: not a moment before. */
	EXPECT_EQ(ipc_notice_admit(&n, t + step - 1), 0);
	EXPECT_EQ(ipc_notice_admit(&n, t + step), 1);
	EXPECT_EQ(ipc_notice_admit(&n, t + step), 0);
	/* A storm of 100 a second for 10 s: the rate goes through. */
	for (int ms = 10; ms <= 10000; ms += 10)
		acted += ipc_notice_admit(&n, t + step + ms);
	EXPECT_GE(acted, 10 * IPC_NOTICE_RATE - 1);
	EXPECT_LE(acted, 10 * IPC_NOTICE_RATE + 1);
}

TEST(sa, notice_rate_idle_refills_to_the_burst_only)
{
	struct ipc_notice_rate n;
	ipc_u64 t = 0;
	unsigned int acted = 0;

	ipc_notice_rate_init(&n, t);
	while (ipc_notice_admit(&n, t))
		;
	t += 24ull * 3600 * 1000; /* a day */
	while (ipc_notice_admit(&n, t))
		acted++;
	EXPECT_EQ(acted, IPC_NOTICE_BURST);
	/* A clock that goes back gives nothing and breaks nothing. */
	EXPECT_EQ(ipc_notice_admit(&n, t - 5000), 0);
	EXPECT_EQ(ipc_notice_admit(&n, t + 1000 / IPC_NOTICE_RATE), 1);
}

} // namespace
