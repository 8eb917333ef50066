// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * budget.cpp - the SA request budget of a port: a token bucket shared by
 * every SA request of every interface on the port, and the order in which
 * the requests it holds back go (ipoib_core.h, "SA request budget").
 *
 * Why a budget at all: the SA answers every node of the subnet, and the
 * events that make nodes ask (an SM failover, a client reregister, a
 * partition change) reach all of them at once. Jitter spreads what one
 * event causes; the budget bounds what a node asks whatever the cause,
 * so that a node with a thousand new destinations or a flapping port
 * cannot by itself keep the SA busy. The rest of the fabric's protection
 * is in the machines: rejoins spread over spread_ms (mc.cpp), paths kept
 * while they are revalidated and revalidated over flush_spread_ms
 * (path.cpp).
 *
 * Time is in ms and tokens in thousandths, so that the refill is exact in
 * integers: rate tokens a second is rate thousandths a millisecond.
 */
#include "core.hpp"

namespace ipc
{
namespace
{

constexpr s64 milli_per_token = 1000;

u32 budget_rate(const struct ipc_sa_budget_cfg *c)
{
	return c->rate ? c->rate : 1;
}

s64 budget_cap(const struct ipc_sa_budget_cfg *c)
{
	return static_cast<s64>(c->burst ? c->burst : 1) * milli_per_token;
}

int budget_class(int cls)
{
	return cls >= 0 && cls < IPC_SA_CLASS_COUNT ? cls : IPC_SA_REFRESH;
}

/* Bring the bucket up to now (a clock that went back adds nothing). */
void budget_refill(struct ipc_sa_budget *b, const struct ipc_sa_budget_cfg *c,
		   u64 now)
{
	s64 cap = budget_cap(c);

	/* A burst lowered since (a module parameter): no more than it. */
	if (b->milli > cap)
		b->milli = cap;
	if (now <= b->at_ms)
		return;
	u64 dt = now - b->at_ms;
	b->at_ms = now;
	/* Long enough to fill it from the deepest debt: full (no overflow). */
	if (dt >= static_cast<u64>(2 * cap) / budget_rate(c) + 1) {
		b->milli = cap;
		return;
	}
	b->milli += static_cast<s64>(dt) * budget_rate(c);
	if (b->milli > cap)
		b->milli = cap;
}

/*
 * When the bucket will hold need whole tokens (now if it does): a request
 * with need - 1 held ahead of it asks again then, not before, so that
 * held requests do not poll while the ones ahead take their turns.
 */
u64 budget_token_at(const struct ipc_sa_budget *b,
		    const struct ipc_sa_budget_cfg *c, u64 now, u32 need)
{
	s64 want = static_cast<s64>(need) * milli_per_token;

	if (b->milli >= want)
		return now;
	u64 short_by = static_cast<u64>(want - b->milli);
	u64 rate = budget_rate(c);

	return after(now, (short_by + rate - 1) / rate);
}

/* Requests held in classes more important than cls (and cls itself, with self). */
u32 budget_held_before(const struct ipc_sa_budget *b, int cls, bool self)
{
	u32 n = 0;

	for (int i = 0; i < cls + (self ? 1 : 0); i++)
		n += b->waiting[i];
	return n;
}

bool budget_spend(struct ipc_sa_budget *b)
{
	if (b->milli < milli_per_token)
		return false;
	b->milli -= milli_per_token;
	return true;
}

} // namespace
} // namespace ipc

using namespace ipc;

/*
 * 50 a second, 128 saved: a node that meets a thousand new destinations
 * at once has asked for all of them within 18 s (128 at once, then 50 a
 * second), and 10,000 nodes together ask at most 500,000 a second even in
 * the worst case, when every one of them spends all it may. What a
 * fabric-wide event costs in practice is set by the spread of rejoins and
 * revalidations, well below that (tests/core/scale prints both).
 */
extern "C" void ipc_sa_budget_cfg_default(struct ipc_sa_budget_cfg *c)
{
	c->rate = 50;
	c->burst = 128;
}

extern "C" void ipc_sa_budget_init(struct ipc_sa_budget *b,
				   const struct ipc_sa_budget_cfg *c,
				   ipc_u64 now)
{
	mem_zero(b, sizeof(*b));
	b->milli = budget_cap(c);
	b->at_ms = now;
}

extern "C" int ipc_sa_budget_ask(struct ipc_sa_budget *b,
				 const struct ipc_sa_budget_cfg *c, ipc_u64 now,
				 int cls, ipc_u64 *retry_at)
{
	cls = budget_class(cls);
	budget_refill(b, c, now);
	if (!budget_held_before(b, cls, true) && budget_spend(b))
		return 1;
	*retry_at = budget_token_at(b, c, now,
				    budget_held_before(b, cls, true) + 1);
	if (b->waiting[cls] < ~0u)
		b->waiting[cls]++;
	return 0;
}

extern "C" int ipc_sa_budget_next(struct ipc_sa_budget *b,
				  const struct ipc_sa_budget_cfg *c,
				  ipc_u64 now, int cls, ipc_u64 *retry_at)
{
	cls = budget_class(cls);
	budget_refill(b, c, now);
	if (!budget_held_before(b, cls, false) && budget_spend(b)) {
		if (b->waiting[cls])
			b->waiting[cls]--;
		return 1;
	}
	*retry_at = budget_token_at(b, c, now,
				    budget_held_before(b, cls, false) + 1);
	return 0;
}

extern "C" void ipc_sa_budget_withdraw(struct ipc_sa_budget *b, int cls)
{
	cls = budget_class(cls);
	if (b->waiting[cls])
		b->waiting[cls]--;
}

extern "C" void ipc_sa_budget_charge(struct ipc_sa_budget *b,
				     const struct ipc_sa_budget_cfg *c,
				     ipc_u64 now)
{
	budget_refill(b, c, now);
	b->milli -= milli_per_token;
	if (b->milli < -budget_cap(c))
		b->milli = -budget_cap(c);
}
