// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Scale model of a fabric-wide client reregister (make scale-model).
 *
 * 10,000 nodes, each a full member of 20 groups, lose every membership at
 * the same instant (SM failover + client reregister) and rejoin. The SA
 * serves joins FIFO at a finite rate; a join arriving while SA_QUEUE_MAX
 * are already waiting is lost, and the node sees -ETIMEDOUT after the MAD
 * timeout, then backs off. Two policies, side by side:
 *
 *   ours     the real core: ipc_mc_flush() with a jittered spread, then
 *            ipc_mc_join_done()/ipc_mc_timer() with equal-jitter backoff
 *            (1 s base, 16 s cap, ipc_mc_cfg_default())
 *   in-tree  every group rejoins at once, retries after 1, 2, 4, 8, 16,
 *            16 ... s, no jitter (drivers/infiniband/ulp/ipoib)
 *
 * Printed per policy: the peak join rate offered to the SA in any one
 * second, the joins it served and lost, and the time until every group is
 * joined again. Exits non-zero only if the model itself is inconsistent.
 */
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <queue>
#include <vector>

extern "C" {
#include "ipoib_core.h"
}

namespace
{

constexpr uint32_t NODES = 10000;
constexpr uint32_t GROUPS = 20;
constexpr uint64_t SA_RATE = 2000; /* joins served per second */
constexpr uint64_t SA_SERVICE_US = 1000000 / SA_RATE;
constexpr uint64_t SA_QUEUE_MAX = 2000; /* one second of work */
constexpr uint64_t MAD_TIMEOUT_US = 1000000; /* a lost join fails after */
constexpr uint64_t HORIZON_US = 4ull * 3600 * 1000000; /* give up: broken */

struct Ev {
	uint64_t t_us;
	uint32_t obj; /* node * GROUPS + group */
	uint8_t kind; /* 0 timer, 1 join answer */
	int32_t arg; /* timer: armed deadline ms tag; answer: status */
	uint64_t seq;
	bool operator>(const Ev &o) const
	{
		return t_us != o.t_us ? t_us > o.t_us : seq > o.seq;
	}
};

struct Report {
	const char *name;
	uint64_t offered = 0, served = 0, lost = 0;
	uint64_t peak_offered = 0, peak_served = 0;
	uint64_t all_joined_us = 0;
	bool ok = true;
};

/* The SA: a FIFO server with a bounded queue. */
class Sa {
public:
	std::vector<uint64_t> offered_per_s, served_per_s;

	/* Returns the answer time and status for a join offered at now. */
	uint64_t offer(uint64_t now, int *status)
	{
		bump(offered_per_s, now);
		uint64_t start = free_at_ > now ? free_at_ : now;
		uint64_t waiting = (start - now) / SA_SERVICE_US;
		if (waiting >= SA_QUEUE_MAX) {
			*status = -IPC_ETIMEDOUT;
			return now + MAD_TIMEOUT_US;
		}
		free_at_ = start + SA_SERVICE_US;
		bump(served_per_s, free_at_);
		*status = 0;
		return free_at_;
	}

private:
	static void bump(std::vector<uint64_t> &v, uint64_t t)
	{
		size_t s = t / 1000000;
		if (v.size() <= s)
			v.resize(s + 1);
		v[s]++;
	}
	uint64_t free_at_ = 0;
};

class Queue {
public:
	void push(uint64_t t, uint32_t obj, uint8_t kind, int32_t arg)
	{
		q_.push(Ev{ t, obj, kind, arg, seq_++ });
	}
	bool pop(Ev *e)
	{
		if (q_.empty())
			return false;
		*e = q_.top();
		q_.pop();
		return true;
	}

private:
	std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> q_;
	uint64_t seq_ = 0;
};

void finish(Report &r, const Sa &sa, uint64_t joined, uint64_t last_us)
{
	for (uint64_t n : sa.offered_per_s)
		r.peak_offered = n > r.peak_offered ? n : r.peak_offered;
	for (uint64_t n : sa.served_per_s)
		r.peak_served = n > r.peak_served ? n : r.peak_served;
	r.all_joined_us = last_us;
	if (joined != uint64_t(NODES) * GROUPS) {
		std::fprintf(stderr, "%s: only %" PRIu64 " of %u joined\n",
			     r.name, joined, NODES * GROUPS);
		r.ok = false;
	}
	if (r.served + r.lost != r.offered || r.served < joined) {
		std::fprintf(stderr, "%s: SA counters inconsistent\n", r.name);
		r.ok = false;
	}
	if (r.peak_served > SA_RATE + 1) {
		std::fprintf(stderr, "%s: SA served above its rate\n", r.name);
		r.ok = false;
	}
}

/* ---- ours: the real core ------------------------------------------------ */

Report run_ours(uint32_t spread_ms, const char *name)
{
	Report rep;
	rep.name = name;
	struct ipc_mc_cfg cfg;
	ipc_mc_cfg_default(&cfg);
	std::vector<struct ipc_mc> mc(NODES * GROUPS);
	std::vector<struct ipc_rng> rng(NODES);
	std::vector<uint64_t> armed(NODES * GROUPS, IPC_NO_DEADLINE);
	Sa sa;
	Queue q;
	uint64_t joined = 0, last_join_us = 0, now_us = 0;
	struct ipc_result r;

	/* Steady state: every group joined. */
	for (uint32_t n = 0; n < NODES; n++) {
		ipc_rng_seed(&rng[n], 0x5ca1e000 + n);
		for (uint32_t g = 0; g < GROUPS; g++) {
			struct ipc_mc *m = &mc[n * GROUPS + g];
			ipc_mc_init(m, IPC_SCOPE_LINK);
			ipc_mc_subscribe(m, &cfg, IPC_JOIN_FULL, 0, &r);
			ipc_mc_join_done(m, &cfg, 0, 0, 0, &rng[n], &r);
		}
	}
	/* Apply a result: start joins, (re)arm the timer, count joins. */
	auto apply = [&](uint32_t obj, const struct ipc_result &res) {
		if (res.actions & IPC_ACT_JOIN) {
			int st;
			uint64_t at = sa.offer(now_us, &st);
			rep.offered++;
			(st ? rep.lost : rep.served)++;
			q.push(at, obj, 1, st);
		}
		if (res.actions & IPC_ACT_ATTACH) {
			joined++;
			last_join_us = now_us;
		}
		if (res.deadline_ms != armed[obj] &&
		    res.deadline_ms != IPC_NO_DEADLINE)
			q.push(res.deadline_ms * 1000, obj, 0, 0);
		armed[obj] = res.deadline_ms;
	};
	/* t = 0: the SA lost everything; every node flushes every group. */
	for (uint32_t n = 0; n < NODES; n++)
		for (uint32_t g = 0; g < GROUPS; g++) {
			uint32_t obj = n * GROUPS + g;
			ipc_mc_flush(&mc[obj], &cfg, 0, spread_ms, &rng[n], &r);
			apply(obj, r);
		}
	Ev e;
	while (q.pop(&e) && e.t_us < HORIZON_US) {
		now_us = e.t_us;
		uint64_t now_ms = now_us / 1000;
		uint32_t node = e.obj / GROUPS;
		if (e.kind == 0) {
			if (armed[e.obj] * 1000 != e.t_us)
				continue; /* re-armed since */
			armed[e.obj] = IPC_NO_DEADLINE;
			ipc_mc_timer(&mc[e.obj], &cfg, now_ms, &rng[node], &r);
		} else {
			ipc_mc_join_done(&mc[e.obj], &cfg, now_ms, e.arg, 0,
					 &rng[node], &r);
		}
		apply(e.obj, r);
	}
	finish(rep, sa, joined, last_join_us);
	return rep;
}

/* ---- in-tree: all at once, 1..16 s doubling, no jitter ---------------- */

Report run_in_tree()
{
	Report rep;
	rep.name = "in-tree";
	std::vector<uint8_t> failures(NODES * GROUPS, 0);
	Sa sa;
	Queue q;
	uint64_t joined = 0, last_join_us = 0;
	auto join = [&](uint64_t now, uint32_t obj) {
		int st;
		uint64_t at = sa.offer(now, &st);
		rep.offered++;
		(st ? rep.lost : rep.served)++;
		q.push(at, obj, 1, st);
	};
	for (uint32_t obj = 0; obj < NODES * GROUPS; obj++)
		join(0, obj);
	Ev e;
	while (q.pop(&e) && e.t_us < HORIZON_US) {
		if (e.kind == 0) {
			join(e.t_us, e.obj);
		} else if (e.arg == 0) {
			joined++;
			last_join_us = e.t_us;
		} else {
			uint8_t f = failures[e.obj]++;
			uint64_t backoff_s = f >= 4 ? 16 : 1u << f;
			q.push(e.t_us + backoff_s * 1000000, e.obj, 0, 0);
		}
	}
	finish(rep, sa, joined, last_join_us);
	return rep;
}

void print(const Report &r)
{
	std::printf("%-22s %12" PRIu64 " %10" PRIu64 " %11" PRIu64 " %11" PRIu64
		    " %14.1f\n",
		    r.name, r.peak_offered, r.peak_served, r.served, r.lost,
		    r.all_joined_us / 1e6);
}

} // namespace

int main()
{
	std::printf("client reregister: %u nodes x %u groups = %u joins; SA "
		    "serves %" PRIu64 "/s FIFO, queue %" PRIu64
		    ", lost joins fail after %" PRIu64 " ms\n\n",
		    NODES, GROUPS, NODES * GROUPS, SA_RATE, SA_QUEUE_MAX,
		    MAD_TIMEOUT_US / 1000);
	std::printf("%-22s %12s %10s %11s %11s %14s\n", "policy",
		    "peak offer/s", "peak srv/s", "served", "lost",
		    "all joined (s)");
	Report reps[] = {
		run_in_tree(),
		run_ours(0, "ours, spread 0 s"),
		run_ours(10000, "ours, spread 10 s"),
		run_ours(60000, "ours, spread 60 s"),
		run_ours(120000, "ours, spread 120 s"),
	};
	bool ok = true;
	for (auto &r : reps) {
		print(r);
		ok = ok && r.ok;
	}
	std::printf("\nlower bound: %u joins / %" PRIu64 " per s = %.1f s\n",
		    NODES * GROUPS, SA_RATE, double(NODES * GROUPS) / SA_RATE);
	return ok ? 0 : 1;
}
