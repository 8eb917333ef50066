// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Scale model of an SM failover and a client reregister (make scale-model).
 *
 * A deterministic simulation, 1 ms steps, of 10,000 nodes, each a full
 * member of 20 groups (the first the broadcast group) and sending to 200
 * destinations, one frame a second to each ("in use"). At T_FAIL the
 * master SM dies: the SA answers nothing for SM_GAP. Then the new master
 * sweeps the subnet: every node sees SM_CHANGE and CLIENT_REREGISTER (two
 * light flushes) at T_RR plus its place in the sweep (0 to 1 s). The SA
 * serves SA_RATE requests a second, FIFO; a request that finds
 * SA_QUEUE_MAX waiting, or the SA down, is lost, and its sender hears
 * -ETIMEDOUT after MAD_TIMEOUT_MS (ib_sa's timeout).
 *
 * Two policies on the same fabric, side by side:
 *
 *   ours     the real core: ipc_path_* (stale-while-revalidate, the
 *            revalidation jitter, the flush spread), ipc_mc_* (the rejoin
 *            spread, jittered backoff) and one ipc_sa_budget per node,
 *            with the shim's held queues (driver/budget.c) played here;
 *            module defaults throughout
 *   in-tree  drivers/infiniband/ulp/ipoib as read: a light flush marks
 *            every path invalid and the next frame to each asks again
 *            (frames queue, 3 at most, while it does; a failed query
 *            drops them); every group is left and rejoined at once,
 *            failures retried after 1, 2, 4, 8, 16, 16 ... s
 *
 * Asserted (the exit status): ours offers the SA at most a tenth of the
 * in-tree peak rate (requests a second, any second of the run); every
 * group and every path of every node is confirmed by the SA again within
 * 60 s of the reregister; ours drops or queues no frame (every path stays
 * valid throughout); and the model's own bookkeeping holds. Printed: the
 * figures of both policies (SCALE_PROFILE=1 in the environment adds
 * ours' requests second by second).
 */
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

extern "C" {
#include "ipoib_core.h"
}

namespace
{

constexpr uint32_t NODES = 10000;
constexpr uint32_t GROUPS = 20;
constexpr uint32_t PATHS = 200;
constexpr uint64_t SA_RATE = 100000; /* requests served a second */
constexpr uint64_t SA_QUEUE_MAX = SA_RATE; /* one second of work */
constexpr uint64_t MAD_TIMEOUT_MS = 1000;
constexpr uint64_t T_BASE = 100000; /* steady state from here */
constexpr uint64_t T_FAIL = T_BASE + 10000; /* the master SM dies */
constexpr uint64_t SM_GAP = 5000; /* until the new one serves */
constexpr uint64_t T_RR = T_FAIL + SM_GAP; /* its sweep starts */
constexpr uint64_t SWEEP_MS = 1000; /* it reaches every node within */
constexpr uint64_t DEADLINE = T_RR + 60000; /* all valid again by */
constexpr uint64_t T_END = T_RR + 90000;
constexpr uint32_t IN_TREE_QUEUE = 3; /* IPOIB_MAX_PATH_REC_QUEUE */

/* ---- the SA ------------------------------------------------------------ */

class Sa {
public:
	std::vector<uint64_t> offered_per_s;
	uint64_t offered = 0, served = 0, lost = 0;

	/* A request at now: when it is answered, and how. */
	uint64_t offer(uint64_t now, int *status)
	{
		size_t s = now / 1000;
		if (offered_per_s.size() <= s)
			offered_per_s.resize(s + 1);
		offered_per_s[s]++;
		offered++;
		uint64_t start = std::max(free_at_us_, now * 1000);
		bool down = now >= T_FAIL && now < T_RR;
		if (down || (start - now * 1000) * SA_RATE / 1000000 >=
				    SA_QUEUE_MAX) {
			lost++;
			*status = -IPC_ETIMEDOUT;
			return now + MAD_TIMEOUT_MS;
		}
		free_at_us_ = start + 1000000 / SA_RATE;
		served++;
		*status = 0;
		return (free_at_us_ + 999) / 1000;
	}
	uint64_t peak() const
	{
		uint64_t p = 0;
		for (uint64_t n : offered_per_s)
			p = std::max(p, n);
		return p;
	}

private:
	uint64_t free_at_us_ = 0;
};

/* ---- a calendar of 1 ms slots ------------------------------------------ */

enum Kind : uint8_t {
	PATH_TIMER,
	PATH_DONE,
	MC_TIMER,
	MC_DONE,
	NODE_WAKE,
	NODE_FLUSH,
};

struct Ev {
	uint32_t obj;
	uint8_t kind;
	int32_t status;
	uint32_t gen;
};

class Calendar {
public:
	Calendar()
		: slots_(T_END + 1)
	{
	}
	void at(uint64_t t, Ev e)
	{
		if (t <= T_END)
			slots_[t].push_back(e);
	}
	std::vector<Ev> &slot(uint64_t t)
	{
		return slots_[t];
	}
	void done(uint64_t t)
	{
		std::vector<Ev>().swap(slots_[t]);
	}

private:
	std::vector<std::vector<Ev>> slots_;
};

/* When node n's part of the new SM's sweep reaches it (both policies). */
uint64_t sweep_at(uint32_t n)
{
	return T_RR + (uint64_t(n) * 7919) % SWEEP_MS;
}

/* The phase (ms in each second) at which path id sends its frame. */
uint32_t phase_of(uint32_t id)
{
	return (uint64_t(id) * 104729) % 1000;
}

/*
 * Both policies' main loop, from ms `from` to T_END: the new SM's sweep
 * scheduled, then each ms's events in order, then from T_BASE on the
 * frames of the paths (ids below `paths`) whose phase that ms is.
 */
template <typename Event, typename Frame>
void play(Calendar &cal, uint64_t &now, uint64_t from, size_t paths,
	  Event event, Frame frame)
{
	for (uint32_t n = 0; n < NODES; n++)
		cal.at(sweep_at(n), Ev{ n, NODE_FLUSH, 0, 0 });
	std::vector<std::vector<uint32_t>> by_phase(1000);
	for (uint32_t id = 0; id < paths; id++)
		by_phase[phase_of(id)].push_back(id);
	for (now = from; now <= T_END; now++) {
		auto &s = cal.slot(now);
		for (size_t i = 0; i < s.size(); i++) {
			Ev e = s[i]; /* event() may add to this slot */
			event(e);
		}
		cal.done(now);
		if (now >= T_BASE)
			for (uint32_t id : by_phase[now % 1000])
				frame(id);
	}
}

struct Figures {
	const char *name;
	uint64_t peak = 0, offered = 0, served = 0, lost = 0;
	uint64_t frames = 0, dropped = 0, queued = 0;
	uint64_t paths_ok_ms = 0, groups_ok_ms = 0; /* last, after T_RR */
	uint64_t paths_late = 0, groups_late = 0; /* not so by DEADLINE */
	uint64_t held = 0; /* ours: requests the budget held */

	/* What the SA saw of this policy. */
	void take(const Sa &sa)
	{
		peak = sa.peak();
		offered = sa.offered;
		served = sa.served;
		lost = sa.lost;
	}
};

/* ---- ours: the real core ------------------------------------------------ */

class Ours {
public:
	Figures f;

	Ours()
		: p_(size_t(NODES) * PATHS), parm_(p_.size(), IPC_NO_DEADLINE),
		  pgen_(p_.size(), 0), pheld_(p_.size(), 0),
		  pok_(p_.size(), 0), m_(size_t(NODES) * GROUPS),
		  marm_(m_.size(), IPC_NO_DEADLINE), mheld_(m_.size(), 0),
		  mok_(m_.size(), 0), node_(NODES)
	{
		f.name = "ours";
		ipc_path_cfg_default(&pc_);
		ipc_mc_cfg_default(&mc_);
		ipc_sa_budget_cfg_default(&bc_);
		for (uint32_t n = 0; n < NODES; n++) {
			ipc_rng_seed(&node_[n].rng, 0x5ca1e000 + n);
			ipc_sa_budget_init(&node_[n].b, &bc_, 0);
		}
	}

	void run()
	{
		steady_state();
		play(
			cal_, now_, T_BASE - 60000, p_.size(),
			[this](const Ev &e) { event(e); },
			[this](uint32_t id) { frame(id); });
		finish();
	}

private:
	struct Node {
		struct ipc_sa_budget b;
		struct ipc_rng rng;
		std::deque<uint32_t> held[IPC_SA_CLASS_COUNT]; /* id, bit 31: group */
		uint64_t wake = IPC_NO_DEADLINE;
	};
	static constexpr uint32_t GROUP_BIT = 1u << 31;

	std::vector<struct ipc_path> p_;
	std::vector<uint64_t> parm_;
	std::vector<uint32_t> pgen_;
	std::vector<uint8_t> pheld_; /* class + 1 while held */
	std::vector<uint8_t> pok_; /* confirmed since T_RR */
	std::vector<struct ipc_mc> m_;
	std::vector<uint64_t> marm_;
	std::vector<uint8_t> mheld_;
	std::vector<uint8_t> mok_;
	std::vector<Node> node_;
	struct ipc_path_cfg pc_;
	struct ipc_mc_cfg mc_;
	struct ipc_sa_budget_cfg bc_;
	Calendar cal_;
	Sa sa_;
	uint64_t now_ = 0;

	static uint32_t node_of_path(uint32_t id)
	{
		return id / PATHS;
	}
	static uint32_t node_of_group(uint32_t id)
	{
		return id / GROUPS;
	}

	/*
	 * Every path VALID, answered at a time drawn from the minute before
	 * T_BASE; run() plays that minute's revalidations (without frames),
	 * so that at T_BASE they are spread as a long run spreads them.
	 */
	void steady_state()
	{
		struct ipc_result r;
		for (uint32_t id = 0; id < p_.size(); id++) {
			Node &nd = node_[node_of_path(id)];
			uint64_t t = T_BASE - 1 - ipc_rng_next(&nd.rng) % 60000;
			ipc_path_init(&p_[id]);
			ipc_path_tx(&p_[id], &pc_, t, &r);
			ipc_path_query_done(&p_[id], &pc_, t, 0, &nd.rng, &r);
			arm_path(id, r.deadline_ms);
		}
		for (uint32_t id = 0; id < m_.size(); id++) {
			Node &nd = node_[node_of_group(id)];
			ipc_mc_init(&m_[id], IPC_SCOPE_LINK);
			ipc_mc_subscribe(&m_[id], &mc_, IPC_JOIN_FULL, 0, &r);
			ipc_mc_join_done(&m_[id], &mc_, 0, 0, 1, &nd.rng, &r);
			arm_group(id, r.deadline_ms);
		}
	}

	/* A timer event at the deadline (now if past); the newest counts. */
	void arm(std::vector<uint64_t> &armed, uint32_t id, uint64_t d,
		 Kind kind)
	{
		if (d != IPC_NO_DEADLINE)
			d = std::max(d, now_);
		if (d != IPC_NO_DEADLINE && d != armed[id])
			cal_.at(d, Ev{ id, kind, 0, 0 });
		armed[id] = d;
	}
	void arm_path(uint32_t id, uint64_t d)
	{
		arm(parm_, id, d, PATH_TIMER);
	}
	void arm_group(uint32_t id, uint64_t d)
	{
		arm(marm_, id, d, MC_TIMER);
	}
	void arm_node(uint32_t n, uint64_t t)
	{
		Node &nd = node_[n];
		t = std::max(t, now_);
		if (nd.wake != IPC_NO_DEADLINE && nd.wake <= t)
			return; /* one already due sooner */
		nd.wake = t;
		cal_.at(t, Ev{ n, NODE_WAKE, 0, 0 });
	}

	/* The SA request of a path or group goes: answered later. */
	void send_path(uint32_t id)
	{
		int st = 0;
		uint64_t at = sa_.offer(now_, &st);
		cal_.at(at, Ev{ id, PATH_DONE, st, pgen_[id] });
	}
	void send_group(uint32_t id)
	{
		int st = 0;
		uint64_t at = sa_.offer(now_, &st);
		cal_.at(at, Ev{ id, MC_DONE, st, 0 });
	}

	/* driver/budget.c's ipn_sa_gate(): true if it goes now. */
	bool gate(uint32_t n, uint32_t key, int cls, uint8_t *held)
	{
		ipc_u64 retry;
		if (*held)
			return false;
		if (ipc_sa_budget_ask(&node_[n].b, &bc_, now_, cls, &retry))
			return true;
		*held = static_cast<uint8_t>(cls + 1);
		node_[n].held[cls].push_back(key);
		f.held++;
		arm_node(n, retry);
		return false;
	}
	void withdraw(uint32_t n, uint8_t *held)
	{
		if (!*held)
			return;
		ipc_sa_budget_withdraw(&node_[n].b, *held - 1);
		*held = 0; /* its queue entry is skipped when reached */
	}

	void apply_path(uint32_t id, const struct ipc_result &r)
	{
		uint32_t n = node_of_path(id);
		if (r.actions & IPC_ACT_CANCEL_QUERY) {
			pgen_[id]++;
			withdraw(n, &pheld_[id]);
		}
		if (r.actions & (IPC_ACT_DROP | IPC_ACT_PURGE_QUEUE |
				 IPC_ACT_DROP_OLDEST))
			f.dropped++;
		uint64_t d = r.deadline_ms;
		if (r.actions & IPC_ACT_START_QUERY) {
			pgen_[id]++;
			if (gate(n, id, ipc_path_sa_class(&p_[id]), &pheld_[id])) {
				send_path(id);
			} else {
				struct ipc_result h;
				ipc_path_query_held(&p_[id], &h);
				d = h.deadline_ms;
			}
		}
		arm_path(id, d);
	}

	void apply_group(uint32_t id, const struct ipc_result &r)
	{
		uint32_t n = node_of_group(id);
		if (r.actions & IPC_ACT_LEAVE)
			withdraw(n, &mheld_[id]);
		uint64_t d = r.deadline_ms;
		if (r.actions & IPC_ACT_JOIN) {
			int cls = ipc_mc_sa_class(&m_[id], id % GROUPS == 0);
			if (gate(n, id | GROUP_BIT, cls, &mheld_[id])) {
				send_group(id);
			} else {
				struct ipc_result h;
				ipc_mc_join_held(&m_[id], &h);
				d = h.deadline_ms;
			}
		}
		if ((r.actions & IPC_ACT_ATTACH) && !mok_[id] &&
		    now_ >= sweep_at(n)) {
			mok_[id] = 1;
			f.groups_ok_ms = std::max(f.groups_ok_ms, now_);
		}
		arm_group(id, d);
	}

	/* driver/budget.c's ipn_sa_release(). */
	void wake(uint32_t n)
	{
		Node &nd = node_[n];
		nd.wake = IPC_NO_DEADLINE;
		for (int c = 0; c < IPC_SA_CLASS_COUNT; c++) {
			auto &q = nd.held[c];
			while (!q.empty()) {
				uint32_t key = q.front();
				bool grp = key & GROUP_BIT;
				uint32_t id = key & ~GROUP_BIT;
				uint8_t *held = grp ? &mheld_[id] : &pheld_[id];
				if (*held != c + 1) { /* withdrawn since */
					q.pop_front();
					continue;
				}
				ipc_u64 retry;
				if (!ipc_sa_budget_next(&nd.b, &bc_, now_, c, &retry)) {
					arm_node(n, retry);
					return;
				}
				q.pop_front();
				*held = 0;
				struct ipc_result r;
				if (grp) {
					ipc_mc_join_sent(&m_[id], &mc_, now_, &r);
					arm_group(id, r.deadline_ms);
					send_group(id);
				} else {
					ipc_path_query_sent(&p_[id], &pc_, now_, &r);
					arm_path(id, r.deadline_ms);
					send_path(id);
				}
			}
		}
	}

	void flush(uint32_t n)
	{
		Node &nd = node_[n];
		struct ipc_result r;
		/*
		 * SM change and client reregister arrive together: one light
		 * flush (both drivers queue one flush work for both events).
		 */
		for (uint32_t j = 0; j < PATHS; j++) {
			uint32_t id = n * PATHS + j;
			ipc_path_flush(&p_[id], &pc_, now_, &nd.rng, &r);
			apply_path(id, r);
		}
		for (uint32_t g = 0; g < GROUPS; g++) {
			uint32_t id = n * GROUPS + g;
			ipc_mc_flush(&m_[id], &mc_, now_,
				     ipc_mc_flush_spread(10000, g == 0),
				     &nd.rng, &r);
			apply_group(id, r);
		}
	}

	void event(const Ev &e)
	{
		struct ipc_result r;
		switch (e.kind) {
		case PATH_TIMER:
			if (parm_[e.obj] != now_)
				return; /* re-armed since */
			parm_[e.obj] = IPC_NO_DEADLINE;
			ipc_path_timer(&p_[e.obj], &pc_, now_,
				       &node_[node_of_path(e.obj)].rng, &r);
			apply_path(e.obj, r);
			return;
		case PATH_DONE:
			if (e.gen != pgen_[e.obj])
				return; /* cancelled */
			pgen_[e.obj]++;
			ipc_path_query_done(&p_[e.obj], &pc_, now_, e.status,
					    &node_[node_of_path(e.obj)].rng, &r);
			if (!e.status && !pok_[e.obj] &&
			    now_ >= sweep_at(node_of_path(e.obj))) {
				pok_[e.obj] = 1;
				f.paths_ok_ms = std::max(f.paths_ok_ms, now_);
			}
			apply_path(e.obj, r);
			return;
		case MC_TIMER:
			if (marm_[e.obj] != now_)
				return;
			marm_[e.obj] = IPC_NO_DEADLINE;
			ipc_mc_timer(&m_[e.obj], &mc_, now_,
				     &node_[node_of_group(e.obj)].rng, &r);
			apply_group(e.obj, r);
			return;
		case MC_DONE:
			ipc_mc_join_done(&m_[e.obj], &mc_, now_, e.status, 1,
					 &node_[node_of_group(e.obj)].rng, &r);
			apply_group(e.obj, r);
			return;
		case NODE_WAKE:
			if (node_[e.obj].wake == now_)
				wake(e.obj);
			return;
		case NODE_FLUSH:
			flush(e.obj);
			return;
		}
	}

	void frame(uint32_t id)
	{
		struct ipc_result r;
		f.frames++;
		ipc_path_tx(&p_[id], &pc_, now_, &r);
		if (!(r.actions & IPC_ACT_SEND))
			f.queued += !!(r.actions & IPC_ACT_QUEUE);
		apply_path(id, r);
	}

	void finish()
	{
		/* SCALE_PROFILE=1: ours' requests, second by second. */
		if (std::getenv("SCALE_PROFILE"))
			for (size_t i = T_BASE / 1000;
			     i < sa_.offered_per_s.size(); i++)
				std::printf("ours t=%zu s: %" PRIu64 "\n",
					    i - T_BASE / 1000,
					    sa_.offered_per_s[i]);
		f.take(sa_);
		for (uint32_t id = 0; id < p_.size(); id++)
			f.paths_late += !pok_[id] ||
					!ipc_path_usable(&p_[id]);
		for (uint32_t id = 0; id < m_.size(); id++) {
			struct ipc_view v;
			ipc_mc_view(&m_[id], &v);
			f.groups_late += !mok_[id] || std::strcmp(v.state, "joined");
		}
	}
};

/* ---- in-tree ------------------------------------------------------------ */

class InTree {
public:
	Figures f;

	InTree()
		: valid_(size_t(NODES) * PATHS, 1), querying_(valid_.size(), 0),
		  queued_(valid_.size(), 0), failures_(size_t(NODES) * GROUPS, 0),
		  mjoined_(failures_.size(), 1)
	{
		f.name = "in-tree";
	}

	void run()
	{
		play(
			cal_, now_, T_BASE, valid_.size(),
			[this](const Ev &e) { event(e); },
			[this](uint32_t id) { frame(id); });
		f.take(sa_);
		for (uint32_t id = 0; id < valid_.size(); id++)
			f.paths_late += !valid_[id];
		for (uint32_t id = 0; id < mjoined_.size(); id++)
			f.groups_late += !mjoined_[id];
	}

private:
	std::vector<uint8_t> valid_, querying_, queued_;
	std::vector<uint8_t> failures_, mjoined_;
	Calendar cal_;
	Sa sa_;
	uint64_t now_ = 0;

	void query(uint32_t id)
	{
		int st = 0;
		uint64_t at = sa_.offer(now_, &st);
		querying_[id] = 1;
		cal_.at(at, Ev{ id, PATH_DONE, st, 0 });
	}
	void join(uint32_t id)
	{
		int st = 0;
		uint64_t at = sa_.offer(now_, &st);
		cal_.at(at, Ev{ id, MC_DONE, st, 0 });
	}

	void frame(uint32_t id)
	{
		f.frames++;
		if (valid_[id])
			return;
		if (queued_[id] >= IN_TREE_QUEUE) {
			f.dropped++;
		} else {
			queued_[id]++;
			f.queued++;
		}
		if (!querying_[id])
			query(id);
	}

	void event(const Ev &e)
	{
		switch (e.kind) {
		case NODE_FLUSH: /* ipoib_mark_paths_invalid, mcast restart */
			for (uint32_t j = 0; j < PATHS; j++)
				valid_[e.obj * PATHS + j] = 0;
			for (uint32_t g = 0; g < GROUPS; g++) {
				uint32_t id = e.obj * GROUPS + g;
				mjoined_[id] = 0;
				failures_[id] = 0;
				join(id);
			}
			return;
		case PATH_DONE:
			querying_[e.obj] = 0;
			if (e.status) {
				f.dropped += queued_[e.obj];
			} else {
				valid_[e.obj] = 1;
				f.paths_ok_ms = std::max(f.paths_ok_ms, now_);
			}
			queued_[e.obj] = 0;
			return;
		case MC_DONE:
			if (!e.status) {
				mjoined_[e.obj] = 1;
				f.groups_ok_ms = std::max(f.groups_ok_ms, now_);
			} else {
				uint8_t n = failures_[e.obj]++;
				uint64_t s = n >= 4 ? 16 : 1u << n;
				cal_.at(now_ + s * 1000, Ev{ e.obj, MC_TIMER, 0, 0 });
			}
			return;
		case MC_TIMER:
			if (!mjoined_[e.obj])
				join(e.obj);
			return;
		}
	}
};

double since_rr(uint64_t t)
{
	return t > T_RR ? (t - T_RR) / 1e3 : 0;
}

void print(const Figures &f, bool held)
{
	char h[24] = "-";
	if (held)
		std::snprintf(h, sizeof(h), "%" PRIu64, f.held);
	std::printf("%-8s %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		    " %9s %9" PRIu64 " %9" PRIu64 " %9.1f %9.1f\n",
		    f.name, f.peak, f.offered, f.lost, h, f.dropped, f.queued,
		    since_rr(f.paths_ok_ms), since_rr(f.groups_ok_ms));
}

bool check(bool cond, const char *what)
{
	if (!cond)
		std::fprintf(stderr, "scale-model: FAIL: %s\n", what);
	return cond;
}

} // namespace

int main()
{
	std::printf("%u nodes x (%u groups, %u paths in use, a frame a second "
		    "each); SM dies at %.0f s, SA silent %.0f s, new SM sweeps "
		    "(SM change + client reregister) within %.0f s; SA serves "
		    "%" PRIu64 "/s, queue %" PRIu64 ", lost requests fail "
		    "after %" PRIu64 " ms\n\n",
		    NODES, GROUPS, PATHS, (T_FAIL - T_BASE) / 1e3, SM_GAP / 1e3,
		    SWEEP_MS / 1e3, SA_RATE, SA_QUEUE_MAX, MAD_TIMEOUT_MS);
	Ours ours;
	ours.run();
	InTree in_tree;
	in_tree.run();
	std::printf("%-8s %10s %10s %10s %9s %9s %9s %9s %9s\n", "policy",
		    "peak req/s", "requests", "lost", "held", "dropped",
		    "queued", "paths ok", "groups ok");
	print(ours.f, true);
	print(in_tree.f, false);
	std::printf("\n(paths ok, groups ok: seconds after the reregister at "
		    "which the last was confirmed)\n");
	std::printf("peak ratio ours / in-tree: %.4f (must be <= 0.1)\n",
		    double(ours.f.peak) / double(in_tree.f.peak));
	std::printf("ours, not confirmed again within 60 s: %" PRIu64
		    " paths, %" PRIu64 " groups\n",
		    ours.f.paths_late, ours.f.groups_late);
	bool ok = true;
	ok &= check(ours.f.peak * 10 <= in_tree.f.peak,
		    "peak SA request rate above a tenth of in-tree's");
	ok &= check(ours.f.paths_late == 0 && ours.f.groups_late == 0,
		    "a path or group not valid again by the end");
	ok &= check(ours.f.paths_ok_ms <= DEADLINE &&
			    ours.f.groups_ok_ms <= DEADLINE,
		    "the last confirmation later than 60 s after the reregister");
	ok &= check(ours.f.dropped == 0 && ours.f.queued == 0,
		    "ours dropped or queued a frame to a valid path");
	ok &= check(ours.f.frames == in_tree.f.frames &&
			    ours.f.frames >= uint64_t(NODES) * PATHS *
						     ((T_END - T_BASE) / 1000),
		    "the model's frame count");
	ok &= check(ours.f.served + ours.f.lost == ours.f.offered &&
			    in_tree.f.served + in_tree.f.lost ==
				    in_tree.f.offered,
		    "the SA's counters");
	ok &= check(in_tree.f.paths_late == 0,
		    "the in-tree model did not recover either (model broken)");
	return ok ? 0 : 1;
}
