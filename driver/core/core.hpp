/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * core.hpp - what every file of the C++ core shares: the allowed subset of
 * the language (enforced by poisoning), byte helpers, the error-as-value
 * types and the state-machine result builder. Included only by core .cpp
 * files; the shim sees ipoib_core.h alone.
 */
#ifndef IPOIB_CORE_HPP
#define IPOIB_CORE_HPP

#include <stddef.h>
#include <stdint.h>

#include "ipoib_core.h"

/*
 * The freestanding subset (Documentation/cxx-in-kernel.rst): no std, no libc but
 * mem*, no heap, no floating point, no TLS, no RTTI, no dynamic dispatch,
 * nothing that needs libgcc. A slip is a compile error here rather than a
 * modpost or load failure later.
 */
#pragma GCC poison std malloc calloc realloc free strlen strcmp strcpy
#pragma GCC poison strncpy sprintf snprintf printf abort exit
#pragma GCC poison float double thread_local wchar_t typeid dynamic_cast
#pragma GCC poison virtual __int128 __builtin_popcount __builtin_popcountl
#pragma GCC poison __builtin_popcountll

/*
 * Everything internal has internal linkage (an unnamed namespace): the
 * kernel builds the core as one unity translation unit, so nothing may
 * become a COMDAT group or a global symbol other than the extern "C" API.
 */
namespace ipc
{
namespace
{

using u8 = ipc_u8;
using u16 = ipc_u16;
using u32 = ipc_u32;
using u64 = ipc_u64;
using s32 = ipc_s32;
using s64 = ipc_s64;

static_assert(sizeof(u8) == 1 && sizeof(u16) == 2, "ipc_u8/ipc_u16 width");
static_assert(sizeof(u32) == 4 && sizeof(u64) == 8, "ipc_u32/ipc_u64 width");
static_assert(sizeof(struct ipc_result) == 16, "ipc_result layout");
static_assert(sizeof(struct ipc_path) == 32, "ipc_path layout");
static_assert(sizeof(struct ipc_mc) == 32, "ipc_mc layout");
static_assert(sizeof(struct ipc_link) == 16, "ipc_link layout");

/* ---- bytes ---------------------------------------------------------- */

inline void mem_copy(void *dst, const void *src, size_t n)
{
	__builtin_memcpy(dst, src, n);
}

inline void mem_zero(void *dst, size_t n)
{
	__builtin_memset(dst, 0, n);
}

inline bool mem_equal(const void *a, const void *b, size_t n)
{
	return __builtin_memcmp(a, b, n) == 0;
}

constexpr u16 load_be16(const u8 *p)
{
	return static_cast<u16>((p[0] << 8) | p[1]);
}

constexpr u32 load_be24(const u8 *p)
{
	return (static_cast<u32>(p[0]) << 16) | (static_cast<u32>(p[1]) << 8) |
	       p[2];
}

constexpr void store_be16(u8 *p, u16 v)
{
	p[0] = static_cast<u8>(v >> 8);
	p[1] = static_cast<u8>(v);
}

constexpr void store_be24(u8 *p, u32 v)
{
	p[0] = static_cast<u8>(v >> 16);
	p[1] = static_cast<u8>(v >> 8);
	p[2] = static_cast<u8>(v);
}

/* Host-order 64-bit load of 8 unaligned bytes (for hashing only). */
inline u64 load_host64(const u8 *p)
{
	u64 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

template <typename T> constexpr T min_of(T a, T b)
{
	return a < b ? a : b;
}

/* ---- errors as values --------------------------------------------- */

/*
 * A status: 0 or a positive errno internally; to_errno() bridges it to the
 * negative errno the C boundary returns.
 */
class [[nodiscard]] Status {
public:
	static constexpr Status ok()
	{
		return Status(0);
	}
	static constexpr Status err(ipc_errno e)
	{
		return Status(static_cast<int>(e));
	}
	constexpr bool is_ok() const
	{
		return err_ == 0;
	}
	constexpr int to_errno() const
	{
		return -err_;
	}

private:
	constexpr explicit Status(int e)
		: err_(e)
	{
	}
	int err_;
};

/* A value or a Status; the value is meaningful only when is_ok(). */
template <typename T> class [[nodiscard]] Result {
public:
	constexpr Result(T v)
		: val_(v)
		, st_(Status::ok()) // NOLINT
	{
	}
	constexpr Result(Status s)
		: val_()
		, st_(s) // NOLINT
	{
	}
	constexpr bool is_ok() const
	{
		return st_.is_ok();
	}
	constexpr const T &value() const
	{
		return val_;
	}
	constexpr Status status() const
	{
		return st_;
	}

private:
	T val_;
	Status st_;
};

/* Propagate a failed Status out of the calling function. */
#define IPC_TRY(expr)                        \
	do {                                 \
		::ipc::Status st__ = (expr); \
		if (!st__.is_ok())           \
			return st__;         \
	} while (0)

/* A packet/payload verdict: IPC_R_OK or why it is rejected. */
class [[nodiscard]] Verdict {
public:
	constexpr Verdict(ipc_reason r)
		: r_(r) // NOLINT
	{
	}
	constexpr bool is_ok() const
	{
		return r_ == IPC_R_OK;
	}
	constexpr int to_int() const
	{
		return static_cast<int>(r_);
	}

private:
	ipc_reason r_;
};

/* ---- link-layer address fields (s9.1.1) --------------------------- */

constexpr u32 addr_qpn(const u8 *a)
{
	return load_be24(a + 1);
}

constexpr const u8 *addr_gid(const u8 *a)
{
	return a + 4;
}

constexpr bool gid_is_mcast(const u8 *gid)
{
	return gid[0] == 0xff;
}

inline bool gid_is_zero(const u8 *gid)
{
	u8 acc = 0;

	for (int i = 0; i < IPC_GID_LEN; i++)
		acc |= gid[i];
	return acc == 0;
}

/* The multicast QPN with a multicast GID. */
constexpr bool addr_is_mcast(const u8 *a)
{
	return addr_qpn(a) == IPC_QPN_MCAST && gid_is_mcast(addr_gid(a));
}

/*
 * A unicast endpoint that may appear as a sender or neighbour: QPN neither
 * 0 nor the multicast QPN, GID neither zero nor multicast.
 */
inline bool addr_is_unicast_endpoint(const u8 *a)
{
	u32 qpn = addr_qpn(a);

	return qpn != 0 && qpn != IPC_QPN_MCAST && !gid_is_mcast(addr_gid(a)) &&
	       !gid_is_zero(addr_gid(a));
}

/* ---- randomness --------------------------------------------------- */

/*
 * Uniform in [lo, hi] (lo <= hi) by multiply-shift of a 32-bit draw: no
 * division, bias below 2^-32 per value. hi when r is NULL.
 */
inline u32 rng_between(struct ipc_rng *r, u32 lo, u32 hi)
{
	u64 span = static_cast<u64>(hi - lo) + 1;

	if (!r)
		return hi;
	return lo + static_cast<u32>((ipc_rng_next(r) * span) >> 32);
}

/* ---- state machine results ---------------------------------------- */

/* A view with nothing in it: every field set, no memset. */
inline void view_clear(struct ipc_view *v)
{
	v->state = "";
	v->attempts = 0;
	v->want = 0;
	v->joined = 0;
	v->pending = 0;
	v->queued = 0;
	v->pad = 0;
	v->last_status = 0;
	v->members = 0;
	v->deadline_ms = IPC_NO_DEADLINE;
}

/*
 * IPC_ACT_ORDER (ipoib_core.h) names every action once, and puts what
 * must come first first: checked when the core is compiled.
 */
namespace act_order
{
constexpr u32 list[] = { IPC_ACT_ORDER };
constexpr u32 count = sizeof(list) / sizeof(list[0]);

constexpr bool each_once()
{
	u32 seen = 0;

	for (u32 a : list) {
		if (!a || (a & (a - 1)) || (seen & a))
			return false;
		seen |= a;
	}
	return seen == IPC_ACT_ALL;
}

constexpr u32 at(u32 a)
{
	for (u32 i = 0; i < count; i++)
		if (list[i] == a)
			return i;
	return count;
}

static_assert(count == IPC_ACT_COUNT && each_once(),
	      "IPC_ACT_ORDER: each action exactly once");
static_assert((IPC_ACT_AT_VERDICT & ~IPC_ACT_ALL) == 0, "IPC_ACT_AT_VERDICT");
static_assert(at(IPC_ACT_FREE) == count - 1, "FREE last");
static_assert(at(IPC_ACT_CANCEL_QUERY) < at(IPC_ACT_START_QUERY) &&
		      at(IPC_ACT_DETACH) < at(IPC_ACT_LEAVE) &&
		      at(IPC_ACT_LEAVE) < at(IPC_ACT_JOIN) &&
		      at(IPC_ACT_JOIN) < at(IPC_ACT_ATTACH) &&
		      at(IPC_ACT_DISCONNECT) < at(IPC_ACT_CONNECT),
	      "the old ended before the new starts");
static_assert(at(IPC_ACT_DROP_OLDEST) < at(IPC_ACT_QUEUE) &&
		      at(IPC_ACT_QUEUE) < at(IPC_ACT_PURGE_QUEUE) &&
		      at(IPC_ACT_QUEUE) < at(IPC_ACT_FLUSH_QUEUE),
	      "room made, the packet queued, then the queue handed on");
} // namespace act_order

/*
 * Builder of an ipc_result. Every machine entry point starts from
 * Out::begin(r) so that no stale action leaks from a previous call.
 */
class Out {
public:
	static Out begin(struct ipc_result *r)
	{
		r->actions = 0;
		r->reason = IPC_R_OK;
		r->join_type = IPC_JOIN_NONE;
		r->pad = 0;
		r->deadline_ms = IPC_NO_DEADLINE;
		return Out(r);
	}
	void act(u32 a)
	{
		r_->actions |= a;
	}
	void act(u32 a, ipc_reason why)
	{
		r_->actions |= a;
		r_->reason = static_cast<u8>(why);
	}
	/* The reason of a machine's own LOG (enum ipc_am_log). */
	void why(u8 code)
	{
		r_->reason = code;
	}
	void join(u8 type)
	{
		r_->actions |= IPC_ACT_JOIN;
		r_->join_type = type;
	}
	void deadline(u64 d)
	{
		r_->deadline_ms = d;
	}

private:
	explicit Out(struct ipc_result *r)
		: r_(r)
	{
	}
	struct ipc_result *r_;
};

/*
 * Wait-queue accounting shared by the path and multicast machines. The
 * shim holds the packets, the core the count, written only here and in the
 * same call that returns the action. At the limit the oldest packet is
 * dropped so that the newest data wins (it is the likelier to still matter
 * when the wait ends); that drop counts as IPC_R_QUEUE_FULL.
 */
inline void queue_hold(Out &out, u16 *queued, u16 max)
{
	if (max == 0) {
		out.act(IPC_ACT_DROP, IPC_R_QUEUE_FULL);
	} else if (*queued >= max) {
		out.act(IPC_ACT_DROP_OLDEST | IPC_ACT_QUEUE, IPC_R_QUEUE_FULL);
		*queued = max;
	} else {
		out.act(IPC_ACT_QUEUE);
		(*queued)++;
	}
}

/* Hand every held packet over with action a (FLUSH_QUEUE, TO_ROUTERS). */
inline void queue_release(Out &out, u16 *queued, u32 a)
{
	if (*queued)
		out.act(a);
	*queued = 0;
}

inline void queue_purge(Out &out, u16 *queued, ipc_reason why)
{
	if (*queued)
		out.act(IPC_ACT_PURGE_QUEUE, why);
	*queued = 0;
}

/* Attempt counters are 8 bits wide: they saturate. */
inline void count_attempt(u8 *attempts)
{
	if (*attempts < 0xff)
		(*attempts)++;
}

/*
 * One call into a state machine: its object (the shim's memory), the
 * config, the time, the generator (NULL where the event draws nothing) and
 * the result being built. Obj has u8 state and u64 deadline_ms.
 */
template <typename Obj, typename Cfg> struct Call {
	Obj *obj;
	const Cfg *c;
	u64 now;
	struct ipc_rng *rng;
	Out out;

	Call(Obj *o, const Cfg *cfg, u64 t, struct ipc_rng *g,
	     struct ipc_result *r)
		: obj(o)
		, c(cfg)
		, now(t)
		, rng(g)
		, out(Out::begin(r))
	{
	}
	/* The state byte as the enum; out of range is corrupt memory, which
	 * the handlers answer with FREE. */
	template <typename State> State state() const
	{
		return static_cast<State>(obj->state);
	}
	/* Enter next and report the deadline the object now has. */
	template <typename State> void commit(State next)
	{
		obj->state = static_cast<u8>(next);
		out.deadline(obj->deadline_ms);
	}
};

/* now + ms, saturating below IPC_NO_DEADLINE. */
constexpr u64 after(u64 now, u64 ms)
{
	return now + ms < now || now + ms == IPC_NO_DEADLINE ?
		       IPC_NO_DEADLINE - 1 :
		       now + ms;
}

/* Static name from a table, "unknown" out of range: never NULL. */
template <size_t N>
constexpr const char *name_of(const char *const (&table)[N], int i)
{
	return i >= 0 && static_cast<size_t>(i) < N && table[i] ? table[i] :
								  "unknown";
}

} // namespace
} // namespace ipc

#endif /* IPOIB_CORE_HPP */
