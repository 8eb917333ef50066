// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connected mode (cm.cpp, RFC 4755): the Service ID (s3.5), the private
 * data (s6) byte for byte, and the connection machine: every state with
 * every event.
 */
#include "machine_test.hpp"

using namespace ct;

namespace
{

constexpr uint64_t T0 = 5000000;

struct Cm : CmT {
	void connecting()
	{
		EXPECT_ACTS(tx(T0), IPC_ACT_CONNECT | IPC_ACT_QUEUE);
		ASSERT_EQ(state(), IPC_CM_CONNECTING);
	}
	void connected(uint32_t frame_max = IPC_CM_RX_MAX)
	{
		connecting();
		EXPECT_ACTS(done(T0 + 5, 0, frame_max), IPC_ACT_FLUSH_QUEUE);
		ASSERT_EQ(state(), IPC_CM_CONNECTED);
	}
	void failed()
	{
		connecting();
		EXPECT_ACTS(done(T0 + 5, -IPC_ETIMEDOUT),
			    IPC_ACT_DISCONNECT | IPC_ACT_FLUSH_QUEUE);
		ASSERT_EQ(state(), IPC_CM_FAILED);
	}
};

TEST(cm, service_id_is_the_ietf_prefix_and_the_ud_qpn)
{
	EXPECT_EQ(ipc_cm_service_id(0x000048), 0x1000000000000048ull);
	/* Only the 24 QPN bits count. */
	EXPECT_EQ(ipc_cm_service_id(0xab123456), 0x1000000000123456ull);
}

TEST(cm, private_data_bytes)
{
	uint8_t b[IPC_CM_PRIV_LEN];
	const uint8_t want[] = {
		0x00, 0x12, 0x34, 0x56, 0x00, 0x00, 0xff, 0xf4
	};

	ipc_cm_priv_build(0xff123456, IPC_CM_RX_MAX, b);
	EXPECT_EQ(0, memcmp(b, want, sizeof(want)));
}

TEST(cm, private_data_parse)
{
	uint8_t b[16] = { 0xee, 0x00, 0x00, 0x48, 0x00, 0x01, 0x00, 0x00 };
	uint32_t qpn = 0, max = 0;

	/* Reserved high octet ignored; a larger MTU than ours is capped. */
	ASSERT_EQ(0, ipc_cm_priv_parse(b, sizeof(b), &qpn, &max));
	EXPECT_EQ(qpn, 0x48u);
	EXPECT_EQ(max, (uint32_t)IPC_CM_RX_MAX);

	b[4] = 0;
	b[5] = 0;
	b[6] = 0x08;
	b[7] = 0x00;
	ASSERT_EQ(0, ipc_cm_priv_parse(b, 8, &qpn, &max));
	EXPECT_EQ(max, 2048u);

	EXPECT_EQ(-IPC_EPROTO, ipc_cm_priv_parse(b, 7, &qpn, &max));
	EXPECT_EQ(-IPC_EPROTO, ipc_cm_priv_parse(nullptr, 8, &qpn, &max));
	b[6] = 0;
	b[7] = 71; /* one short of an IPv4 minimum packet and its header */
	EXPECT_EQ(-IPC_EPROTO, ipc_cm_priv_parse(b, 8, &qpn, &max));
	b[7] = 72;
	EXPECT_EQ(0, ipc_cm_priv_parse(b, 8, &qpn, &max));
	b[1] = b[2] = b[3] = 0;
	EXPECT_EQ(-IPC_EPROTO, ipc_cm_priv_parse(b, 8, &qpn, &max));
	b[1] = b[2] = b[3] = 0xff;
	EXPECT_EQ(-IPC_EPROTO, ipc_cm_priv_parse(b, 8, &qpn, &max));

	/* Round trip. */
	ipc_cm_priv_build(0x123, 9000, b);
	ASSERT_EQ(0, ipc_cm_priv_parse(b, 8, &qpn, &max));
	EXPECT_EQ(qpn, 0x123u);
	EXPECT_EQ(max, 9000u);
}

/*
 * Review 2026-12 H3: a REQ in the name of a peer whose connection is in
 * use is refused, not a replacement; the cap counts every QP.
 */
TEST(cm, req_admit_refuses_a_live_address)
{
	const ipc_u64 t = 100000;

	EXPECT_EQ(IPC_CM_ADMIT, ipc_cm_req_admit(0, 1, 0, 0, t));
	EXPECT_EQ(IPC_CM_REFUSE_FULL, ipc_cm_req_admit(1, 1, 0, 0, t));
	EXPECT_EQ(IPC_CM_REFUSE_FULL, ipc_cm_req_admit(5, 0, 0, 0, t));
	/* The old connection received 1 ms ago, or just under the hold. */
	EXPECT_EQ(IPC_CM_REFUSE_LIVE, ipc_cm_req_admit(1, 8, 1, t - 1, t));
	EXPECT_EQ(IPC_CM_REFUSE_LIVE,
		  ipc_cm_req_admit(1, 8, 1, t - IPC_CM_REQ_HOLD_MS + 1, t));
	/* A clock behind its last receive: in use. */
	EXPECT_EQ(IPC_CM_REFUSE_LIVE, ipc_cm_req_admit(1, 8, 1, t + 5, t));
	/* Quiet for the hold: a restarted peer replaces it. */
	EXPECT_EQ(IPC_CM_ADMIT_REPLACE,
		  ipc_cm_req_admit(1, 8, 1, t - IPC_CM_REQ_HOLD_MS, t));
	/* But not beyond the cap: the old QP still counts until destroyed. */
	EXPECT_EQ(IPC_CM_REFUSE_FULL,
		  ipc_cm_req_admit(8, 8, 1, t - IPC_CM_REQ_HOLD_MS, t));
}

TEST(cm, idle_tx_connects_and_queues)
{
	Cm t;
	t.connecting();
	EXPECT_EQ(t.m.queued, 1);
	EXPECT_EQ(t.r.deadline_ms, T0 + t.c.connect_timeout_ms);
	EXPECT_ACTS(t.tx(T0 + 1), IPC_ACT_QUEUE);
	EXPECT_EQ(t.m.queued, 2);
}

TEST(cm, connecting_queue_is_bounded)
{
	Cm t;
	t.c.queue_max = 2;
	t.connecting();
	t.tx(T0 + 1);
	EXPECT_ACTS(t.tx(T0 + 2), IPC_ACT_QUEUE | IPC_ACT_DROP_OLDEST);
	EXPECT_EQ(t.r.reason, IPC_R_QUEUE_FULL);
	EXPECT_EQ(t.m.queued, 2);
}

TEST(cm, connected_sends_what_fits_the_peer)
{
	Cm t;
	t.connected(9004);
	EXPECT_EQ(t.m.queued, 0);
	EXPECT_EQ(t.m.frame_max, 9004u);
	EXPECT_EQ(t.r.deadline_ms, T0 + t.c.idle_ms);
	EXPECT_ACTS(t.tx(T0 + 10, 9004), IPC_ACT_SEND);
	EXPECT_ACTS(t.tx(T0 + 11, 9005), IPC_ACT_DROP);
	EXPECT_EQ(t.r.reason, IPC_R_TOO_BIG);
	EXPECT_EQ(ipc_cm_frame_max(&t.m, 2048), 9004u);
	/* A tx does not move the deadline: the timer recomputes it. */
	EXPECT_EQ(t.r.deadline_ms, T0 + t.c.idle_ms);
}

TEST(cm, rep_with_too_small_mtu_fails)
{
	Cm t;
	t.connecting();
	EXPECT_ACTS(t.done(T0 + 1, 0, 71),
		    IPC_ACT_DISCONNECT | IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.state(), IPC_CM_FAILED);
	EXPECT_EQ(t.m.last_status, -IPC_EPROTO);
}

TEST(cm, failed_goes_over_ud_then_reconnects)
{
	Cm t;
	t.failed();
	EXPECT_EQ(t.m.attempts, 1);
	uint64_t retry = t.m.deadline_ms;
	EXPECT_GE(retry, T0 + 5 + t.c.backoff.base_ms / 2);
	EXPECT_LE(retry, T0 + 5 + t.c.backoff.base_ms);
	EXPECT_ACTS(t.tx(T0 + 6, 2048, 2048), IPC_ACT_VIA_UD);
	EXPECT_ACTS(t.tx(T0 + 6, 2049, 2048), IPC_ACT_DROP);
	EXPECT_EQ(t.r.reason, IPC_R_TOO_BIG);
	EXPECT_EQ(ipc_cm_frame_max(&t.m, 2048), 2048u);
	/* Backoff over, a frame before the timer: connect again. */
	EXPECT_ACTS(t.tx(retry), IPC_ACT_CONNECT | IPC_ACT_QUEUE);
	EXPECT_EQ(t.state(), IPC_CM_CONNECTING);
}

TEST(cm, failures_in_a_row_back_off_longer)
{
	Cm t;
	t.c.backoff.base_ms = 1000;
	t.c.backoff.cap_ms = 8000;
	t.connecting();
	uint64_t now = T0;
	for (int i = 1; i <= 5; i++) {
		t.timer(now + t.c.connect_timeout_ms);
		ASSERT_EQ(t.state(), IPC_CM_FAILED);
		now += t.c.connect_timeout_ms;
		uint64_t wait = t.m.deadline_ms - now;
		uint32_t ceil = std::min<uint32_t>(8000, 1000u << (i - 1));
		EXPECT_GE(wait, ceil / 2) << i;
		EXPECT_LE(wait, ceil) << i;
		now = t.m.deadline_ms;
		t.tx(now);
		ASSERT_EQ(t.state(), IPC_CM_CONNECTING);
	}
	/* Success resets the count. */
	t.done(now + 1, 0);
	EXPECT_EQ(t.m.attempts, 0);
}

TEST(cm, connect_timeout)
{
	Cm t;
	t.connecting();
	EXPECT_ACTS(t.timer(T0 + t.c.connect_timeout_ms - 1), 0);
	EXPECT_EQ(t.state(), IPC_CM_CONNECTING);
	EXPECT_ACTS(t.timer(T0 + t.c.connect_timeout_ms),
		    IPC_ACT_DISCONNECT | IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.m.last_status, -IPC_ETIMEDOUT);
}

TEST(cm, late_completion_ignored)
{
	Cm t;
	t.connected();
	EXPECT_ACTS(t.done(T0 + 9, -IPC_ETIMEDOUT), 0);
	EXPECT_EQ(t.state(), IPC_CM_CONNECTED);
	Cm u;
	EXPECT_ACTS(u.done(T0, 0), 0);
	EXPECT_EQ(u.state(), IPC_CM_IDLE);
}

TEST(cm, broken_connection_reconnects_without_backoff)
{
	Cm t;
	t.connected();
	EXPECT_ACTS(t.broken(T0 + 20), IPC_ACT_DISCONNECT);
	EXPECT_EQ(t.state(), IPC_CM_IDLE);
	EXPECT_ACTS(t.tx(T0 + 21), IPC_ACT_CONNECT | IPC_ACT_QUEUE);
	/* Broken while connecting: a failure. */
	EXPECT_ACTS(t.broken(T0 + 22),
		    IPC_ACT_DISCONNECT | IPC_ACT_FLUSH_QUEUE);
	EXPECT_EQ(t.state(), IPC_CM_FAILED);
	EXPECT_EQ(t.m.last_status, -IPC_ENETRESET);
	/* Nothing to break in FAILED or IDLE. */
	EXPECT_ACTS(t.broken(T0 + 23), 0);
	Cm u;
	EXPECT_ACTS(u.broken(T0), 0);
}

TEST(cm, idle_connection_closes_and_frees)
{
	Cm t;
	t.connected();
	t.tx(T0 + 100);
	EXPECT_ACTS(t.timer(T0 + 5 + t.c.idle_ms), 0);
	EXPECT_EQ(t.r.deadline_ms, T0 + 100 + t.c.idle_ms);
	EXPECT_ACTS(t.timer(T0 + 100 + t.c.idle_ms),
		    IPC_ACT_DISCONNECT | IPC_ACT_FREE);
	EXPECT_EQ(t.state(), IPC_CM_IDLE);
}

TEST(cm, failed_then_idle_frees_without_disconnect)
{
	Cm t;
	t.failed();
	uint64_t retry = t.m.deadline_ms;
	EXPECT_ACTS(t.timer(retry), 0);
	EXPECT_EQ(t.state(), IPC_CM_IDLE);
	EXPECT_EQ(t.r.deadline_ms, T0 + t.c.idle_ms);
	EXPECT_ACTS(t.timer(T0 + t.c.idle_ms), IPC_ACT_FREE);
}

TEST(cm, destroy_in_every_state)
{
	Cm a;
	EXPECT_ACTS(a.destroy(), IPC_ACT_FREE);
	Cm b;
	b.connecting();
	EXPECT_ACTS(b.destroy(),
		    IPC_ACT_DISCONNECT | IPC_ACT_PURGE_QUEUE | IPC_ACT_FREE);
	EXPECT_EQ(b.r.reason, IPC_R_LINK_DOWN);
	Cm c;
	c.connected();
	EXPECT_ACTS(c.destroy(), IPC_ACT_DISCONNECT | IPC_ACT_FREE);
	Cm d;
	d.failed();
	EXPECT_ACTS(d.destroy(), IPC_ACT_FREE);
}

TEST(cm, corrupt_state_frees)
{
	Cm t;
	t.m.state = 77;
	EXPECT_ACTS(t.tx(T0), IPC_ACT_FREE);
	t.m.state = 77;
	EXPECT_ACTS(t.timer(T0), IPC_ACT_FREE);
	t.m.state = 77;
	EXPECT_ACTS(t.broken(T0), IPC_ACT_FREE);
	EXPECT_STREQ(cm_state_name(77), "unknown");
	EXPECT_STREQ(cm_state_name(IPC_CM_CONNECTED), "connected");
}

} // namespace

/* ---- what the shim may ask (ipc_cm_view, _deadline, _connected, _failed) */

TEST(cm_access, connected_and_failed)
{
	Cm t;
	t.connecting();
	EXPECT_FALSE(ipc_cm_connected(&t.m));
	EXPECT_FALSE(ipc_cm_failed(&t.m));
	Cm c;
	c.connected();
	EXPECT_TRUE(ipc_cm_connected(&c.m));
	EXPECT_FALSE(ipc_cm_failed(&c.m));
	Cm f;
	f.failed();
	EXPECT_FALSE(ipc_cm_connected(&f.m));
	EXPECT_TRUE(ipc_cm_failed(&f.m));
}

TEST(cm_access, view_and_deadline_copy_the_machine)
{
	Cm t;
	t.failed();
	struct ipc_view v;
	ipc_cm_view(&t.m, &v);
	EXPECT_STREQ(v.state, "failed");
	EXPECT_EQ(v.attempts, t.m.attempts);
	EXPECT_EQ(v.queued, t.m.queued);
	EXPECT_EQ(v.last_status, -IPC_ETIMEDOUT);
	EXPECT_EQ(v.deadline_ms, t.m.deadline_ms);
	EXPECT_EQ(ipc_cm_deadline(&t.m), t.m.deadline_ms);
}
