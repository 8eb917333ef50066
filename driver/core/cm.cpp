// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cm.cpp - connected mode (RFC 4755): the Service ID, the REQ/REP private
 * data and the machine of one connection we initiate.
 *
 * The shim holds the frames, the CM ID and the RC QP; the core decides
 * when to connect, what goes over the connection, over UD or nowhere, and
 * when to close. Queue accounting as in path.cpp: c->queued is written by
 * the core only, in the call that returns the action.
 *
 * A result is performed in IPC_ACT_ORDER (ipoib_core.h).
 * A connect completion arriving where none is outstanding is ignored.
 */
#include "core.hpp"

namespace ipc
{
namespace
{

constexpr const char *const cm_state_names[] = {
	"idle",
	"connecting",
	"connected",
	"failed",
};
static_assert(sizeof(cm_state_names) / sizeof(cm_state_names[0]) ==
		      IPC_CM_STATE_COUNT,
	      "a connection state without a name");
static_assert(sizeof(struct ipc_cm) == 32, "ipc_cm layout");

/* The smallest frame a peer may offer: an IPv4 packet of 68 octets. */
constexpr u32 cm_frame_min = IPC_MTU_IPV4_MIN + IPC_HDR_LEN;

using CmCall = Call<struct ipc_cm, struct ipc_cm_cfg>;

constexpr u32 load_be32(const u8 *p)
{
	return (static_cast<u32>(p[0]) << 24) | load_be24(p + 1);
}

constexpr void store_be32(u8 *p, u32 v)
{
	p[0] = static_cast<u8>(v >> 24);
	store_be24(p + 1, v);
}

void cm_reset(struct ipc_cm *c)
{
	mem_zero(c, sizeof(*c));
	c->state = IPC_CM_IDLE;
	c->deadline_ms = IPC_NO_DEADLINE;
}

u64 cm_idle_at(const CmCall &k)
{
	return after(k.obj->last_used_ms, k.c->idle_ms);
}

bool cm_idle(const CmCall &k)
{
	return k.obj->queued == 0 && k.now >= cm_idle_at(k);
}

ipc_cm_state cm_free(CmCall &k)
{
	k.out.act(IPC_ACT_FREE);
	cm_reset(k.obj);
	return IPC_CM_IDLE;
}

ipc_cm_state cm_connect(CmCall &k)
{
	k.out.act(IPC_ACT_CONNECT);
	queue_hold(k.out, &k.obj->queued, k.c->queue_max);
	k.obj->deadline_ms = after(k.now, k.c->connect_timeout_ms);
	return IPC_CM_CONNECTING;
}

/*
 * The REQ failed: the frames held go back to xmit, which now finds the
 * connection FAILED and sends what fits over UD. Each failure in a row
 * doubles the wait before the next REQ (jittered: a fabric whose SM or
 * peers restarted does not reconnect in one burst).
 */
ipc_cm_state cm_failed(CmCall &k, int status)
{
	k.out.act(IPC_ACT_DISCONNECT);
	queue_release(k.out, &k.obj->queued, IPC_ACT_FLUSH_QUEUE);
	k.obj->last_status = status;
	k.obj->frame_max = 0;
	count_attempt(&k.obj->attempts);
	k.obj->deadline_ms = after(
		k.now, ipc_backoff_ms(&k.c->backoff, k.obj->attempts, k.rng));
	return IPC_CM_FAILED;
}

/* Send a frame of len over UD if it fits, else it is too big. */
void cm_via_ud(CmCall &k, u32 len, u32 ud_max)
{
	if (len <= ud_max)
		k.out.act(IPC_ACT_VIA_UD);
	else
		k.out.act(IPC_ACT_DROP, IPC_R_TOO_BIG);
}

/* ---- handlers: (state, event) -> next state ----------------------- */

ipc_cm_state cm_on_tx(CmCall &k, ipc_cm_state s, u32 len, u32 ud_max)
{
	k.obj->last_used_ms = k.now;
	switch (s) {
	case IPC_CM_IDLE:
		return cm_connect(k);
	case IPC_CM_CONNECTING:
		queue_hold(k.out, &k.obj->queued, k.c->queue_max);
		return s;
	case IPC_CM_CONNECTED:
		/* s5.1: the peer's receive MTU bounds this connection. */
		if (len <= k.obj->frame_max)
			k.out.act(IPC_ACT_SEND);
		else
			k.out.act(IPC_ACT_DROP, IPC_R_TOO_BIG);
		return s;
	case IPC_CM_FAILED:
		if (k.now >= k.obj->deadline_ms)
			return cm_connect(k);
		cm_via_ud(k, len, ud_max);
		return s;
	default:
		return cm_free(k);
	}
}

ipc_cm_state cm_on_connect_done(CmCall &k, ipc_cm_state s, int status,
				u32 frame_max)
{
	if (s != IPC_CM_CONNECTING)
		return s; /* none outstanding: a late completion */
	if (status == 0 && frame_max < cm_frame_min)
		status = -IPC_EPROTO;
	if (status)
		return cm_failed(k, status);
	k.obj->last_status = 0;
	k.obj->attempts = 0;
	k.obj->frame_max = min_of<u32>(frame_max, IPC_CM_RX_MAX);
	queue_release(k.out, &k.obj->queued, IPC_ACT_FLUSH_QUEUE);
	k.obj->deadline_ms = cm_idle_at(k);
	return IPC_CM_CONNECTED;
}

/*
 * The peer closed (its interface went down, or it left connected mode)
 * or the QP failed: the next frame connects again at once, with no
 * backoff, as after an idle close.
 */
ipc_cm_state cm_on_broken(CmCall &k, ipc_cm_state s)
{
	switch (s) {
	case IPC_CM_CONNECTING:
		return cm_failed(k, -IPC_ENETRESET);
	case IPC_CM_CONNECTED:
		k.out.act(IPC_ACT_DISCONNECT);
		k.obj->frame_max = 0;
		k.obj->deadline_ms = cm_idle_at(k);
		return IPC_CM_IDLE;
	case IPC_CM_IDLE:
	case IPC_CM_FAILED:
		return s;
	default:
		return cm_free(k);
	}
}

ipc_cm_state cm_on_timer(CmCall &k, ipc_cm_state s)
{
	switch (s) {
	case IPC_CM_CONNECTING:
		if (k.now < k.obj->deadline_ms)
			return s;
		return cm_failed(k, -IPC_ETIMEDOUT);
	case IPC_CM_CONNECTED:
		if (cm_idle(k)) {
			k.out.act(IPC_ACT_DISCONNECT);
			return cm_free(k);
		}
		k.obj->deadline_ms = cm_idle_at(k);
		return s;
	case IPC_CM_FAILED:
		if (k.now < k.obj->deadline_ms)
			return s;
		k.obj->deadline_ms = cm_idle_at(k);
		if (cm_idle(k))
			return cm_free(k);
		return IPC_CM_IDLE;
	case IPC_CM_IDLE:
		if (cm_idle(k))
			return cm_free(k);
		k.obj->deadline_ms = cm_idle_at(k);
		return s;
	default:
		return cm_free(k);
	}
}

/* The held frames die with the interface: counted as link down. */
void cm_on_destroy(CmCall &k, ipc_cm_state s)
{
	if (s == IPC_CM_CONNECTING || s == IPC_CM_CONNECTED)
		k.out.act(IPC_ACT_DISCONNECT);
	queue_purge(k.out, &k.obj->queued, IPC_R_LINK_DOWN);
	cm_free(k);
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" ipc_u64 ipc_cm_service_id(ipc_u32 ud_qpn)
{
	return IPC_CM_SID_IETF | (ud_qpn & IPC_QPN_MASK);
}

extern "C" void ipc_cm_priv_build(ipc_u32 ud_qpn, ipc_u32 rx_mtu, ipc_u8 out[8])
{
	store_be32(out, ud_qpn & IPC_QPN_MASK);
	store_be32(out + 4, rx_mtu);
}

extern "C" int ipc_cm_priv_parse(const ipc_u8 *buf, ipc_u32 len,
				 ipc_u32 *ud_qpn, ipc_u32 *frame_max)
{
	u32 qpn, mtu;

	if (!buf || len < IPC_CM_PRIV_LEN)
		return -IPC_EPROTO;
	/* s6: the high octet of the QPN field is reserved, ignored. */
	qpn = load_be32(buf) & IPC_QPN_MASK;
	mtu = load_be32(buf + 4);
	if (qpn == 0 || qpn == IPC_QPN_MCAST || mtu < cm_frame_min)
		return -IPC_EPROTO;
	*ud_qpn = qpn;
	*frame_max = min_of<u32>(mtu, IPC_CM_RX_MAX);
	return 0;
}

extern "C" enum ipc_cm_admit ipc_cm_req_admit(ipc_u32 count, ipc_u32 max,
					      int have_old,
					      ipc_u64 old_last_rx_ms,
					      ipc_u64 now_ms)
{
	/* A clock behind the last receive counts as a receive just now. */
	if (have_old && (now_ms < old_last_rx_ms ||
			 now_ms - old_last_rx_ms < IPC_CM_REQ_HOLD_MS))
		return IPC_CM_REFUSE_LIVE;
	if (count >= max)
		return IPC_CM_REFUSE_FULL;
	return have_old ? IPC_CM_ADMIT_REPLACE : IPC_CM_ADMIT;
}

extern "C" void ipc_cm_cfg_default(struct ipc_cm_cfg *c)
{
	c->queue_max = 64;
	c->pad = 0;
	c->connect_timeout_ms = 30000;
	c->idle_ms = 300000;
	c->backoff.base_ms = 1000;
	c->backoff.cap_ms = 60000;
}

extern "C" void ipc_cm_init(struct ipc_cm *c)
{
	cm_reset(c);
}

extern "C" void ipc_cm_tx(struct ipc_cm *c, const struct ipc_cm_cfg *cfg,
			  ipc_u64 now, ipc_u32 len, ipc_u32 ud_max,
			  struct ipc_result *r)
{
	CmCall k(c, cfg, now, nullptr, r);

	k.commit(cm_on_tx(k, k.state<ipc_cm_state>(), len, ud_max));
}

extern "C" ipc_u32 ipc_cm_frame_max(const struct ipc_cm *c, ipc_u32 ud_max)
{
	return c->state == IPC_CM_CONNECTED ? c->frame_max : ud_max;
}

extern "C" void ipc_cm_connect_done(struct ipc_cm *c,
				    const struct ipc_cm_cfg *cfg, ipc_u64 now,
				    int status, ipc_u32 frame_max,
				    struct ipc_rng *rng, struct ipc_result *r)
{
	CmCall k(c, cfg, now, rng, r);

	k.commit(cm_on_connect_done(k, k.state<ipc_cm_state>(), status,
				    frame_max));
}

extern "C" void ipc_cm_broken(struct ipc_cm *c, const struct ipc_cm_cfg *cfg,
			      ipc_u64 now, struct ipc_result *r)
{
	CmCall k(c, cfg, now, nullptr, r);

	k.commit(cm_on_broken(k, k.state<ipc_cm_state>()));
}

extern "C" void ipc_cm_timer(struct ipc_cm *c, const struct ipc_cm_cfg *cfg,
			     ipc_u64 now, struct ipc_rng *rng,
			     struct ipc_result *r)
{
	CmCall k(c, cfg, now, rng, r);

	k.commit(cm_on_timer(k, k.state<ipc_cm_state>()));
}

extern "C" void ipc_cm_destroy(struct ipc_cm *c, struct ipc_result *r)
{
	CmCall k(c, nullptr, 0, nullptr, r);

	cm_on_destroy(k, k.state<ipc_cm_state>());
}

extern "C" void ipc_cm_view(const struct ipc_cm *c, struct ipc_view *v)
{
	view_clear(v);
	v->state = name_of(cm_state_names, c->state);
	v->attempts = c->attempts;
	v->queued = c->queued;
	v->last_status = c->last_status;
	v->deadline_ms = c->deadline_ms;
}

extern "C" ipc_u64 ipc_cm_deadline(const struct ipc_cm *c)
{
	return c->deadline_ms;
}

extern "C" int ipc_cm_connected(const struct ipc_cm *c)
{
	return c->state == IPC_CM_CONNECTED;
}

extern "C" int ipc_cm_failed(const struct ipc_cm *c)
{
	return c->state == IPC_CM_FAILED;
}
