// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A simulated IB subnet on a virtual clock for model tests of the path and
 * multicast machines: nodes run the real core through a small shim model
 * (packet queues, query/join handles with cancellation, address handles,
 * QP attachments, timers armed at the returned deadline), and a simulated
 * subnet administrator answers path queries and joins after a random
 * delay (so answers reorder), fails some and never answers others.
 *
 *   node 0 ---\                   /--- SA: path records, MCMemberRecords
 *   node 1 ----+-- fabric (ideal) -+     delay [min,max] ms, fail_p, drop_p
 *   node N ---/                   \--- group exists <=> a FULL member
 *
 * Every action is checked against the shim's own state: a START_QUERY
 * with a query outstanding, a SEND without an address handle or an SA
 * membership, a DETACH without ATTACH, a FREE with packets held, or a core
 * `queued` that differs from the shim's queue is a test failure.
 */
#ifndef IPOIB_SUBNET_SIM_HPP
#define IPOIB_SUBNET_SIM_HPP

#include <gtest/gtest.h>

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
		ipc_mgid_from_ipv4(g, ifid.bcast_gid, m.data());
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
		auto it = paths_.find(dst);
		return it != paths_.end() &&
		       it->second.core.state == IPC_PATH_VALID;
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
	size_t ngroups() const
	{
		return groups_.size();
	}
	size_t held() const;
	bool routers_joined = false;

private:
	struct Path {
		struct ipc_path core;
		std::deque<uint64_t> q;
		uint64_t query = 0; /* outstanding query id, 0 none */
		bool ah = false;
		uint64_t timer_at = IPC_NO_DEADLINE;
		uint64_t gen = 0;
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

	Path &path(int dst);
	Group &group(uint32_t group);
	void path_apply(int dst, const ipc_result &r, uint64_t pkt);
	void mc_apply(const Gid &mgid, const ipc_result &r, uint64_t pkt);
	/* mod_timer(): (re)arm obj's timer; fire(obj) runs at the deadline
	 * unless the object was freed or re-armed since. */
	template <typename Map, typename Key, typename Fire>
	void arm(Map &objs, const Key &key, uint64_t deadline, Fire fire);
	/* The packet side of a result, on the shim's own queue: PURGE,
	 * DROP_OLDEST, QUEUE, DROP, SEND and FLUSH_QUEUE via deliver(pkt);
	 * then the core's count must equal the queue's length. */
	template <typename Deliver>
	void packet_actions(std::deque<uint64_t> &q, const ipc_result &r,
			    uint64_t pkt, uint16_t core_queued,
			    Deliver deliver);
	void deliver_unicast(int dst, uint64_t pkt);
	void deliver_mcast(const Gid &mgid, uint64_t pkt);
	void drop(int reason, uint64_t n = 1);

	Subnet &net_;
	std::map<int, Path> paths_;
	std::map<Gid, Group> groups_;
	uint64_t next_id_ = 1;
};

class Subnet {
public:
	Subnet(int n, uint64_t seed)
		: sa(loop, seed)
	{
		for (int i = 0; i < n; i++)
			nodes.push_back(std::make_unique<Node>(*this, i));
	}
	Loop loop;
	Sa sa;
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
	for (auto &p : paths_)
		h += p.second.q.size();
	for (auto &g : groups_)
		h += g.second.q.size();
	return h;
}

inline Node::Path &Node::path(int dst)
{
	auto it = paths_.find(dst);
	if (it == paths_.end()) {
		it = paths_.emplace(dst, Path{}).first;
		ipc_path_init(&it->second.core);
		it->second.gen = next_id_++;
	}
	return it->second;
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

inline void Node::deliver_unicast(int dst, uint64_t pkt)
{
	Path &p = paths_.at(dst);
	ASSERT_TRUE(p.ah) << "SEND without an address handle";
	stats.delivered++;
	net_.receive(id, dst, nullptr, pkt);
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
	Path &p = path(dst);
	struct ipc_result r;
	ipc_path_tx(&p.core, &pcfg, net_.loop.now, &r);
	path_apply(dst, r, pkt);
}

inline void Node::path_apply(int dst, const ipc_result &r, uint64_t pkt)
{
	Path &p = paths_.at(dst);
	uint32_t a = r.actions;
	if (a & IPC_ACT_CANCEL_QUERY) {
		EXPECT_NE(p.query, 0u) << "CANCEL_QUERY without a query";
		p.query = 0;
	}
	if (a & IPC_ACT_RELEASE_AH)
		p.ah = false;
	if (a & IPC_ACT_START_QUERY) {
		EXPECT_EQ(p.query, 0u)
			<< "START_QUERY with a query outstanding";
		uint64_t qid = next_id_++;
		p.query = qid;
		uint64_t gen = p.gen;
		net_.sa.path_query([this, dst, qid, gen](int st) {
			auto it = paths_.find(dst);
			/* The shim drops completions of cancelled queries. */
			if (it == paths_.end() || it->second.gen != gen ||
			    it->second.query != qid)
				return;
			it->second.query = 0;
			if (st == 0)
				it->second.ah =
					true; /* built from the record */
			struct ipc_result res;
			ipc_path_query_done(&it->second.core, &pcfg,
					    net_.loop.now, st, &rng, &res);
			path_apply(dst, res, 0);
		});
	}
	packet_actions(p.q, r, pkt, p.core.queued,
		       [this, dst](uint64_t q) { deliver_unicast(dst, q); });
	if (a & IPC_ACT_FREE) {
		EXPECT_TRUE(p.q.empty());
		EXPECT_EQ(p.query, 0u) << "FREE with a query outstanding";
		EXPECT_FALSE(p.ah) << "FREE without RELEASE_AH";
		paths_.erase(dst);
		return;
	}
	arm(paths_, dst, r.deadline_ms, [this, dst](Path &o) {
		struct ipc_result res;
		ipc_path_timer(&o.core, &pcfg, net_.loop.now, &rng, &res);
		path_apply(dst, res, 0);
	});
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
inline void Node::packet_actions(std::deque<uint64_t> &q, const ipc_result &r,
				 uint64_t pkt, uint16_t core_queued,
				 Deliver deliver)
{
	if (r.actions & IPC_ACT_PURGE_QUEUE) {
		EXPECT_FALSE(q.empty()) << "PURGE_QUEUE of an empty queue";
		drop(r.reason, q.size());
		q.clear();
	}
	if (r.actions & IPC_ACT_DROP_OLDEST) {
		ASSERT_FALSE(q.empty());
		q.pop_front();
		drop(r.reason);
	}
	if (r.actions & IPC_ACT_QUEUE)
		q.push_back(pkt);
	if (r.actions & IPC_ACT_DROP)
		drop(r.reason);
	if (r.actions & IPC_ACT_SEND)
		deliver(pkt);
	if (r.actions & IPC_ACT_FLUSH_QUEUE) {
		EXPECT_FALSE(q.empty()) << "FLUSH_QUEUE of an empty queue";
		while (!q.empty()) {
			uint64_t first = q.front();
			q.pop_front();
			deliver(first);
		}
	}
	EXPECT_EQ(core_queued, q.size()) << "core and shim disagree";
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
	uint32_t a = r.actions;
	if (a & IPC_ACT_DETACH) {
		EXPECT_TRUE(g.attached) << "DETACH without ATTACH";
		g.attached = false;
	}
	if (a & IPC_ACT_LEAVE) {
		/* Cancels the outstanding join, or frees the membership. */
		EXPECT_TRUE(g.join || g.member) << "LEAVE of nothing";
		if (g.join)
			g.join = 0;
		else
			net_.sa.leave(mgid, id, g.join_type);
		g.member = false;
	}
	if (a & IPC_ACT_JOIN) {
		EXPECT_EQ(g.join, 0u) << "JOIN with a join outstanding";
		EXPECT_FALSE(g.member) << "JOIN while holding a membership";
		EXPECT_NE(r.join_type, IPC_JOIN_NONE);
		uint64_t jid = next_id_++;
		g.join = jid;
		g.join_type = r.join_type;
		uint64_t gen = g.gen;
		int type = r.join_type;
		net_.sa.join(
			mgid, id, type, [this, mgid, jid, gen, type](int st) {
				auto it = groups_.find(mgid);
				if (it == groups_.end() ||
				    it->second.gen != gen ||
				    it->second.join != jid) {
					/* Cancelled: a membership it made is freed. */
					if (st == 0)
						net_.sa.leave(mgid, id, type);
					return;
				}
				it->second.join = 0;
				it->second.member = st == 0;
				struct ipc_result res;
				ipc_mc_join_done(&it->second.core, &mcfg,
						 net_.loop.now, st,
						 routers_joined, &rng, &res);
				mc_apply(mgid, res, 0);
			});
	}
	if (a & IPC_ACT_ATTACH) {
		EXPECT_FALSE(g.attached);
		EXPECT_TRUE(g.member);
		EXPECT_NE(g.join_type, IPC_JOIN_SENDONLY);
		g.attached = true;
	}
	if (a & IPC_ACT_TO_ROUTERS) {
		EXPECT_TRUE(routers_joined);
		uint64_t n = pkt ? 1 : g.q.size();
		if (!pkt)
			g.q.clear();
		stats.to_routers += n;
	}
	packet_actions(g.q, r, pkt, g.core.queued,
		       [this, mgid](uint64_t q) { deliver_mcast(mgid, q); });
	if (a & IPC_ACT_FREE) {
		EXPECT_TRUE(g.q.empty());
		EXPECT_EQ(g.join, 0u) << "FREE with a join outstanding";
		EXPECT_FALSE(g.member) << "FREE while holding a membership";
		EXPECT_FALSE(g.attached) << "FREE while attached";
		groups_.erase(mgid);
		return;
	}
	arm(groups_, mgid, r.deadline_ms, [this, mgid](Group &o) {
		struct ipc_result res;
		ipc_mc_timer(&o.core, &mcfg, net_.loop.now, &rng, &res);
		mc_apply(mgid, res, 0);
	});
}

inline void Node::flush(uint32_t spread_ms)
{
	std::vector<int> dsts;
	for (auto &p : paths_)
		dsts.push_back(p.first);
	for (int d : dsts) {
		struct ipc_result r;
		ipc_path_flush(&paths_.at(d).core, &pcfg, net_.loop.now, &r);
		path_apply(d, r, 0);
	}
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
	std::vector<int> dsts;
	for (auto &p : paths_)
		dsts.push_back(p.first);
	for (int d : dsts) {
		struct ipc_result r;
		ipc_path_destroy(&paths_.at(d).core, &r);
		EXPECT_TRUE(r.actions & IPC_ACT_FREE);
		path_apply(d, r, 0);
	}
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
	EXPECT_EQ(groups_.size(), 0u);
}

} // namespace sim

#endif
