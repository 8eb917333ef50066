// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connected mode's passive side on a virtual clock, for model tests of
 * review 2026-12 H1 ("a passive RC connection destroyed with a message in
 * flight loses its SRQ buffer for good"): peers that send multi-packet
 * messages over RC QPs that share one SRQ, a device that follows one of
 * three providers' behaviour, and a shim model that follows the fixed
 * driver's contract (driver/cm.c, driver/srq.c at c180059 and 28669f8,
 * and ipn_cm_srq_starved() as revised since), while teardowns come at
 * random moments, many of them mid-message.
 *
 *   peer 0 --RC--\                     /-- SRQ: srq_size slots, FIFO, each
 *   peer 1 --RC---+-- passive QPs ----+      posted with a sequence number
 *   peer N --RC--/   (one per peer,    \-- CQ (cm_rcq): receives and drains,
 *                     retired ones          polled by CM NAPI
 *                     draining)
 *
 * A QP takes the SRQ's oldest slot at a message's FIRST packet and
 * completes it at the LAST. What a QP in ERR does with the slot of the
 * message in progress is the device's (Dev, dev_models[]):
 * - HW (mlx5): a flush completion, then IB_EVENT_QP_LAST_WQE_REACHED; a QP
 *   destroyed before that completion is polled takes it with it
 *   (destroy_qp_common() -> __mlx5_ib_cq_clean()): the slot is lost;
 * - RXE_612 (rxe of 6.12): LAST_WQE_REACHED, and the WQE in progress never
 *   completes (flush_recv_queue() only raises the event): lost unless
 *   connected mode restarts;
 * - RXE_61 (rxe of 6.1): the WQE in progress is flushed, no LAST_WQE
 *   event: the shim's IPN_CM_LAST_WQE_MS timeout runs.
 * On every device a QP destroyed before the device has processed its ERR
 * loses the slot it held, and the rxe ones keep a destroyed QP's
 * completions in the CQ (polled later, matched to no connection).
 *
 * The shim (Shim): ipn_cm_rx_retire() to cm_rx_dead; ipn_cm_rx_to_err()
 * (ERR, the CM ID destroyed, on cm_rx_drain); ipn_cm_rx_drain_run() (the
 * LAST_WQE event or IPN_CM_LAST_WQE_MS, then the drain WR, at most
 * IPN_CM_DRAINS_MAX out; the QP destroyed once CM NAPI polled the drain,
 * or after IPN_CM_DRAIN_MS); ipn_cm_srq_starved() (the limit event armed
 * at srq_size / 4; IPN_CM_SRQ_STARVE_MS after it, with nothing draining or
 * regardless once drains have held it off IPN_CM_DRAIN_MS more,
 * ipn_cm_restart() if no receive completed since, or if more slots posted
 * before the newest completed at the event are still out than there are
 * QPs; otherwise the limit armed again if every slot posted before the
 * newest completed is back and more were posted after it than
 * min(QPs, srq_size / 4), else a fresh note and another look as long
 * after). Four knobs put back what was there before:
 * - ShimConfig::old_cm_teardown: the shim before c180059, whose
 *   ipn_cm_rx_destroy() moved the QP to ERR, destroyed the CM ID (which
 *   waits for the CM: milliseconds) and then the QP, and which had no SRQ
 *   limit event (c180059 brought the drain and the recovery together);
 * - ShimConfig::count_completions: the recovery's rejected estimate, the
 *   slots out at the event less the receives polled since, instead of
 *   counting distinct slots still out;
 * - ShimConfig::old_srq_rearm: the recovery before the fresh-slot count,
 *   which armed the limit again whenever the two tests passed, on an
 *   empty SRQ too (whose event rxe then never raises), and postponed its
 *   look for as long as a connection drained;
 * - ShimConfig::prev_srq_rule: the fresh-slot count before its revision:
 *   re-armed on the fresh count alone (slots taken before the newest
 *   completion and still out not asked about), the look postponed for as
 *   long as a connection drained.
 *
 * The checker counts Violations: a slot lost where the device would have
 * given it back had the shim waited (V_LOST: on HW and RXE_61 every loss
 * is one), slots not conserved (in the SRQ + held by a QP + completed and
 * not yet reposted + lost != srq_size, or a slot in two places), a QP
 * destroyed before its drain was polled and before IPN_CM_DRAIN_MS
 * (V_UNDRAINED, the fixed contract only), more than three quarters of the
 * slots still lost once the churn has stopped (V_UNRECOVERED), and no
 * message received from a live peer in the probe window that follows
 * (V_DEAD_RECEIVE).
 */
#ifndef IPOIB_CM_SIM_HPP
#define IPOIB_CM_SIM_HPP

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <list>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "sim/subnet_sim.hpp" /* sim::Loop */

namespace cmsim
{

using sim::Loop;

/* driver/ipoib_ng.h, as the shim has them. */
constexpr uint64_t CM_LAST_WQE_MS = 1000; /* IPN_CM_LAST_WQE_MS */
constexpr uint64_t CM_DRAIN_MS = 5000; /* IPN_CM_DRAIN_MS */
constexpr uint32_t CM_DRAINS_MAX = 8; /* IPN_CM_DRAINS_MAX */
constexpr uint64_t CM_DRAIN_WRID = 1ull << 63; /* IPN_CM_DRAIN_WRID */
constexpr uint64_t CM_SRQ_STARVE_MS = 2000; /* IPN_CM_SRQ_STARVE_MS */
constexpr uint64_t TICK_MIN_MS = 100; /* IPN_TICK_MIN_MS */
constexpr int CM_RNR_RETRY = 6; /* IPN_CM_RNR_RETRY */
constexpr uint64_t NO_DEADLINE = IPC_NO_DEADLINE;

/* ---- the device ------------------------------------------------------- */

enum Dev { HW, RXE_612, RXE_61, DEV_COUNT };

/* What a provider does with the slot of a passive QP's message in ERR. */
struct DevModel {
	const char *name;
	bool flush_in_progress; /* the WQE in progress completes, flushed */
	bool last_wqe; /* IB_EVENT_QP_LAST_WQE_REACHED after ERR */
	bool cq_clean; /* a destroyed QP's unpolled completions are purged */
};

/* In enum Dev's order. */
constexpr DevModel dev_models[DEV_COUNT] = {
	{ "hw (mlx5)", true, true, true },
	{ "rxe 6.12", false, true, false },
	{ "rxe 6.1", true, false, false },
};

/* A completion in cm_rcq: a receive (wr_id = slot) or a drain. */
struct Cqe {
	uint32_t qpn;
	uint64_t wr_id;
	bool ok; /* IB_WC_SUCCESS; false: IB_WC_WR_FLUSH_ERR */
};

/* ---- the shim's knobs and what the checker counts ---------------------- */

struct ShimConfig {
	/* The shim before c180059: ERR then destroy, no SRQ limit event. */
	bool old_cm_teardown = false;
	/* The rejected recovery estimate: completions, not slots, counted. */
	bool count_completions = false;
	/*
	 * ipn_cm_srq_starved() before ipn_cm_srq_fresh(): the limit armed
	 * again once both tests pass, however few slots are in the SRQ; the
	 * look postponed while any connection drains, for good.
	 */
	bool old_srq_rearm = false;
	/*
	 * ipn_cm_srq_starved() with ipn_cm_srq_fresh(), before its revision:
	 * the limit armed again once fresh > min(QPs, srq_size / 4), with
	 * slots taken before the newest completion still out too; the look
	 * postponed while any connection drains, for good.
	 */
	bool prev_srq_rule = false;
	/* A violation fails the test; false: only counted. */
	bool strict = true;
	uint32_t srq_size = 16; /* priv->srq_size, a power of two */
	uint32_t cm_rx_max = 512; /* ipn_cm_rx_max */
	uint32_t idle_ms = 8000; /* cm_cfg.idle_ms (300 s in the driver) */
	uint32_t ctl_min_delay_ms = 1; /* the control work waits for rtnl */
	uint32_t ctl_max_delay_ms = 100;
	uint32_t napi_min_delay_ms = 0; /* completion to CM NAPI's poll */
	uint32_t napi_max_delay_ms = 3;
	uint32_t cm_id_min_ms = 0; /* ib_destroy_cm_id() waits for the CM */
	uint32_t cm_id_max_ms = 4;
};

/* The device's latencies and the peers' traffic and churn. */
struct Traffic {
	int peers = 8;
	/* Peers send only when told (CmSim::send()); no churn. */
	bool scripted = false;
	uint32_t err_min_ms = 0; /* ERR until the device has flushed */
	uint32_t err_max_ms = 1;
	uint32_t msg_min_ms = 0; /* first to last packet (0: one packet) */
	uint32_t msg_max_ms = 200;
	uint32_t gap_min_ms = 10, gap_max_ms = 150;
	uint32_t cm_min_ms = 1, cm_max_ms = 5; /* a CM MAD's way */
	uint32_t rnr_ms = 655; /* RNR NAK timer 0 (ib_cm's RTR attributes) */
	uint32_t reconnect_max_ms = 300;
	uint32_t refused_min_ms = 1000, refused_max_ms = 2000;
	uint32_t dead_qp_ms = 500; /* sends to a QP in ERR: retries exceeded */
	uint64_t churn_ms = 40000; /* teardowns come until then */
	uint64_t quiet_ms = 15000; /* then no teardown for this long */
	uint64_t probe_ms = 5000; /* and a message must be received in this */
	uint32_t teardown_min_ms = 100, teardown_max_ms = 600;
	/* Per mille of teardowns: ipn_cm_restart() (a smaller path MTU). */
	int restart_permille = 4;
	/* ... a peer gone silently: reaped, or replaced by its next REQ. */
	int crash_permille = 300;
	/* The rest: a peer's interface goes down (DREQ), comes back. */
	uint32_t down_max_ms = 3000, crash_max_ms = 12000;
};

struct Config {
	Dev dev = HW;
	ShimConfig shim;
	Traffic traffic;
	bool trace = false; /* keep an event log (CmSim::log) */
};

enum Violation {
	V_LOST, /* a slot lost that the device would have given back */
	V_CONSERVATION, /* srq + held + completed + lost != srq_size */
	V_UNDRAINED, /* a QP destroyed before its drain was polled */
	V_UNRECOVERED, /* > 3/4 of the slots lost after the churn */
	V_DEAD_RECEIVE, /* nothing received in the probe window */
	V_COUNT,
};

constexpr const char *violation_names[V_COUNT] = {
	"lost", "conservation", "undrained", "unrecovered", "dead-receive",
};

struct Stats {
	uint64_t violations[V_COUNT] = {};
	uint64_t delivered = 0; /* messages CM NAPI received on a connection */
	uint64_t probe_delivered = 0; /* ... in the probe window */
	uint64_t cut = 0; /* QPs moved to ERR with a message in progress */
	uint64_t lost_device = 0; /* in-progress WQEs never completed */
	uint64_t lost_destroy = 0; /* slots taken by a destroy (V_LOST) */
	uint64_t lost_at_end = 0;
	uint64_t recovered = 0; /* lost slots back with a new SRQ */
	uint64_t starved_restarts = 0; /* cm_srq_restarts */
	uint64_t restarts_quiet = 0; /* ... no receive since the note */
	uint64_t restarts_unlost = 0; /* ... with no slot lost at all */
	uint64_t churn_restarts = 0;
	uint64_t drains = 0; /* cm_rx_drains */
	uint64_t drain_timeouts = 0; /* cm_drain_timeouts */
	uint64_t drains_max = 0; /* most drains out at once */
	uint64_t limit_events = 0, rearms = 0;
	uint64_t rearms_empty = 0; /* ... with no slot in the SRQ */
	uint64_t renotes = 0; /* looks that took a fresh note instead */
	/* ... enough fresh slots, but some taken before the newest
	 * completion still out (the revised rule's first condition) */
	uint64_t renotes_out = 0;
	uint64_t looks_postponed = 0; /* due, but a connection draining */
	/* looks made with a connection draining, IPN_CM_DRAIN_MS past due */
	uint64_t looks_forced = 0;
	uint64_t restarts_forced = 0; /* starved restarts of those */
	/* V_DEAD_RECEIVE with the look still to come (IPN_SRQ_LOW set) */
	uint64_t dead_low_pending = 0;
	/* ... with the limit armed on an empty SRQ (the look re-armed it) */
	uint64_t dead_armed_empty = 0;
	uint64_t rnr = 0, refused = 0, teardowns = 0;

	uint64_t violations_total() const
	{
		uint64_t n = 0;
		for (auto v : violations)
			n += v;
		return n;
	}
	void add(const Stats &o)
	{
		for (int v = 0; v < V_COUNT; v++)
			violations[v] += o.violations[v];
		delivered += o.delivered;
		probe_delivered += o.probe_delivered;
		cut += o.cut;
		lost_device += o.lost_device;
		lost_destroy += o.lost_destroy;
		lost_at_end += o.lost_at_end;
		recovered += o.recovered;
		starved_restarts += o.starved_restarts;
		restarts_quiet += o.restarts_quiet;
		restarts_unlost += o.restarts_unlost;
		churn_restarts += o.churn_restarts;
		drains += o.drains;
		drain_timeouts += o.drain_timeouts;
		drains_max = std::max(drains_max, o.drains_max);
		limit_events += o.limit_events;
		rearms += o.rearms;
		rearms_empty += o.rearms_empty;
		renotes += o.renotes;
		renotes_out += o.renotes_out;
		looks_postponed += o.looks_postponed;
		looks_forced += o.looks_forced;
		restarts_forced += o.restarts_forced;
		dead_low_pending += o.dead_low_pending;
		dead_armed_empty += o.dead_armed_empty;
		rnr += o.rnr;
		refused += o.refused;
		teardowns += o.teardowns;
	}
	std::string str() const
	{
		char b[768];
		std::snprintf(b, sizeof(b),
			      "delivered %llu, cut %llu, lost %llu (device) "
			      "%llu (destroy), recovered %llu, restarts %llu "
			      "(starved: %llu quiet, %llu none lost, %llu "
			      "forced) %llu (churn), drains %llu, timeouts "
			      "%llu, limit events %llu, rearms %llu (%llu "
			      "empty), renotes %llu (%llu out), looks "
			      "postponed %llu, forced %llu, rnr %llu",
			      (unsigned long long)delivered,
			      (unsigned long long)cut,
			      (unsigned long long)lost_device,
			      (unsigned long long)lost_destroy,
			      (unsigned long long)recovered,
			      (unsigned long long)starved_restarts,
			      (unsigned long long)restarts_quiet,
			      (unsigned long long)restarts_unlost,
			      (unsigned long long)restarts_forced,
			      (unsigned long long)churn_restarts,
			      (unsigned long long)drains,
			      (unsigned long long)drain_timeouts,
			      (unsigned long long)limit_events,
			      (unsigned long long)rearms,
			      (unsigned long long)rearms_empty,
			      (unsigned long long)renotes,
			      (unsigned long long)renotes_out,
			      (unsigned long long)looks_postponed,
			      (unsigned long long)looks_forced,
			      (unsigned long long)rnr);
		std::string s = b;
		for (int v = 0; v < V_COUNT; v++)
			if (violations[v])
				s += std::string(", ") + violation_names[v] +
				     " " + std::to_string(violations[v]);
		return s;
	}
};

class CmSim;

/*
 * The HCA: the SRQ (FIFO), the passive QPs, the CQ, and the checker's
 * record of lost slots. The limit event is raised as rxe raises it, on
 * every device: when a take leaves fewer WQEs than the limit
 * (rxe_resp.c get_srq_wqe()); an armed limit on an empty SRQ never fires.
 */
class Hca {
public:
	explicit Hca(CmSim &w)
		: w_(w)
	{
	}
	struct Qp {
		int rx = -1; /* the shim's connection */
		bool err = false; /* moved to ERR */
		int held = -1; /* slot of the message in progress */
		bool drain_posted = false;
		uint64_t drain_posted_ms = 0;
		bool drain_polled = false;
		uint64_t err_ms = 0;
	};
	/* The checker's record of a destroyed QP. */
	struct Gone {
		uint32_t qpn;
		uint64_t err_ms, destroy_ms;
		bool err, drain_polled;
	};
	enum Take { TAKE_OK, TAKE_RNR, TAKE_DEAD };

	std::deque<int> srq;
	bool srq_up = false;
	uint32_t limit = 0; /* armed limit, 0: off */
	std::map<uint32_t, Qp> qps;
	std::deque<Cqe> cq;
	std::vector<int> lost; /* slots gone, known to the checker */
	std::vector<Gone> gone; /* QPs destroyed, srq_going ones left out */

	void srq_create();
	void srq_ready()
	{
		srq_up = true;
		check();
	}
	void srq_destroy();
	void post_recv(int slot);
	void arm_limit(uint32_t l)
	{
		limit = l;
	}
	uint32_t create_qp(int rx);
	Take take(uint32_t qpn, int *slot);
	bool complete(uint32_t qpn, int slot);
	void modify_err(uint32_t qpn);
	void post_drain(uint32_t qpn, uint64_t wr_id);
	void destroy_qp(uint32_t qpn, bool srq_going);
	bool poll(Cqe *c);
	void check();

private:
	void process_err(uint32_t qpn);
	void cq_push(const Cqe &c);
	void lose(int slot, bool contract, const char *why);
	CmSim &w_;
	uint32_t next_qpn_ = 0x40;
	std::vector<int> where_; /* check()'s */
};

/*
 * The shim: what driver/cm.c and driver/srq.c do for the passive side,
 * the control work (ctl.c: one at a time, kicked, waiting for rtnl) and
 * the tick (ipn_tick_arm(): one timer, not sooner than IPN_TICK_MIN_MS
 * after its last run). Names follow the driver's functions.
 */
class Shim {
public:
	explicit Shim(CmSim &w)
		: w_(w)
	{
	}
	/* struct ipn_cm_rx */
	struct Rx {
		int peer = -1;
		uint32_t qpn = 0;
		uint64_t last_rx_ms = 0;
		bool dead = false;
		bool cm_id = true; /* rx->id: handlers may still run */
		bool last_wqe = false, posted = false; /* IPN_CM_RX_* */
		bool drained = false;
		uint64_t drain_at = 0;
		uint32_t drain_id = 0;
	};
	std::map<int, Rx> rx_mem; /* allocated connections, by id */
	std::list<int> cm_rx, cm_rx_dead, cm_rx_drain;
	std::map<uint32_t, int> cm_rx_qps; /* QP -> connection (RCU hash) */
	uint32_t cm_rx_count = 0, cm_drains = 0, cm_drain_ids = 0;
	bool cm_on = false, cm_accepting = false;
	/* srq.c: priv->srq_ring[].seq/.posted and the limit's note. */
	std::vector<uint32_t> seq;
	std::vector<bool> posted;
	uint32_t srq_seq = 0, srq_done_seq = 0;
	uint64_t cm_rx_polled = 0;
	bool srq_low = false;
	uint64_t srq_low_polled = 0, srq_low_ms = 0;
	uint32_t srq_low_seq = 0;

	int req(int peer, uint32_t *qpn);
	void dreq(int id);
	void qp_last_wqe(int id);
	void srq_event();
	void cq_comp();
	void ctl_kick();
	void restart_request();
	void cm_start();
	void cm_stop();

private:
	int rx_of_peer(int peer);
	void retire(int id);
	void rx_to_err();
	void rx_free(int id, bool srq_going);
	uint64_t rx_drain_run(uint64_t now);
	void cm_run();
	void cm_run_old();
	void old_destroy_next();
	void ctl_run();
	void cm_restart();
	void cm_timers(uint64_t now);
	void tick_arm(uint64_t deadline);
	void tick_work();
	bool srq_starved(uint64_t now, bool draining, uint64_t *deadline);
	unsigned srq_lost(uint32_t seq);
	unsigned srq_fresh();
	void srq_arm();
	void srq_repost(int i);
	void rx_poll();
	void rx_one(const Cqe &c);
	void rx_drained(const Cqe &c);
	void cm_id_gone(const Rx &rx, int id);

	CmSim &w_;
	int next_rx_ = 1;
	bool napi_on_ = false, napi_sched_ = false;
	uint64_t napi_gen_ = 0;
	bool ctl_queued_ = false, ctl_busy_ = false, ctl_rerun_ = false;
	bool restart_pending_ = false;
	uint64_t next_deadline_ = NO_DEADLINE, tick_not_before_ = 0;
	uint64_t tick_gen_ = 0;
};

/* A peer: its side of one RC connection to us, and its messages. */
struct Peer {
	enum St { DOWN, CONNECTING, UP } st = DOWN;
	int rx = -1; /* our connection it sends on */
	uint32_t qpn = 0;
	uint64_t gen = 0; /* bumped on every change: stale steps do nothing */
	bool busy = false; /* a message of it is in progress */
	int rnr = 0;
	bool away = false; /* down or crashed, back later */
};

/* The world of one run: clock, device, shim, peers, churn, checker. */
class CmSim {
public:
	CmSim(const Config &c, uint64_t seed)
		: cfg(c)
		, hca(*this)
		, shim(*this)
		, peers(c.traffic.peers)
		, gen_(seed)
		, seed_(seed)
	{
	}
	Config cfg;
	Loop loop;
	Hca hca;
	Shim shim;
	Stats stats;
	std::vector<std::string> log;
	std::vector<Peer> peers;
	uint64_t probe_from = NO_DEADLINE;

	/* Churn, then quiet, then the probe window; the end checks. */
	void run();
	/* The pieces of run(), for scripted tests. */
	void start();
	void finish();

	const DevModel &dev() const
	{
		return dev_models[cfg.dev];
	}
	uint32_t uni(uint32_t a, uint32_t b)
	{
		std::uniform_int_distribution<uint32_t> d(a, std::max(a, b));
		return d(gen_);
	}
	uint32_t cm_ms()
	{
		return uni(cfg.traffic.cm_min_ms, cfg.traffic.cm_max_ms);
	}
	uint32_t err_ms()
	{
		return uni(cfg.traffic.err_min_ms, cfg.traffic.err_max_ms);
	}
	/* Scripted: peer p starts a message of dur_ms now, if connected. */
	void send(int p, uint32_t dur_ms)
	{
		if (peers[p].st == Peer::UP && !peers[p].busy)
			peer_msg(p, int64_t(dur_ms));
	}
	/* Scripted: peer p down (a DREQ) or crashed, back after back_ms. */
	void down(int p, bool crash, uint32_t back_ms)
	{
		peer_down(p, crash, back_ms);
	}
	void violation(Violation v, const std::string &what)
	{
		stats.violations[v]++;
		note("VIOLATION " + std::string(violation_names[v]) + ": " +
		     what);
		if (cfg.shim.strict)
			ADD_FAILURE() << dev().name << " seed " << seed_
				      << " t=" << loop.now << ": " << what;
	}
	void note(const std::string &s)
	{
		if (cfg.trace)
			log.push_back(std::to_string(loop.now) + " " + s);
	}

	void peer_connect(int p);
	void peer_next(int p);
	void peer_msg(int p, int64_t dur_ms = -1);
	void peer_msg_end(int p, int slot);
	void peer_broken(int p, bool send_dreq);
	void peer_dreq_from_us(int p, int rx);
	void peer_down(int p, bool crash, uint32_t back_ms);
	void churn_step();

private:
	std::mt19937_64 gen_;
	uint64_t seed_;
};

/* ---- Hca ---------------------------------------------------------------- */

inline void Hca::srq_create()
{
	srq.clear();
	cq.clear();
	lost.clear();
	limit = 0;
}

/*
 * ib_destroy_srq() and ib_destroy_cq() (ipn_cm_verbs_destroy()): every
 * buffer comes back with the ring, lost ones too.
 */
inline void Hca::srq_destroy()
{
	w_.stats.recovered += lost.size();
	if (!lost.empty())
		w_.note("SRQ destroyed: " + std::to_string(lost.size()) +
			" lost slots back");
	srq.clear();
	cq.clear();
	lost.clear();
	limit = 0;
	srq_up = false;
}

inline void Hca::post_recv(int slot)
{
	srq.push_back(slot);
}

inline uint32_t Hca::create_qp(int rx)
{
	uint32_t qpn = next_qpn_++;
	qps[qpn].rx = rx;
	return qpn;
}

/* A message's first packet: the QP takes the SRQ's oldest WQE. */
inline Hca::Take Hca::take(uint32_t qpn, int *slot)
{
	auto it = qps.find(qpn);
	if (it == qps.end() || it->second.err)
		return TAKE_DEAD;
	if (srq.empty())
		return TAKE_RNR;
	if (it->second.held >= 0)
		w_.violation(V_CONSERVATION, "a QP took a second slot");
	*slot = srq.front();
	srq.pop_front();
	it->second.held = *slot;
	/* IBA 10.2.9.4: one-shot, raised by a take below the limit. */
	if (limit && srq.size() < limit) {
		limit = 0;
		w_.shim.srq_event();
	}
	check();
	return TAKE_OK;
}

/* A message's last packet: its receive completes. */
inline bool Hca::complete(uint32_t qpn, int slot)
{
	auto it = qps.find(qpn);
	if (it == qps.end() || it->second.err || it->second.held != slot)
		return false;
	it->second.held = -1;
	cq_push(Cqe{ qpn, uint64_t(slot), true });
	return true;
}

/* ib_modify_qp(IB_QPS_ERR): no packet taken from now on. */
inline void Hca::modify_err(uint32_t qpn)
{
	Qp &q = qps.at(qpn);
	if (q.err)
		return;
	q.err = true;
	q.err_ms = w_.loop.now;
	if (q.held >= 0) {
		w_.stats.cut++;
		w_.note("QP " + std::to_string(qpn) + " to ERR holding slot " +
			std::to_string(q.held));
	}
	w_.loop.after(w_.err_ms(), [this, qpn] { process_err(qpn); });
}

/* The device acts on the ERR: the in-progress WQE, then the event. */
inline void Hca::process_err(uint32_t qpn)
{
	auto it = qps.find(qpn);
	if (it == qps.end())
		return; /* destroyed first: destroy_qp() counted its slot */
	Qp &q = it->second;
	if (q.held >= 0) {
		if (w_.dev().flush_in_progress)
			cq_push(Cqe{ qpn, uint64_t(q.held), false });
		else
			lose(q.held, false,
			     "the WQE in progress never completes (rxe 6.12)");
		q.held = -1;
	}
	check();
	if (!w_.dev().last_wqe)
		return;
	int rx = q.rx;
	w_.loop.after(w_.err_ms(), [this, qpn, rx] {
		if (qps.count(qpn))
			w_.shim.qp_last_wqe(rx);
	});
}

/* ib_post_send() of the drain on a QP in ERR: flushed behind its receives. */
inline void Hca::post_drain(uint32_t qpn, uint64_t wr_id)
{
	Qp &q = qps.at(qpn);
	q.drain_posted = true;
	q.drain_posted_ms = w_.loop.now;
	w_.loop.after(w_.err_ms(), [this, qpn, wr_id] {
		if (qps.count(qpn))
			cq_push(Cqe{ qpn, wr_id, false });
	});
}

/*
 * ib_destroy_qp(). srq_going: ipn_cm_stop(), the SRQ goes next and every
 * buffer with it (H1 is about a live SRQ): nothing to check.
 */
inline void Hca::destroy_qp(uint32_t qpn, bool srq_going)
{
	Qp q = qps.at(qpn);
	qps.erase(qpn);
	if (srq_going)
		return;
	uint64_t now = w_.loop.now;
	gone.push_back(Gone{ qpn, q.err_ms, now, q.err, q.drain_polled });
	if (!w_.cfg.shim.old_cm_teardown && !q.drain_polled &&
	    !(q.drain_posted && now >= q.drain_posted_ms + CM_DRAIN_MS))
		w_.violation(V_UNDRAINED,
			     "QP " + std::to_string(qpn) +
				     " destroyed before its drain was polled");
	if (q.held >= 0)
		lose(q.held, w_.dev().flush_in_progress,
		     "destroyed before the device flushed its ERR");
	if (w_.dev().cq_clean) {
		for (auto it = cq.begin(); it != cq.end();) {
			if (it->qpn != qpn) {
				++it;
				continue;
			}
			if (!(it->wr_id & CM_DRAIN_WRID))
				lose(int(it->wr_id), true,
				     "its completion purged by the destroy "
				     "(mlx5 CQ clean)");
			it = cq.erase(it);
		}
	}
	check();
}

/* ib_poll_cq() of one completion; the checker notes polled drains. */
inline bool Hca::poll(Cqe *c)
{
	if (cq.empty())
		return false;
	*c = cq.front();
	cq.pop_front();
	auto it = qps.find(c->qpn);
	if ((c->wr_id & CM_DRAIN_WRID) && it != qps.end())
		it->second.drain_polled = true;
	return true;
}

inline void Hca::cq_push(const Cqe &c)
{
	cq.push_back(c);
	w_.shim.cq_comp();
}

inline void Hca::lose(int slot, bool contract, const char *why)
{
	lost.push_back(slot);
	if (contract) {
		w_.stats.lost_destroy++;
		w_.violation(V_LOST,
			     "slot " + std::to_string(slot) + " lost: " + why);
	} else {
		w_.stats.lost_device++;
		w_.note("slot " + std::to_string(slot) + " lost: " + why);
	}
}

/*
 * Every slot in exactly one place: in the SRQ, held by a QP for its
 * message, completed and not yet polled and reposted, or lost.
 */
inline void Hca::check()
{
	if (!srq_up)
		return;
	uint32_t n = w_.cfg.shim.srq_size;
	std::vector<int> &where = where_; /* kept: no allocation a call */
	where.assign(n, 0);
	uint64_t total = 0;
	auto count = [&](int slot) {
		total++;
		if (slot >= 0 && uint32_t(slot) < n)
			where[slot]++;
	};
	for (int s : srq)
		count(s);
	for (auto &q : qps)
		if (q.second.held >= 0)
			count(q.second.held);
	for (auto &c : cq)
		if (!(c.wr_id & CM_DRAIN_WRID))
			count(int(c.wr_id));
	for (int s : lost)
		count(s);
	bool ok = total == n;
	for (int k : where)
		ok = ok && k == 1;
	if (!ok)
		w_.violation(V_CONSERVATION,
			     "slots not conserved: " + std::to_string(total) +
				     " accounted of " + std::to_string(n));
}

/* ---- Shim: connections to us (cm.c) ----------------------------------- */

/* ipn_cm_rx_of_peer(): its live connection, or -1. */
inline int Shim::rx_of_peer(int peer)
{
	for (int id : cm_rx)
		if (rx_mem.at(id).peer == peer)
			return id;
	return -1;
}

/*
 * ipn_cm_req(): the core's admission (ipc_cm_req_admit(), review H3), a
 * QP on the SRQ, counted from here until it is destroyed. The driver asks
 * twice (before and after making the QP): here both are one instant.
 * Returns the connection, or -1: refused.
 */
inline int Shim::req(int peer, uint32_t *qpn)
{
	uint64_t now = w_.loop.now;
	if (!cm_accepting)
		return -1;
	int old = rx_of_peer(peer);
	enum ipc_cm_admit admit =
		ipc_cm_req_admit(cm_rx_count, w_.cfg.shim.cm_rx_max, old >= 0,
				 old >= 0 ? rx_mem.at(old).last_rx_ms : 0, now);
	if (admit >= IPC_CM_REFUSE_FULL) {
		w_.stats.refused++;
		return -1;
	}
	int id = next_rx_++;
	Rx &rx = rx_mem[id];
	rx.peer = peer;
	rx.qpn = w_.hca.create_qp(id);
	if (old >= 0) {
		w_.note("REQ of peer " + std::to_string(peer) +
			" replaces its connection");
		retire(old);
	}
	rx.last_rx_ms = now;
	cm_rx.push_back(id);
	cm_rx_count++;
	tick_arm(now + w_.cfg.shim.idle_ms);
	cm_rx_qps[rx.qpn] = id;
	if (old >= 0)
		ctl_kick();
	*qpn = rx.qpn;
	return id;
}

/* ipn_cm_rx_handler(): IB_CM_DREQ_RECEIVED, while the ID is there. */
inline void Shim::dreq(int id)
{
	auto it = rx_mem.find(id);
	if (it == rx_mem.end() || !it->second.cm_id)
		return;
	retire(id);
	ctl_kick();
}

/* __ipn_cm_rx_retire(): to cm_rx_dead, for the control work. */
inline void Shim::retire(int id)
{
	Rx &rx = rx_mem.at(id);
	if (rx.dead)
		return;
	rx.dead = true;
	cm_rx.remove(id);
	cm_rx_dead.push_back(id);
}

/* ipn_cm_rx_qp_event(): IB_EVENT_QP_LAST_WQE_REACHED. */
inline void Shim::qp_last_wqe(int id)
{
	auto it = rx_mem.find(id);
	if (it == rx_mem.end())
		return;
	it->second.last_wqe = true;
	ctl_kick();
}

/* ib_destroy_cm_id() of an established connection: a DREQ to the peer. */
inline void Shim::cm_id_gone(const Rx &rx, int id)
{
	int peer = rx.peer;
	w_.loop.after(w_.cm_ms(),
		      [this, peer, id] { w_.peer_dreq_from_us(peer, id); });
}

/*
 * ipn_cm_rx_to_err(): the retired connections' QPs to ERR, their IDs
 * destroyed, each on cm_rx_drain with IPN_CM_LAST_WQE_MS to get its
 * event.
 */
inline void Shim::rx_to_err()
{
	std::list<int> going;
	going.splice(going.end(), cm_rx_dead);
	if (going.empty())
		return;
	for (int id : going) {
		Rx &rx = rx_mem.at(id);
		w_.hca.modify_err(rx.qpn);
	}
	uint64_t now = w_.loop.now; /* after synchronize_net() */
	for (int id : going) {
		Rx &rx = rx_mem.at(id);
		rx.cm_id = false;
		cm_id_gone(rx, id);
		rx.drain_at = now + CM_LAST_WQE_MS;
	}
	cm_rx_drain.splice(cm_rx_drain.end(), going);
}

/* ipn_cm_rx_free(): the QP, then the memory. */
inline void Shim::rx_free(int id, bool srq_going)
{
	Rx &rx = rx_mem.at(id);
	cm_rx_drain.remove(id);
	cm_rx_dead.remove(id);
	if (rx.posted)
		cm_drains--;
	cm_rx_qps.erase(rx.qpn);
	cm_rx_count--;
	w_.hca.destroy_qp(rx.qpn, srq_going);
	rx_mem.erase(id);
}

/*
 * ipn_cm_rx_drain_run(): drained ones destroyed; a drain out past
 * IPN_CM_DRAIN_MS given up on; the LAST_WQE event, or IPN_CM_LAST_WQE_MS
 * without it (rxe 6.1), then the drain WR, at most IPN_CM_DRAINS_MAX
 * out. Returns the earliest deadline of those still draining.
 */
inline uint64_t Shim::rx_drain_run(uint64_t now)
{
	uint64_t next = NO_DEADLINE;
	std::vector<int> ids(cm_rx_drain.begin(), cm_rx_drain.end());

	for (int id : ids) {
		Rx &rx = rx_mem.at(id);
		if (rx.drained) {
			w_.stats.drains++;
			rx_free(id, false);
			continue;
		}
		if (rx.posted) {
			if (now < rx.drain_at) {
				next = std::min(next, rx.drain_at);
				continue;
			}
			w_.stats.drain_timeouts++;
			rx_free(id, false);
			continue;
		}
		if (!rx.last_wqe && now < rx.drain_at) {
			next = std::min(next, rx.drain_at);
			continue;
		}
		if (cm_drains >= CM_DRAINS_MAX)
			continue; /* a drain that completes kicks the work */
		rx.drain_id = ++cm_drain_ids ? cm_drain_ids : ++cm_drain_ids;
		w_.hca.post_drain(rx.qpn, CM_DRAIN_WRID | rx.drain_id);
		cm_drains++;
		w_.stats.drains_max =
			std::max<uint64_t>(w_.stats.drains_max, cm_drains);
		rx.posted = true;
		rx.drain_at = now + CM_DRAIN_MS;
		next = std::min(next, rx.drain_at);
	}
	return next;
}

/* ipn_cm_run(): retired ones to ERR, drained ones freed, starvation. */
inline void Shim::cm_run()
{
	rx_to_err();
	uint64_t now = w_.loop.now;
	uint64_t next = rx_drain_run(now);
	if (cm_on && srq_starved(now, !cm_rx_drain.empty(), &next)) {
		w_.stats.starved_restarts++;
		if (w_.hca.lost.empty())
			w_.stats.restarts_unlost++;
		w_.note("SRQ starved: restart, " +
			std::to_string(w_.hca.lost.size()) + " slots lost");
		cm_restart();
	}
	if (next != NO_DEADLINE)
		tick_arm(next);
}

/*
 * git show c180059^:driver/cm.c, ipn_cm_run() and ipn_cm_rx_destroy():
 * each retired connection's QP to ERR, its CM ID destroyed (waiting for
 * the CM, cm_id_max_ms), then the QP, one after the other. The control
 * work runs all along (ctl_busy_).
 */
inline void Shim::cm_run_old()
{
	ctl_busy_ = true;
	old_destroy_next();
}

inline void Shim::old_destroy_next()
{
	if (cm_rx_dead.empty()) {
		ctl_busy_ = false;
		if (ctl_rerun_) {
			ctl_rerun_ = false;
			ctl_kick();
		}
		return;
	}
	int id = cm_rx_dead.front();
	Rx &rx = rx_mem.at(id);
	w_.hca.modify_err(rx.qpn);
	rx.cm_id = false;
	w_.loop.after(w_.uni(w_.cfg.shim.cm_id_min_ms,
			     w_.cfg.shim.cm_id_max_ms),
		      [this, id] {
			      cm_id_gone(rx_mem.at(id), id);
			      rx_free(id, false);
			      old_destroy_next();
		      });
}

/* ipn_ctl_kick(): queue_work(); while the work runs, once more after. */
inline void Shim::ctl_kick()
{
	if (ctl_busy_) {
		ctl_rerun_ = true;
		return;
	}
	if (ctl_queued_)
		return;
	ctl_queued_ = true;
	w_.loop.after(w_.uni(w_.cfg.shim.ctl_min_delay_ms,
			     w_.cfg.shim.ctl_max_delay_ms),
		      [this] {
			      ctl_queued_ = false;
			      ctl_run();
		      });
}

/* ipn_ctl_work(): its connected-mode share. */
inline void Shim::ctl_run()
{
	if (ctl_busy_) {
		ctl_rerun_ = true;
		return;
	}
	if (restart_pending_) {
		restart_pending_ = false;
		cm_restart();
	}
	if (w_.cfg.shim.old_cm_teardown)
		cm_run_old();
	else
		cm_run();
}

/* A restart asked of the control work (roce.c: a smaller path MTU). */
inline void Shim::restart_request()
{
	restart_pending_ = true;
	ctl_kick();
}

/* ipn_cm_restart() */
inline void Shim::cm_restart()
{
	if (!cm_on)
		return;
	cm_stop();
	cm_start();
}

/*
 * ipn_cm_stop(): every connection retired, to ERR (IDs destroyed) and
 * freed without a drain, NAPI off, the SRQ and its CQ destroyed.
 */
inline void Shim::cm_stop()
{
	if (!cm_on)
		return;
	cm_accepting = false;
	cm_on = false;
	for (int id : cm_rx)
		rx_mem.at(id).dead = true;
	cm_rx_dead.splice(cm_rx_dead.end(), cm_rx);
	if (w_.cfg.shim.old_cm_teardown) {
		/* ipn_cm_run() of c180059^, at once: the SRQ goes too. */
		for (int id :
		     std::vector<int>(cm_rx_dead.begin(), cm_rx_dead.end())) {
			Rx &rx = rx_mem.at(id);
			w_.hca.modify_err(rx.qpn);
			rx.cm_id = false;
			cm_id_gone(rx, id);
			rx_free(id, true);
		}
	} else {
		rx_to_err();
		for (int id :
		     std::vector<int>(cm_rx_drain.begin(), cm_rx_drain.end()))
			rx_free(id, true);
	}
	napi_on_ = false;
	napi_gen_++;
	w_.hca.srq_destroy();
	seq.clear();
	posted.clear();
}

/*
 * ipn_cm_start() and ipn_cm_verbs_create(): the SRQ with every slot
 * posted in order, none of them counted as completed, the limit armed
 * (c180059 on), NAPI on, REQs accepted.
 */
inline void Shim::cm_start()
{
	uint32_t n = w_.cfg.shim.srq_size;
	w_.hca.srq_create();
	seq.assign(n, 0);
	posted.assign(n, false);
	srq_done_seq = srq_seq;
	for (uint32_t i = 0; i < n; i++) {
		seq[i] = ++srq_seq;
		posted[i] = true;
		w_.hca.post_recv(int(i));
	}
	w_.hca.srq_ready();
	srq_low = false;
	if (!w_.cfg.shim.old_cm_teardown)
		srq_arm();
	napi_on_ = true;
	napi_sched_ = false;
	cm_accepting = true;
	cm_on = true;
}

/* ---- Shim: the tick (ctl.c) and the idle reaper (cm.c) ---------------- */

/* ipn_tick_arm() */
inline void Shim::tick_arm(uint64_t deadline)
{
	if (deadline == NO_DEADLINE)
		return;
	deadline = std::max(deadline, tick_not_before_);
	if (deadline >= next_deadline_)
		return;
	next_deadline_ = deadline;
	uint64_t g = ++tick_gen_;
	w_.loop.at(deadline, [this, g] {
		if (g == tick_gen_)
			tick_work();
	});
}

/* ipn_tick_work(): the connections' timers, then the control work. */
inline void Shim::tick_work()
{
	uint64_t now = w_.loop.now;
	next_deadline_ = NO_DEADLINE;
	tick_not_before_ = now + TICK_MIN_MS;
	cm_timers(now);
	ctl_kick();
}

/* ipn_cm_timers(): review H3, a connection quiet for idle_ms goes. */
inline void Shim::cm_timers(uint64_t now)
{
	for (int id : std::vector<int>(cm_rx.begin(), cm_rx.end())) {
		uint64_t idle_end =
			rx_mem.at(id).last_rx_ms + w_.cfg.shim.idle_ms;
		if (idle_end > now) {
			tick_arm(idle_end);
			continue;
		}
		w_.note("connection of peer " +
			std::to_string(rx_mem.at(id).peer) + " idle: reaped");
		retire(id);
	}
}

/* ---- Shim: the SRQ (srq.c) -------------------------------------------- */

/* ipn_srq_arm(): the limit event, one-shot, at a quarter. */
inline void Shim::srq_arm()
{
	w_.hca.arm_limit(w_.cfg.shim.srq_size / 4);
}

/* ipn_srq_event(): a note of when, polled so far, newest completed. */
inline void Shim::srq_event()
{
	if (srq_low)
		return;
	w_.stats.limit_events++;
	srq_low_polled = cm_rx_polled;
	srq_low_seq = srq_done_seq;
	srq_low_ms = w_.loop.now;
	srq_low = true;
	w_.note("SRQ limit event, " + std::to_string(w_.hca.srq.size()) +
		" posted");
	ctl_kick();
}

/* ipn_cm_srq_lost(): slots posted before seq and not back since. */
inline unsigned Shim::srq_lost(uint32_t s)
{
	unsigned n = 0;
	for (size_t i = 0; i < seq.size(); i++)
		n += posted[i] && int32_t(s - seq[i]) > 0;
	return n;
}

/*
 * ipn_cm_srq_fresh(): slots posted after the newest one completed, in the
 * SRQ or taken since (by a message in progress, or lost with its QP).
 */
inline unsigned Shim::srq_fresh()
{
	unsigned n = 0;
	for (size_t i = 0; i < seq.size(); i++)
		n += posted[i] && int32_t(seq[i] - srq_done_seq) > 0;
	return n;
}

/*
 * ipn_cm_srq_starved(), as revised: the look IPN_CM_SRQ_STARVE_MS after
 * the note, held off while a connection drains for at most
 * IPN_CM_DRAIN_MS more; the limit armed again only with every slot posted
 * before the newest completed back (srq_lost(srq_done_seq) == 0) and more
 * fresh slots than min(QPs, limit). ShimConfig::count_completions puts the
 * rejected estimate in the second test's place: the slots out at the event
 * (it comes with limit - 1 left) less the receives polled since.
 * ShimConfig::prev_srq_rule: the rule before the revision (re-armed on the
 * fresh count alone; the look postponed while anything drains, for good).
 * ShimConfig::old_srq_rearm: the rule before that (re-armed once both
 * tests pass; postponed as prev_srq_rule).
 */
inline bool Shim::srq_starved(uint64_t now, bool draining, uint64_t *deadline)
{
	const ShimConfig &k = w_.cfg.shim;
	bool forever = k.old_srq_rearm || k.prev_srq_rule;
	if (!srq_low)
		return false;
	uint64_t at = srq_low_ms + CM_SRQ_STARVE_MS;
	bool forced = false;
	if (draining && now >= at) {
		if (forever || now < at + CM_DRAIN_MS) {
			w_.stats.looks_postponed++;
			at = forever ? now + 1 :
				       std::min(at + CM_DRAIN_MS,
						now + CM_SRQ_STARVE_MS);
		} else {
			forced = true;
			w_.stats.looks_forced++;
			w_.note("SRQ look: drains held it off " +
				std::to_string(now - at) + " ms, looking");
		}
	}
	if (now < at) {
		*deadline =
			std::min(*deadline, std::max(at, now + TICK_MIN_MS));
		return false;
	}
	if (cm_rx_polled == srq_low_polled) {
		w_.stats.restarts_quiet++;
		w_.stats.restarts_forced += forced;
		w_.note("SRQ look: no receive since the note");
		return true;
	}
	uint32_t held = cm_rx_count;
	if (k.count_completions) {
		int64_t n = k.srq_size;
		int64_t out = n - (n / 4 - 1);
		int64_t est = out - int64_t(cm_rx_polled - srq_low_polled);
		if (est > int64_t(held)) {
			w_.stats.restarts_forced += forced;
			return true;
		}
	} else if (srq_lost(srq_low_seq) > held) {
		w_.stats.restarts_forced += forced;
		w_.note("SRQ look: " + std::to_string(srq_lost(srq_low_seq)) +
			" out from before the note, " + std::to_string(held) +
			" QPs");
		return true;
	}
	unsigned fresh = srq_fresh();
	unsigned out = srq_lost(srq_done_seq);
	bool enough = fresh > std::min(held, k.srq_size / 4);
	bool rearm = k.old_srq_rearm || (enough && (k.prev_srq_rule || !out));
	if (rearm) {
		srq_low = false;
		w_.stats.rearms++;
		if (w_.hca.srq.empty())
			w_.stats.rearms_empty++;
		w_.note("SRQ limit re-armed, " +
			std::to_string(w_.hca.srq.size()) + " posted, " +
			std::to_string(fresh) + " fresh, " +
			std::to_string(srq_lost(srq_low_seq)) +
			" out from before, " + std::to_string(out) +
			" before the newest, " + std::to_string(held) + " QPs");
		srq_arm();
		return false;
	}
	w_.stats.renotes++;
	if (enough)
		w_.stats.renotes_out++;
	w_.note("SRQ look: " + std::to_string(fresh) + " fresh, " +
		std::to_string(out) + " before the newest, " +
		std::to_string(w_.hca.srq.size()) + " posted, " +
		std::to_string(held) + " QPs: a fresh note");
	srq_low_polled = cm_rx_polled;
	srq_low_seq = srq_done_seq;
	srq_low_ms = now;
	*deadline = std::min(*deadline, now + CM_SRQ_STARVE_MS);
	return false;
}

/* ipn_srq_repost() */
inline void Shim::srq_repost(int i)
{
	if (!posted[i])
		return;
	seq[i] = ++srq_seq;
	w_.hca.post_recv(i);
}

/* ipn_cm_rx_comp(): napi_schedule(). */
inline void Shim::cq_comp()
{
	if (!napi_on_ || napi_sched_)
		return;
	napi_sched_ = true;
	uint64_t g = napi_gen_;
	w_.loop.after(w_.uni(w_.cfg.shim.napi_min_delay_ms,
			     w_.cfg.shim.napi_max_delay_ms),
		      [this, g] {
			      if (g == napi_gen_)
				      rx_poll();
		      });
}

/* ipn_cm_rx_poll(): everything in the CQ, in order. */
inline void Shim::rx_poll()
{
	Cqe c;
	napi_sched_ = false;
	while (w_.hca.poll(&c))
		rx_one(c);
	w_.hca.check();
}

/* ipn_cm_rx_drained(): its own drain, not a QP's before at that address. */
inline void Shim::rx_drained(const Cqe &c)
{
	auto q = cm_rx_qps.find(c.qpn);
	if (q != cm_rx_qps.end()) {
		Rx &rx = rx_mem.at(q->second);
		if (uint32_t(c.wr_id) == rx.drain_id)
			rx.drained = true;
	}
	ctl_kick();
}

/* ipn_cm_rx_one(): the slot's seq noted, the frame delivered, reposted. */
inline void Shim::rx_one(const Cqe &c)
{
	if (c.wr_id & CM_DRAIN_WRID) {
		rx_drained(c);
		return;
	}
	int i = int(c.wr_id & (w_.cfg.shim.srq_size - 1));
	cm_rx_polled++;
	if (int32_t(seq[i] - srq_done_seq) > 0)
		srq_done_seq = seq[i];
	if (c.ok) {
		auto q = cm_rx_qps.find(c.qpn);
		if (q != cm_rx_qps.end()) {
			rx_mem.at(q->second).last_rx_ms = w_.loop.now;
			w_.stats.delivered++;
			if (w_.loop.now >= w_.probe_from)
				w_.stats.probe_delivered++;
		}
	}
	srq_repost(i);
}

/* ---- peers ------------------------------------------------------------- */

/* The REQ, then the REP: sending once it is back; refused: later again. */
inline void CmSim::peer_connect(int p)
{
	Peer &pr = peers[p];
	uint64_t g = ++pr.gen;
	pr.st = Peer::CONNECTING;
	pr.rx = -1;
	loop.after(cm_ms(), [this, p, g] {
		Peer &q = peers[p];
		if (q.gen != g)
			return;
		uint32_t qpn = 0;
		int rx = shim.req(p, &qpn);
		if (rx < 0) {
			loop.after(uni(cfg.traffic.refused_min_ms,
				       cfg.traffic.refused_max_ms),
				   [this, p, g] {
					   if (peers[p].gen == g)
						   peer_connect(p);
				   });
			return;
		}
		q.rx = rx;
		q.qpn = qpn;
		loop.after(cm_ms(), [this, p, g] {
			Peer &r = peers[p];
			if (r.gen != g)
				return;
			r.st = Peer::UP;
			r.rnr = 0;
			peer_next(p);
		});
	});
}

inline void CmSim::peer_next(int p)
{
	if (cfg.traffic.scripted)
		return;
	uint64_t g = peers[p].gen;
	loop.after(uni(cfg.traffic.gap_min_ms, cfg.traffic.gap_max_ms),
		   [this, p, g] {
			   if (peers[p].gen == g)
				   peer_msg(p);
		   });
}

/*
 * A message's first packet: a slot, an RNR NAK (the packet again after
 * the RNR timer, IPN_CM_RNR_RETRY times), or a QP gone. dur_ms < 0: a
 * random length.
 */
inline void CmSim::peer_msg(int p, int64_t dur_ms)
{
	Peer &pr = peers[p];
	uint64_t g = pr.gen;
	int slot = -1;

	switch (hca.take(pr.qpn, &slot)) {
	case Hca::TAKE_DEAD:
		/* The DREQ comes, or its retries run out. */
		loop.after(cfg.traffic.dead_qp_ms, [this, p, g] {
			if (peers[p].gen == g)
				peer_broken(p, true);
		});
		return;
	case Hca::TAKE_RNR:
		stats.rnr++;
		if (++pr.rnr > CM_RNR_RETRY) {
			peer_broken(p, true);
			return;
		}
		loop.after(cfg.traffic.rnr_ms, [this, p, g, dur_ms] {
			if (peers[p].gen == g)
				peer_msg(p, dur_ms);
		});
		return;
	case Hca::TAKE_OK:
		pr.rnr = 0;
		pr.busy = true;
		if (dur_ms < 0)
			dur_ms = uni(cfg.traffic.msg_min_ms,
				     cfg.traffic.msg_max_ms);
		loop.after(uint64_t(dur_ms), [this, p, g, slot] {
			if (peers[p].gen == g)
				peer_msg_end(p, slot);
		});
		return;
	}
}

inline void CmSim::peer_msg_end(int p, int slot)
{
	Peer &pr = peers[p];
	uint64_t g = pr.gen;
	pr.busy = false;
	if (hca.complete(pr.qpn, slot)) {
		peer_next(p);
		return;
	}
	/* Cut by our ERR: the DREQ comes, or its retries run out. */
	loop.after(cfg.traffic.dead_qp_ms, [this, p, g] {
		if (peers[p].gen == g)
			peer_broken(p, true);
	});
}

/*
 * Its connection broke (RNR retries exceeded, a QP error, our DREQ): it
 * disconnects (a DREQ unless it got ours) and connects on its next send.
 */
inline void CmSim::peer_broken(int p, bool send_dreq)
{
	Peer &pr = peers[p];
	int rx = pr.rx;
	if (send_dreq && rx >= 0)
		loop.after(cm_ms(), [this, rx] { shim.dreq(rx); });
	uint64_t g = ++pr.gen;
	pr.st = Peer::DOWN;
	pr.rx = -1;
	pr.busy = false;
	loop.after(uni(0, cfg.traffic.reconnect_max_ms), [this, p, g] {
		if (peers[p].gen == g)
			peer_connect(p);
	});
}

inline void CmSim::peer_dreq_from_us(int p, int rx)
{
	if (peers[p].rx == rx && !peers[p].away)
		peer_broken(p, false);
}

/*
 * Its interface down (ipn_cm_disconnect(): the CM ID first, so the DREQ
 * overtakes the rest of the message), or a crash (nothing sent: our side
 * reaps the connection when idle, or its next REQ replaces it); back
 * later.
 */
inline void CmSim::peer_down(int p, bool crash, uint32_t back_ms)
{
	Peer &pr = peers[p];
	int rx = pr.rx;
	if (!crash && rx >= 0)
		loop.after(cm_ms(), [this, rx] { shim.dreq(rx); });
	note(std::string("peer ") + std::to_string(p) +
	     (crash ? " crashes" : " goes down"));
	uint64_t g = ++pr.gen;
	pr.st = Peer::DOWN;
	pr.rx = -1;
	pr.busy = false;
	pr.away = true;
	loop.after(back_ms, [this, p, g] {
		Peer &q = peers[p];
		if (q.gen != g)
			return;
		q.away = false;
		peer_connect(p);
	});
}

/* A teardown at a random moment, then the next one. */
inline void CmSim::churn_step()
{
	const Traffic &t = cfg.traffic;
	int p = int(uni(0, uint32_t(t.peers - 1)));
	int what = int(uni(0, 999));
	stats.teardowns++;
	if (what < t.restart_permille) {
		stats.churn_restarts++;
		note("restart asked");
		shim.restart_request();
	} else if (!peers[p].away) {
		bool crash = what < t.restart_permille + t.crash_permille;
		peer_down(p, crash,
			  crash ? uni(500, t.crash_max_ms) :
				  uni(10, t.down_max_ms));
	}
	uint64_t next = loop.now + uni(t.teardown_min_ms, t.teardown_max_ms);
	if (next < t.churn_ms)
		loop.at(next, [this] { churn_step(); });
}

inline void CmSim::start()
{
	shim.cm_start();
	for (int p = 0; p < cfg.traffic.peers; p++)
		loop.after(uni(0, 100), [this, p] { peer_connect(p); });
}

/* The end: the liveness probe's verdict and the slots still lost. */
inline void CmSim::finish()
{
	stats.lost_at_end = hca.lost.size();
	uint32_t n = cfg.shim.srq_size;
	if (stats.lost_at_end > n - n / 4)
		violation(V_UNRECOVERED,
			  std::to_string(stats.lost_at_end) + " of " +
				  std::to_string(n) +
				  " slots still lost after the churn");
	if (!stats.probe_delivered) {
		violation(V_DEAD_RECEIVE,
			  "no message received in the probe window");
		if (shim.srq_low)
			stats.dead_low_pending++;
		else if (hca.limit && hca.srq.empty())
			stats.dead_armed_empty++;
	}
}

inline void CmSim::run()
{
	const Traffic &t = cfg.traffic;
	start();
	loop.at(uni(t.teardown_min_ms, t.teardown_max_ms),
		[this] { churn_step(); });
	probe_from = t.churn_ms + t.quiet_ms;
	loop.run_until(probe_from + t.probe_ms);
	finish();
}

/* One run of each seed in [first, first + n): the totals. */
inline Stats run_seeds(const Config &cfg, uint64_t first, int n,
		       int *failed = nullptr)
{
	Stats total;
	if (failed)
		*failed = 0;
	for (uint64_t s = first; s < first + uint64_t(n); s++) {
		CmSim w(cfg, s);
		w.run();
		if (failed && w.stats.violations_total())
			(*failed)++;
		total.add(w.stats);
	}
	return total;
}

} // namespace cmsim

#endif
