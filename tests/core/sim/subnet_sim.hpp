// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A simulated IB subnet on a virtual clock for model tests of the path and
 * multicast machines: nodes run the real core through a small shim model
 * (packet queues, query/join handles with cancellation, address handles,
 * QP attachments, timers armed at the returned deadline), and a simulated
 * subnet administrator answers path queries and joins after a random
 * delay (so answers reorder), fails some and never answers others.
 *
 * Paths follow driver/path.c's contract, not an ideal one: the packet side
 * of a verdict happens at once, the rest (START/CANCEL_QUERY, FLUSH_QUEUE,
 * FREE) is OR-merged into the entry's pending ops and performed by a
 * control work that runs a little later, in ipn_path_run()'s order; the
 * backend's answers come back through a callback that records them with
 * the query's generation and queues DONE. ShimConfig::old_path_contract
 * puts back the shim of 7312acf (review H1) so that tests can show the
 * checker catches it.
 *
 *   node 0 ---\                   /--- SA: path records, MCMemberRecords
 *   node 1 ----+-- fabric (ideal) -+     delay [min,max] ms, fail_p, drop_p
 *   node N ---/                   \--- group exists <=> a FULL member
 *
 * Every action is checked against the shim's own state: a query started
 * in the backend with one outstanding, a cancelled query's completion fed
 * to the core, a path freed with its query outstanding (its callback then
 * runs on freed memory), a SEND without an address handle or an SA
 * membership, a DETACH without ATTACH, a FREE with packets held, or a core
 * `queued` that differs from the shim's queue is a test failure (for
 * paths: counted per Violation, and a failure unless ShimConfig::strict
 * is cleared).
 */
#ifndef IPOIB_SUBNET_SIM_HPP
#define IPOIB_SUBNET_SIM_HPP

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <random>
#include <set>
#include <vector>

#include "core_test.hpp"

namespace sim
{

using ct::Gid;

/* ---- virtual clock ------------------------------------------------------ */

class Loop {
public:
	uint64_t now = 0;

	void at(uint64_t t, std::function<void()> fn)
	{
		q_.push(Ev{ t < now ? now : t, seq_++, std::move(fn) });
	}
	void after(uint64_t ms, std::function<void()> fn)
	{
		at(now + ms, std::move(fn));
	}
	void run_until(uint64_t t)
	{
		while (!q_.empty() && q_.top().t <= t) {
			Ev e = q_.top();
			q_.pop();
			now = e.t;
			e.fn();
		}
		now = t;
	}
	size_t pending() const
	{
		return q_.size();
	}

private:
	struct Ev {
		uint64_t t;
		uint64_t seq;
		std::function<void()> fn;
		bool operator>(const Ev &o) const
		{
			return t != o.t ? t > o.t : seq > o.seq;
		}
	};
	std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> q_;
	uint64_t seq_ = 0;
};

/* ---- subnet administrator ------------------------------------------- */

struct SaConfig {
	uint32_t min_delay_ms = 1;
	uint32_t max_delay_ms = 50;
	double fail_p = 0; /* answered with -ETIMEDOUT/-EINVAL/... */
	double drop_p = 0; /* never answered */
	bool path_exists = true;
};

class Sa {
public:
	Sa(Loop &loop, uint64_t seed)
		: loop_(loop)
		, gen_(seed)
	{
	}
	SaConfig cfg;
	uint64_t path_queries = 0, joins = 0, leaves = 0;

	/* Answer (status) later, or never. */
	void path_query(std::function<void(int)> cb)
	{
		path_queries++;
		answer(cfg.path_exists ? 0 : -IPC_EHOSTUNREACH, std::move(cb));
	}
	void join(const Gid &mgid, int node, int type,
		  std::function<void(int)> cb)
	{
		joins++;
		/* s10: a send-only join does not create the group. */
		int ok = (type == IPC_JOIN_SENDONLY && !exists(mgid)) ?
				 -IPC_ENOENT :
				 0;
		answer(ok, [this, mgid, node, type, cb](int st) {
			if (st == 0)
				members_[mgid][node].insert(type);
			cb(st);
		});
	}
	/* One membership (one join handle) of that type is freed. */
	void leave(const Gid &mgid, int node, int type)
	{
		leaves++;
		auto it = members_.find(mgid);
		if (it == members_.end() || !it->second.count(node))
			return;
		auto &types = it->second[node];
		auto t = types.find(type);
		if (t != types.end())
			types.erase(t);
		if (types.empty())
			it->second.erase(node);
		if (it->second.empty())
			members_.erase(it);
	}
	bool exists(const Gid &mgid) const
	{
		auto it = members_.find(mgid);
		if (it == members_.end())
			return false;
		for (auto &m : it->second)
			if (m.second.count(IPC_JOIN_FULL))
				return true;
		return false;
	}
	bool member(const Gid &mgid, int node) const
	{
		auto it = members_.find(mgid);
		return it != members_.end() && it->second.count(node);
	}
	/* Nodes that receive the group (FULL and NON members). */
	std::vector<int> receivers(const Gid &mgid) const
	{
		std::vector<int> out;
		auto it = members_.find(mgid);
		if (it != members_.end())
			for (auto &m : it->second)
				if (m.second.count(IPC_JOIN_FULL) ||
				    m.second.count(IPC_JOIN_NON))
					out.push_back(m.first);
		return out;
	}
	/* Client reregister after an SM failover: memberships forgotten. */
	void forget_all()
	{
		members_.clear();
	}

private:
	void answer(int status, std::function<void(int)> cb)
	{
		std::uniform_real_distribution<double> u(0, 1);
		if (u(gen_) < cfg.drop_p)
			return;
		if (status == 0 && u(gen_) < cfg.fail_p) {
			static const int errs[] = { -IPC_ETIMEDOUT, -IPC_EAGAIN,
						    -IPC_ENETRESET };
			status = errs[gen_() % 3];
		}
		std::uniform_int_distribution<uint32_t> d(cfg.min_delay_ms,
							  cfg.max_delay_ms);
		loop_.after(d(gen_), [status, cb] { cb(status); });
	}
	Loop &loop_;
	std::mt19937_64 gen_;
	std::map<Gid, std::map<int, std::multiset<int>>> members_;
};

/* ---- the shim's path contract ------------------------------------------- */

/*
 * How a node's shim carries out path verdicts (driver/path.c). The packet
 * side of a verdict (DROP_OLDEST, QUEUE, PURGE_QUEUE, RELEASE_AH and
 * xmit's SEND) is done at once, under priv->lock; START_QUERY,
 * CANCEL_QUERY, FLUSH_QUEUE and FREE become ops OR-merged into the entry
 * (ipn_path_apply()) and are performed by the control work, which runs
 * [ctl_min_delay_ms, ctl_max_delay_ms] after it is kicked (ctl_work waits
 * for rtnl): a timeout's CANCEL, a retry's START and a completion's DONE
 * can meet in one run. A light flush and interface down run the work at
 * once (ipn_path_flush_all(), ipn_path_destroy_all()).
 */
struct ShimConfig {
	uint32_t ctl_min_delay_ms = 1;
	uint32_t ctl_max_delay_ms = 1;
	/* path_query() is done at once (0), as RoCE for a link-local GID. */
	double query_now_p = 0;
	/*
	 * A cancel finds the query's callback already running: ib_sa cannot
	 * stop it, path_cancel() waits for it, and it has queued its answer
	 * (status 0) by then, for the generation being cancelled.
	 */
	double cancel_race_p = 0;
	/*
	 * ipn_path_run() of 7312acf (review H1): no cancel when QUERY is
	 * pending too, so two queries of a path can be outstanding, and
	 * every completion is fed to the core, after the new query started.
	 */
	bool old_path_contract = false;
	/* A violation fails the test; false: only counted (meta-tests). */
	bool strict = true;
};

/* What the path checker counts (Node::shim_stats). */
enum Violation {
	V_TWO_QUERIES, /* a query started in the backend with one outstanding */
	V_CANCELLED_ANSWER, /* a cancelled query's completion fed to the core */
	V_FREE_WITH_QUERY, /* a path freed with a query outstanding */
	V_USE_AFTER_FREE, /* a query's callback ran on a freed path */
	V_OTHER, /* any other broken path invariant */
	V_COUNT,
};

struct ShimStats {
	uint64_t violations[V_COUNT] = {};
	uint64_t runs = 0; /* entries the control work ran */
	uint64_t cancel_and_query = 0; /* runs with CANCEL and QUERY merged */
	uint64_t cancel_and_done = 0; /* runs with CANCEL and DONE merged */
	uint64_t stale_answers = 0; /* DONE of an old generation, dropped */
	uint64_t queries_now = 0; /* path_query() done at once */
	uint64_t cancel_races = 0; /* answers queued by a cancelled query */
	uint64_t violations_total() const
	{
		uint64_t n = 0;
		for (auto v : violations)
			n += v;
		return n;
	}
	void add(const ShimStats &o)
	{
		for (int v = 0; v < V_COUNT; v++)
			violations[v] += o.violations[v];
		runs += o.runs;
		cancel_and_query += o.cancel_and_query;
		cancel_and_done += o.cancel_and_done;
		stale_answers += o.stale_answers;
		queries_now += o.queries_now;
		cancel_races += o.cancel_races;
	}
};

/* ---- packets ---------------------------------------------------------- */

struct Stats {
	uint64_t sent = 0, delivered = 0, to_routers = 0;
	uint64_t dropped[IPC_R_COUNT] = {};
	uint64_t dropped_total() const
	{
		uint64_t n = 0;
		for (auto d : dropped)
			n += d;
		return n;
	}
};

/* ---- a node: the shim model around the real core ---------------------- */

class Subnet;

class Node {
public:
	Node(Subnet &net, int id);

	int id;
	uint32_t qpn;
	Gid gid;
	struct ipc_ifid ifid;
	struct ipc_rng rng;
	struct ipc_path_cfg pcfg;
	struct ipc_mc_cfg mcfg;
	Stats stats;

	/* IPv4 multicast groups in host order: 0xe0000001 is 224.0.0.1. */
	Gid mgid_of(uint32_t group) const
	{
		const uint8_t g[4] = { uint8_t(group >> 24),
				       uint8_t(group >> 16),
				       uint8_t(group >> 8), uint8_t(group) };
		Gid m{};
		ct::mgid_v4(g, ifid.bcast_gid, m.data());
		return m;
	}
	void send_unicast(int dst);
	void send_mcast(uint32_t group);
	void subscribe(uint32_t group, int type = IPC_JOIN_FULL);
	void unsubscribe(uint32_t group, int type = IPC_JOIN_FULL);
	/* A light flush: paths revalidate, groups rejoin within spread. */
	void flush(uint32_t spread_ms);
	void destroy_all();

	bool path_valid(int dst) const
	{
		return path_state(dst) == IPC_PATH_VALID;
	}
	/* The core state of the path to dst in the hash, -1 when none. */
	int path_state(int dst) const
	{
		auto it = paths_.find(dst);
		if (it == paths_.end())
			return -1;
		return path_objs_.at(it->second).core.state;
	}
	int mc_state(uint32_t group) const
	{
		auto it = groups_.find(mgid_of(group));
		return it == groups_.end() ? -1 : it->second.core.state;
	}
	uint8_t mc_joined(uint32_t group) const
	{
		auto it = groups_.find(mgid_of(group));
		return it == groups_.end() ? 0 : it->second.core.joined;
	}
	size_t npaths() const
	{
		return paths_.size();
	}
	/* Path queries outstanding in the backend, freed entries' too. */
	size_t queries_outstanding() const
	{
		return sa_live_.size();
	}
	size_t ngroups() const
	{
		return groups_.size();
	}
	size_t held() const;
	bool routers_joined = false;
	ShimStats shim_stats;

private:
	/* struct ipn_path's ops: what the control work has to do. */
	enum : uint32_t {
		OP_QUERY = 1u << 0,
		OP_CANCEL = 1u << 1,
		OP_FREE = 1u << 2,
		OP_DONE = 1u << 3, /* a completion to feed the core */
		OP_FLUSH_QUEUE = 1u << 4,
	};
	/* struct ipn_path: in the hash, or dead until the work frees it. */
	struct Path {
		struct ipc_path core;
		int dst = -1;
		std::deque<uint64_t> q; /* path->queue */
		size_t released = 0; /* FLUSH_QUEUE'd, the work to splice */
		bool ah = false;
		uint64_t timer_at = IPC_NO_DEADLINE;
		uint64_t gen = 0; /* the entry's id */
		bool dead = false; /* FREE seen: off the hash */
		bool on_work = false; /* on path_work_ */
		uint32_t ops = 0; /* OP_* pending */
		bool querying = false;
		uint32_t query_gen = 0, done_gen = 0;
		int query_status = 0;
		/* The backend's handle (path->sa_query): the query started
		 * last; any callback clears it, as ipn_ib_path_done() does. */
		uint64_t sa_query = 0;
		/* The checker's own: no driver counterpart. */
		uint64_t done_qid = 0; /* the query query_status is of */
		uint64_t last_qid = 0; /* the query started last */
		uint64_t cancelled_upto = 0; /* the core cancelled these */
	};
	struct Group {
		struct ipc_mc core;
		std::deque<uint64_t> q;
		uint64_t join = 0; /* outstanding join id, 0 none */
		int join_type = 0;
		bool member = false; /* holds an SA membership */
		bool attached = false;
		uint64_t timer_at = IPC_NO_DEADLINE;
		uint64_t gen = 0;
	};

	Path &path_get(int dst);
	Group &group(uint32_t group);
	void violation(Violation v, const char *what);
	/* xmit of pkt to dst: the core's verdict, carried out. */
	void path_xmit(int dst, uint64_t pkt);
	void path_apply(Path &p, const ipc_result &r, uint64_t pkt);
	void path_packet(Path &p, uint32_t a, const ipc_result &r,
			 uint64_t pkt);
	void path_queue_ops(Path &p, uint32_t ops);
	void ctl_kick();
	void path_run();
	void path_run_ops(Path &p, uint32_t ops);
	void path_run_ops_7312acf(Path &p, uint32_t ops);
	void path_cancel(Path &p);
	void path_query_complete(Path &p, int status, uint64_t qid);
	void path_free(Path &p);
	bool backend_busy(const Path &p) const;
	int backend_query(Path &p, uint64_t *qid);
	void backend_cancel(Path &p);
	void backend_done(uint64_t qid, int status);
	void mc_apply(const Gid &mgid, const ipc_result &r, uint64_t pkt);
	/* mod_timer(): (re)arm obj's timer; fire(obj) runs at the deadline
	 * unless the object was freed or re-armed since. */
	template <typename Map, typename Key, typename Fire>
	void arm(Map &objs, const Key &key, uint64_t deadline, Fire fire);
	/* One packet action of a result, on the shim's own queue
	 * (DROP_OLDEST, QUEUE, SEND, DROP, PURGE_QUEUE, FLUSH_QUEUE via
	 * deliver); the caller checks the core's count after the last. */
	template <typename Deliver>
	void packet_action(std::deque<uint64_t> &q, uint32_t a,
			   const ipc_result &r, uint64_t pkt, Deliver deliver);
	void mc_join(const Gid &mgid, Group &g, int type);
	void deliver_unicast(Path &p, uint64_t pkt);
	void deliver_mcast(const Gid &mgid, uint64_t pkt);
	void drop(int reason, uint64_t n = 1);

	Subnet &net_;
	std::map<int, uint64_t> paths_; /* the hash: dst -> entry */
	std::map<uint64_t, Path> path_objs_; /* every entry, dead ones too */
	std::deque<uint64_t> path_work_; /* priv->path_work */
	bool ctl_queued_ = false; /* ctl_work pending */
	std::map<uint64_t, uint64_t> sa_live_; /* backend: query -> entry */
	std::map<Gid, Group> groups_;
	uint64_t next_id_ = 1;
};

class Subnet {
public:
	Subnet(int n, uint64_t seed)
		: sa(loop, seed)
		, shim_gen_(seed ^ 0x5817ull)
	{
		for (int i = 0; i < n; i++)
			nodes.push_back(std::make_unique<Node>(*this, i));
	}
	Loop loop;
	Sa sa;
	ShimConfig shim;
	std::vector<std::unique_ptr<Node>> nodes;
	uint64_t next_pkt = 1;
	uint64_t received = 0;
	/* Per (src, dst): last unicast packet id received, for ordering. */
	std::map<std::pair<int, int>, uint64_t> last_seen;
	uint16_t pkey = 0xffff;
	uint8_t scope = IPC_SCOPE_LINK;

	Node &operator[](int i)
	{
		return *nodes[i];
	}
	Stats total() const
	{
		Stats t;
		for (auto &n : nodes) {
			t.sent += n->stats.sent;
			t.delivered += n->stats.delivered;
			t.to_routers += n->stats.to_routers;
			for (int r = 0; r < IPC_R_COUNT; r++)
				t.dropped[r] += n->stats.dropped[r];
		}
		return t;
	}
	ShimStats shim_total() const
	{
		ShimStats t;
		for (auto &n : nodes)
			t.add(n->shim_stats);
		return t;
	}
	/* How long a kicked control work waits (for rtnl). */
	uint32_t ctl_delay()
	{
		std::uniform_int_distribution<uint32_t> d(
			shim.ctl_min_delay_ms,
			std::max(shim.ctl_min_delay_ms, shim.ctl_max_delay_ms));
		return d(shim_gen_);
	}
	bool shim_chance(double p)
	{
		std::uniform_real_distribution<double> u(0, 1);
		return p > 0 && u(shim_gen_) < p;
	}
	/* Packets still held in some shim queue. */
	uint64_t held() const
	{
		uint64_t h = 0;
		for (auto &n : nodes)
			h += n->held();
		return h;
	}
	void expect_accounted() const
	{
		Stats t = total();
		EXPECT_EQ(t.sent, t.delivered + t.to_routers +
					  t.dropped_total() + held())
			<< "a packet vanished or was counted twice";
	}
	/* A frame as it arrives at dst: classified by the real core. */
	void receive(int src, int dst, const Gid *dgid, uint64_t pkt)
	{
		Node &s = *nodes[src];
		Node &d = *nodes[dst];
		uint8_t frame[24];
		ipc_hdr_build(IPC_ETH_P_IP, frame);
		std::memcpy(frame + 4, &pkt, sizeof(pkt));
		struct ipc_rx_verdict v;
		int rc = ipc_rx_classify(&d.ifid, s.gid.data(),
					 dgid ? dgid->data() : d.gid.data(),
					 s.qpn, frame, sizeof(frame), &v);
		if (src == dst) {
			EXPECT_EQ(rc, IPC_R_LOOPBACK);
			return;
		}
		ASSERT_EQ(rc, IPC_R_OK);
		EXPECT_EQ(v.has_src, 1);
		EXPECT_EQ(ct::hex(v.src_addr + 4, 16), ct::hex(s.gid));
		if (!dgid) {
			EXPECT_EQ(v.pkt_type, IPC_PKT_HOST);
			/* Unicast to one destination arrives in order. */
			uint64_t &last = last_seen[{ src, dst }];
			EXPECT_GT(pkt, last)
				<< "reordered " << src << "->" << dst;
			last = pkt;
		} else {
			EXPECT_EQ(v.pkt_type, IPC_PKT_MULTICAST);
		}
		received++;
	}

private:
	std::mt19937_64 shim_gen_; /* control work delays, backend */
};

/* ---- Node implementation ------------------------------------------------ */

inline Node::Node(Subnet &net, int id_)
	: id(id_)
	, net_(net)
{
	qpn = 0x100 + id;
	gid = ct::gid("fe80::2:c903:0:0");
	gid[14] = static_cast<uint8_t>(id >> 8);
	gid[15] = static_cast<uint8_t>(id);
	ifid = ct::ifid(qpn, gid, net.pkey, net.scope);
	ipc_rng_seed(&rng, 1000 + id);
	ipc_path_cfg_default(&pcfg);
	ipc_mc_cfg_default(&mcfg);
}

inline size_t Node::held() const
{
	size_t h = 0;
	for (auto &p : path_objs_)
		h += p.second.q.size();
	for (auto &g : groups_)
		h += g.second.q.size();
	return h;
}

/* ipn_path_get(): the entry in the hash, or a new one. */
inline Node::Path &Node::path_get(int dst)
{
	auto it = paths_.find(dst);
	if (it != paths_.end())
		return path_objs_.at(it->second);
	uint64_t id = next_id_++;
	Path &p = path_objs_.emplace(id, Path{}).first->second;
	ipc_path_init(&p.core);
	p.dst = dst;
	p.gen = id;
	paths_[dst] = id;
	return p;
}

inline Node::Group &Node::group(uint32_t ip)
{
	Gid mgid = mgid_of(ip);
	auto it = groups_.find(mgid);
	if (it == groups_.end()) {
		const uint8_t g[4] = { uint8_t(ip >> 24), uint8_t(ip >> 16),
				       uint8_t(ip >> 8), uint8_t(ip) };
		it = groups_.emplace(mgid, Group{}).first;
		ipc_mc_init(&it->second.core, ipc_ipv4_mc_scope(g));
		it->second.gen = next_id_++;
	}
	return it->second;
}

inline void Node::drop(int reason, uint64_t n)
{
	ASSERT_GT(reason, IPC_R_OK);
	ASSERT_LT(reason, IPC_R_COUNT);
	stats.dropped[reason] += n;
}

inline void Node::violation(Violation v, const char *what)
{
	shim_stats.violations[v]++;
	if (net_.shim.strict)
		ADD_FAILURE() << "node " << id << ": " << what;
}

/* xmit: ipn_tx_take_ah() drops what the core would send without one. */
inline void Node::deliver_unicast(Path &p, uint64_t pkt)
{
	if (!p.ah) {
		violation(V_OTHER, "SEND without an address handle");
		drop(IPC_R_NO_ROUTE);
		return;
	}
	stats.delivered++;
	net_.receive(id, p.dst, nullptr, pkt);
}

inline void Node::deliver_mcast(const Gid &mgid, uint64_t pkt)
{
	ASSERT_TRUE(net_.sa.member(mgid, id)) << "SEND without a membership";
	stats.delivered++;
	for (int r : net_.sa.receivers(mgid))
		net_.receive(id, r, &mgid, pkt);
}

inline void Node::send_unicast(int dst)
{
	uint64_t pkt = net_.next_pkt++;
	/* What the stack hands the shim: the 20-byte hardware address. */
	Node &d = net_[dst];
	ct::Hw hw = ct::hw(IPC_ADDR_FLAG_CM, d.qpn, d.gid);
	struct ipc_tx_verdict v;
	ASSERT_EQ(ipc_tx_classify(&ifid, hw.data(), &v), IPC_R_OK);
	ASSERT_EQ(v.kind, IPC_TX_UNICAST);
	stats.sent++;
	path_xmit(dst, pkt);
}

inline void Node::path_xmit(int dst, uint64_t pkt)
{
	Path &p = path_get(dst);
	struct ipc_result r;
	ipc_path_tx(&p.core, &pcfg, net_.loop.now, &r);
	path_apply(p, r, pkt);
}

/*
 * Every action of a result, in the order the core declares
 * (IPC_ACT_ORDER): the shim's apply functions walk it the same way.
 */
template <typename F> inline void for_each_action(uint32_t actions, F f)
{
	static constexpr uint32_t order[] = { IPC_ACT_ORDER };

	for (uint32_t a : order)
		if (actions & a)
			f(a);
}

/*
 * ipn_queue_apply() and xmit's SEND: one packet action of a path verdict,
 * at once. The packet the verdict is about goes at QUEUE's place: queued,
 * sent, or dropped. FLUSH_QUEUE only marks the queue released: the
 * control work splices it and sends it through xmit again
 * (ipn_xmit_list()).
 */
inline void Node::path_packet(Path &p, uint32_t a, const ipc_result &r,
			      uint64_t pkt)
{
	int reason = r.reason ? int(r.reason) : int(IPC_R_NO_ROUTE);

	switch (a) {
	case IPC_ACT_DROP_OLDEST:
		if (p.q.empty()) {
			violation(V_OTHER, "DROP_OLDEST of an empty queue");
		} else {
			p.q.pop_front();
			if (p.released)
				p.released--;
			drop(IPC_R_QUEUE_FULL);
		}
		break;
	case IPC_ACT_QUEUE:
		if (pkt)
			p.q.push_back(pkt);
		break;
	case IPC_ACT_SEND:
		if (pkt && !(r.actions & IPC_ACT_QUEUE))
			deliver_unicast(p, pkt);
		break;
	case IPC_ACT_DROP:
		if (pkt && !(r.actions & (IPC_ACT_QUEUE | IPC_ACT_SEND)))
			drop(reason);
		break;
	case IPC_ACT_PURGE_QUEUE:
		if (p.q.empty())
			violation(V_OTHER, "PURGE_QUEUE of an empty queue");
		drop(reason, p.q.size());
		p.q.clear();
		p.released = 0;
		break;
	case IPC_ACT_FLUSH_QUEUE:
		if (p.q.size() == p.released)
			violation(V_OTHER, "FLUSH_QUEUE of an empty queue");
		p.released = p.q.size();
		break;
	}
}

/*
 * ipn_path_apply(): the core's verdict on p, about pkt (0: none), walked
 * in IPC_ACT_ORDER. The core's CANCEL_QUERY cancels every query started
 * so far: from now on none of their completions may reach it.
 */
inline void Node::path_apply(Path &p, const ipc_result &r, uint64_t pkt)
{
	const uint32_t pkt_acts = IPC_ACT_QUEUE | IPC_ACT_SEND | IPC_ACT_DROP;
	uint32_t ops = 0;

	/* A packet with no verdict of its own is dropped (ipn_queue_apply). */
	if (pkt && !(r.actions & pkt_acts)) {
		drop(r.reason ? int(r.reason) : int(IPC_R_NO_ROUTE));
		pkt = 0;
	}
	for_each_action(r.actions, [&](uint32_t a) {
		switch (a) {
		case IPC_ACT_CANCEL_QUERY:
			if (!p.querying && !(p.ops & OP_QUERY))
				violation(V_OTHER, "CANCEL_QUERY without a query");
			p.cancelled_upto = p.last_qid;
			ops |= OP_CANCEL;
			/* ipn_path_apply(): a start not yet run goes with it. */
			if (!net_.shim.old_path_contract)
				p.ops &= ~OP_QUERY;
			break;
		case IPC_ACT_RELEASE_AH:
			p.ah = false;
			break;
		case IPC_ACT_DROP_OLDEST:
		case IPC_ACT_QUEUE:
		case IPC_ACT_SEND:
		case IPC_ACT_DROP:
		case IPC_ACT_PURGE_QUEUE:
			path_packet(p, a, r, pkt);
			break;
		case IPC_ACT_FLUSH_QUEUE:
			path_packet(p, a, r, pkt);
			ops |= OP_FLUSH_QUEUE;
			break;
		case IPC_ACT_START_QUERY:
			ops |= OP_QUERY;
			break;
		case IPC_ACT_FREE:
			if (!p.q.empty())
				violation(V_OTHER, "FREE with packets held");
			if (p.ah)
				violation(V_OTHER, "FREE without RELEASE_AH");
			paths_.erase(p.dst);
			p.dead = true;
			ops |= OP_FREE;
			break;
		default:
			violation(V_OTHER, "an action no path takes");
			break;
		}
	});
	if (size_t(p.core.queued) != p.q.size() - p.released)
		violation(V_OTHER, "core and shim disagree on the queue");
	if (ops)
		path_queue_ops(p, ops);
	if (r.actions & IPC_ACT_FREE)
		return;
	arm(path_objs_, p.gen, r.deadline_ms, [this](Path &o) {
		if (o.dead) /* off the hash: ipn_path_timers() misses it */
			return;
		struct ipc_result res;
		ipc_path_timer(&o.core, &pcfg, net_.loop.now, &rng, &res);
		path_apply(o, res, 0);
	});
}

/* ipn_path_queue_ops() */
inline void Node::path_queue_ops(Path &p, uint32_t ops)
{
	p.ops |= ops;
	if (!p.on_work) {
		p.on_work = true;
		path_work_.push_back(p.gen);
	}
	ctl_kick();
}

/*
 * ipn_ctl_kick(): queue_work() of ctl_work, a no-op while it is pending;
 * once it runs, a kick queues it again.
 */
inline void Node::ctl_kick()
{
	if (ctl_queued_)
		return;
	ctl_queued_ = true;
	net_.loop.after(net_.ctl_delay(), [this] {
		ctl_queued_ = false;
		path_run();
	});
}

/*
 * ipn_path_run(): entry after entry until none has ops pending (a
 * completion fed to the core here can queue more, FLUSH_QUEUE above all).
 */
inline void Node::path_run()
{
	while (!path_work_.empty()) {
		Path &p = path_objs_.at(path_work_.front());
		path_work_.pop_front();
		p.on_work = false;
		uint32_t ops = p.ops;
		p.ops = 0;
		std::deque<uint64_t> flush;
		if (ops & OP_FLUSH_QUEUE) {
			flush.swap(p.q);
			p.released = 0;
		}
		shim_stats.runs++;
		if ((ops & OP_CANCEL) && (ops & OP_QUERY))
			shim_stats.cancel_and_query++;
		if ((ops & OP_CANCEL) && (ops & OP_DONE))
			shim_stats.cancel_and_done++;
		if (net_.shim.old_path_contract)
			path_run_ops_7312acf(p, ops);
		else
			path_run_ops(p, ops);
		for (uint64_t pkt : flush)
			path_xmit(p.dst, pkt);
		if (ops & OP_FREE) {
			if (net_.shim.old_path_contract && p.querying)
				backend_cancel(p);
			path_free(p);
		}
	}
}

/*
 * The fixed contract: any outstanding query is cancelled before anything
 * else (CANCEL, FREE, or a new QUERY: at most one is ever outstanding); a
 * completion is fed only if it is of the current generation and no
 * cancel came with it.
 */
inline void Node::path_run_ops(Path &p, uint32_t ops)
{
	if (ops & (OP_CANCEL | OP_FREE | OP_QUERY))
		path_cancel(p);
	if ((ops & OP_DONE) && !(ops & (OP_CANCEL | OP_FREE))) {
		if (p.querying && p.done_gen == p.query_gen)
			path_query_complete(p, p.query_status, p.done_qid);
		else
			shim_stats.stale_answers++;
	}
	if ((ops & OP_QUERY) && !(ops & OP_FREE)) {
		uint64_t qid;
		p.querying = true;
		p.query_gen++;
		int ret = backend_query(p, &qid);
		if (ret <= 0) /* done now (1: completion later) */
			path_query_complete(p, ret, qid);
	}
}

/*
 * git show 7312acf:driver/path.c, ipn_path_run(): the cancel is skipped
 * when QUERY is pending too, the new query starts with the old one
 * outstanding, and then the old one's completion is fed to the core.
 */
inline void Node::path_run_ops_7312acf(Path &p, uint32_t ops)
{
	if (ops & OP_QUERY)
		p.querying = true;
	if ((ops & (OP_CANCEL | OP_FREE)) && p.querying && !(ops & OP_QUERY))
		backend_cancel(p);
	if ((ops & OP_QUERY) && !(ops & OP_FREE)) {
		uint64_t qid;
		int ret = backend_query(p, &qid);
		if (ret <= 0)
			path_query_complete(p, ret, qid);
	}
	if ((ops & OP_DONE) && !(ops & OP_FREE))
		path_query_complete(p, p.query_status, p.done_qid);
}

/*
 * ipn_path_cancel(): the outstanding query is gone and its callback
 * cannot run any more; a completion it already queued is of an old
 * generation from now on.
 */
inline void Node::path_cancel(Path &p)
{
	if (!p.querying)
		return;
	backend_cancel(p);
	p.querying = false;
	p.query_gen++;
}

/* ipn_path_query_complete(): qid is the checker's, not the driver's. */
inline void Node::path_query_complete(Path &p, int status, uint64_t qid)
{
	p.querying = false;
	if (p.dead)
		return;
	if (qid <= p.cancelled_upto)
		violation(V_CANCELLED_ANSWER,
			  "a cancelled query's completion reached the core");
	if (status == 0)
		p.ah = true; /* built from the record */
	struct ipc_result res;
	ipc_path_query_done(&p.core, &pcfg, net_.loop.now, status, &rng, &res);
	path_apply(p, res, 0);
}

/* The FREE op: the entry goes; its query must have gone before. */
inline void Node::path_free(Path &p)
{
	if (backend_busy(p))
		violation(V_FREE_WITH_QUERY,
			  "FREE with a query outstanding: its callback will "
			  "use the freed path");
	if (!p.q.empty()) { /* __skb_queue_purge(): counted nowhere */
		violation(V_OTHER, "FREE with packets held");
		drop(IPC_R_LINK_DOWN, p.q.size());
	}
	path_objs_.erase(p.gen);
}

/* ---- the backend (sa.c, InfiniBand) -------------------------------- */

/* path->sa_busy: a query of p is outstanding. */
inline bool Node::backend_busy(const Path &p) const
{
	for (auto &l : sa_live_)
		if (l.second == p.gen)
			return true;
	return false;
}

/*
 * ipn_ib_path_query(): 1, the answer comes through backend_done(), or 0,
 * done now. With a query outstanding, the fixed backend refuses (-EBUSY,
 * WARN_ON_ONCE); 7312acf's overwrote path->sa_query.
 */
inline int Node::backend_query(Path &p, uint64_t *qid)
{
	*qid = next_id_++;
	p.last_qid = *qid;
	if (backend_busy(p)) {
		violation(V_TWO_QUERIES,
			  "START_QUERY with a query outstanding");
		if (!net_.shim.old_path_contract)
			return -IPC_EBUSY;
	}
	if (net_.shim_chance(net_.shim.query_now_p)) {
		shim_stats.queries_now++;
		return 0;
	}
	sa_live_[*qid] = p.gen;
	p.sa_query = *qid;
	uint64_t q = *qid;
	net_.sa.path_query([this, q](int st) { backend_done(q, st); });
	return 1;
}

/*
 * ipn_ib_path_cancel(): the query whose handle is kept, synchronously;
 * ib_sa calls it back with -EINTR, which does not report, unless the
 * callback was running already (cancel_race_p): then it reports.
 */
inline void Node::backend_cancel(Path &p)
{
	if (!p.sa_query)
		return;
	if (net_.shim_chance(net_.shim.cancel_race_p)) {
		shim_stats.cancel_races++;
		backend_done(p.sa_query, 0);
		return;
	}
	sa_live_.erase(p.sa_query);
	p.sa_query = 0;
}

/*
 * ipn_ib_path_done() and ipn_path_query_async_done(): the answer, with
 * the generation of the query it belongs to, for the control work.
 */
inline void Node::backend_done(uint64_t qid, int status)
{
	auto it = sa_live_.find(qid);
	if (it == sa_live_.end())
		return; /* cancelled */
	uint64_t entry = it->second;
	sa_live_.erase(it);
	auto po = path_objs_.find(entry);
	if (po == path_objs_.end()) {
		violation(V_USE_AFTER_FREE,
			  "a query's callback ran on a freed path");
		return;
	}
	Path &p = po->second;
	p.sa_query = 0;
	if (p.dead)
		return;
	p.query_status = status;
	p.done_gen = p.query_gen;
	p.done_qid = qid;
	path_queue_ops(p, OP_DONE);
}

template <typename Map, typename Key, typename Fire>
inline void Node::arm(Map &objs, const Key &key, uint64_t deadline, Fire fire)
{
	auto &o = objs.at(key);
	if (deadline == o.timer_at)
		return; /* mod_timer to the same expiry */
	o.timer_at = deadline;
	if (deadline == IPC_NO_DEADLINE)
		return;
	uint64_t gen = o.gen;
	net_.loop.at(deadline, [&objs, key, gen, deadline, fire] {
		auto it = objs.find(key);
		if (it == objs.end() || it->second.gen != gen ||
		    it->second.timer_at != deadline)
			return;
		it->second.timer_at = IPC_NO_DEADLINE;
		fire(it->second);
	});
}

template <typename Deliver>
inline void Node::packet_action(std::deque<uint64_t> &q, uint32_t a,
				const ipc_result &r, uint64_t pkt,
				Deliver deliver)
{
	switch (a) {
	case IPC_ACT_DROP_OLDEST:
		EXPECT_FALSE(q.empty()) << "DROP_OLDEST of an empty queue";
		if (q.empty())
			return;
		q.pop_front();
		drop(r.reason);
		break;
	case IPC_ACT_QUEUE:
		q.push_back(pkt);
		break;
	case IPC_ACT_SEND:
		deliver(pkt);
		break;
	case IPC_ACT_DROP:
		drop(r.reason);
		break;
	case IPC_ACT_PURGE_QUEUE:
		EXPECT_FALSE(q.empty()) << "PURGE_QUEUE of an empty queue";
		drop(r.reason, q.size());
		q.clear();
		break;
	case IPC_ACT_FLUSH_QUEUE:
		EXPECT_FALSE(q.empty()) << "FLUSH_QUEUE of an empty queue";
		while (!q.empty()) {
			uint64_t first = q.front();
			q.pop_front();
			deliver(first);
		}
		break;
	}
}

inline void Node::send_mcast(uint32_t ip)
{
	Gid mgid = mgid_of(ip);
	uint64_t pkt = net_.next_pkt++;
	ct::Hw hw = ct::hw(0, IPC_QPN_MCAST, mgid);
	struct ipc_tx_verdict v;
	ASSERT_EQ(ipc_tx_classify(&ifid, hw.data(), &v), IPC_R_OK);
	ASSERT_EQ(v.kind, IPC_TX_MULTICAST);
	stats.sent++;
	Group &g = group(ip);
	struct ipc_result r;
	ipc_mc_tx(&g.core, &mcfg, net_.loop.now, routers_joined, &r);
	mc_apply(mgid, r, pkt);
}

inline void Node::subscribe(uint32_t ip, int type)
{
	Gid mgid = mgid_of(ip);
	Group &g = group(ip);
	struct ipc_result r;
	ipc_mc_subscribe(&g.core, &mcfg, type, net_.loop.now, &r);
	mc_apply(mgid, r, 0);
}

inline void Node::unsubscribe(uint32_t ip, int type)
{
	Gid mgid = mgid_of(ip);
	Group &g = group(ip);
	struct ipc_result r;
	ipc_mc_unsubscribe(&g.core, &mcfg, type, net_.loop.now, &r);
	mc_apply(mgid, r, 0);
}

inline void Node::mc_apply(const Gid &mgid, const ipc_result &r, uint64_t pkt)
{
	Group &g = groups_.at(mgid);
	auto deliver = [this, mgid](uint64_t q) { deliver_mcast(mgid, q); };

	for_each_action(r.actions, [&](uint32_t a) {
		switch (a) {
		case IPC_ACT_DETACH:
			EXPECT_TRUE(g.attached) << "DETACH without ATTACH";
			g.attached = false;
			break;
		case IPC_ACT_LEAVE:
			/* Cancels the outstanding join, or frees the membership. */
			EXPECT_TRUE(g.join || g.member) << "LEAVE of nothing";
			if (g.join)
				g.join = 0;
			else
				net_.sa.leave(mgid, id, g.join_type);
			g.member = false;
			break;
		case IPC_ACT_DROP_OLDEST:
		case IPC_ACT_QUEUE:
		case IPC_ACT_SEND:
		case IPC_ACT_DROP:
		case IPC_ACT_PURGE_QUEUE:
		case IPC_ACT_FLUSH_QUEUE:
			packet_action(g.q, a, r, pkt, deliver);
			break;
		case IPC_ACT_TO_ROUTERS: {
			EXPECT_TRUE(routers_joined);
			uint64_t n = pkt ? 1 : g.q.size();
			if (!pkt)
				g.q.clear();
			stats.to_routers += n;
			break;
		}
		case IPC_ACT_JOIN:
			mc_join(mgid, g, r.join_type);
			break;
		case IPC_ACT_ATTACH:
			EXPECT_FALSE(g.attached);
			EXPECT_TRUE(g.member);
			EXPECT_NE(g.join_type, IPC_JOIN_SENDONLY);
			g.attached = true;
			break;
		case IPC_ACT_LOG:
			break;
		case IPC_ACT_FREE:
			EXPECT_TRUE(g.q.empty());
			EXPECT_EQ(g.join, 0u) << "FREE with a join outstanding";
			EXPECT_FALSE(g.member) << "FREE while holding a membership";
			EXPECT_FALSE(g.attached) << "FREE while attached";
			break;
		default:
			ADD_FAILURE() << "an action no group takes: " << a;
			break;
		}
	});
	EXPECT_EQ(g.core.queued, g.q.size()) << "core and shim disagree";
	if (r.actions & IPC_ACT_FREE) {
		groups_.erase(mgid);
		return;
	}
	arm(groups_, mgid, r.deadline_ms, [this, mgid](Group &o) {
		struct ipc_result res;
		ipc_mc_timer(&o.core, &mcfg, net_.loop.now, &rng, &res);
		mc_apply(mgid, res, 0);
	});
}

/* The JOIN action: the SA's answer comes back through the event loop. */
inline void Node::mc_join(const Gid &mgid, Group &g, int type)
{
	EXPECT_EQ(g.join, 0u) << "JOIN with a join outstanding";
	EXPECT_FALSE(g.member) << "JOIN while holding a membership";
	EXPECT_NE(type, IPC_JOIN_NONE);
	uint64_t jid = next_id_++;
	g.join = jid;
	g.join_type = type;
	uint64_t gen = g.gen;
	net_.sa.join(mgid, id, type, [this, mgid, jid, gen, type](int st) {
		auto it = groups_.find(mgid);
		if (it == groups_.end() || it->second.gen != gen ||
		    it->second.join != jid) {
			/* Cancelled: a membership it made is freed. */
			if (st == 0)
				net_.sa.leave(mgid, id, type);
			return;
		}
		it->second.join = 0;
		it->second.member = st == 0;
		struct ipc_result res;
		ipc_mc_join_done(&it->second.core, &mcfg, net_.loop.now, st,
				 routers_joined, &rng, &res);
		mc_apply(mgid, res, 0);
	});
}

inline void Node::flush(uint32_t spread_ms)
{
	/* ipn_path_flush_all(): the control work's part at once. */
	std::vector<int> dsts;
	for (auto &p : paths_)
		dsts.push_back(p.first);
	for (int d : dsts) {
		Path &p = path_get(d);
		struct ipc_result r;
		ipc_path_flush(&p.core, &pcfg, net_.loop.now, &rng, &r);
		path_apply(p, r, 0);
	}
	path_run();
	std::vector<Gid> gs;
	for (auto &g : groups_)
		gs.push_back(g.first);
	for (auto &m : gs) {
		struct ipc_result r;
		ipc_mc_flush(&groups_.at(m).core, &mcfg, net_.loop.now,
			     spread_ms, &rng, &r);
		mc_apply(m, r, 0);
	}
}

inline void Node::destroy_all()
{
	/* ipn_path_destroy_all(): every entry freed by the work, now. */
	std::vector<int> dsts;
	for (auto &p : paths_)
		dsts.push_back(p.first);
	for (int d : dsts) {
		Path &p = path_get(d);
		struct ipc_result r;
		ipc_path_destroy(&p.core, &r);
		EXPECT_TRUE(r.actions & IPC_ACT_FREE);
		r.actions |= IPC_ACT_FREE;
		r.deadline_ms = IPC_NO_DEADLINE;
		path_apply(p, r, 0);
	}
	path_run();
	std::vector<Gid> gs;
	for (auto &g : groups_)
		gs.push_back(g.first);
	for (auto &m : gs) {
		struct ipc_result r;
		ipc_mc_destroy(&groups_.at(m).core, &r);
		EXPECT_TRUE(r.actions & IPC_ACT_FREE);
		mc_apply(m, r, 0);
	}
	EXPECT_EQ(paths_.size(), 0u);
	EXPECT_EQ(path_objs_.size(), 0u);
	EXPECT_EQ(groups_.size(), 0u);
}

} // namespace sim

#endif
