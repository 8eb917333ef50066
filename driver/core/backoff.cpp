// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * backoff.cpp - the seeded generator and the retry delay policy shared by
 * the path and multicast machines.
 */
#include "core.hpp"

namespace ipc
{
namespace
{

/* splitmix64 scrambles the seed; xorshift64* produces the stream. */
constexpr u64 splitmix64(u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

constexpr u64 xorshift_mult = 0x2545f4914f6cdd1dull;
/* xorshift64* has one forbidden state: zero. */
constexpr u64 rng_nonzero = 0x853c49e6748fea9bull;

/* min(cap, base << (attempt - 1)) without overflowing 32 bits. */
constexpr u32 backoff_ceiling(u32 base, u32 cap, u32 attempt)
{
	u32 shift = attempt ? attempt - 1 : 0;

	if (shift >= 32 || base > (cap >> shift))
		return cap;
	return base << shift;
}

} // namespace
} // namespace ipc

using namespace ipc;

extern "C" void ipc_rng_seed(struct ipc_rng *r, ipc_u64 seed)
{
	u64 s = splitmix64(seed);

	r->s = s ? s : rng_nonzero;
}

extern "C" ipc_u32 ipc_rng_next(struct ipc_rng *r)
{
	u64 x = r->s ? r->s : rng_nonzero; /* tolerate an unseeded zero */

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return static_cast<u32>((x * xorshift_mult) >> 32);
}

/*
 * "Equal jitter": half of the exponential delay is kept, the other half is
 * random, so a fabric of nodes that failed together retries spread over
 * [d/2, d] instead of in one burst, yet each node still backs off. attempt
 * 0 counts as 1; r NULL gives the deterministic ceiling d.
 */
extern "C" ipc_u32 ipc_backoff_ms(const struct ipc_backoff_cfg *c,
				  ipc_u32 attempt, struct ipc_rng *r)
{
	u32 d = backoff_ceiling(c->base_ms, c->cap_ms, attempt);

	return rng_between(r, d / 2, d);
}
