#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of tests/vm/scenarios/observe.sh on the JSON of ipoibctl -j and of
the kernel's YNL client (cli.py --output-json): each prints what it found
and exits 1 with the reason when the check fails.

  obs_check.py path IPOIBCTL.json YNL.json GID STATE
      The path to GID is in both dumps, in STATE, with the same state,
      retries and source GID; a RoCE answer (dmac) in both.
  obs_check.py group IPOIBCTL.json YNL.json MGID OWNER JOINED
      The group MGID is in both, joined with JOINED (e.g. full), asked for
      by OWNER (stack, broadcast, ...), the same state and join bits.
  obs_check.py show IPOIBCTL.json YNL.json IFNAME BCAST_MGID
      The interface: carrier up (why "up"), its broadcast group MGID
      joined with a Q_Key, the same in both, the counters present.
  obs_check.py conn IPOIBCTL.json DIR GID STATE
      A connection in direction DIR (tx, rx) with the peer GID, in STATE,
      with frames counted.
  obs_check.py events MONITOR.jsonl TYPE KEY VALUE [TYPE KEY VALUE...]
      ipoibctl monitor -j printed an event of TYPE whose KEY is VALUE
      (GIDs compared as addresses); KEY and VALUE may name several,
      joined by "&" ("gid&dir" "fe80::1&tx").
  obs_check.py count MONITOR.jsonl TYPE KEY VALUE
      Prints how many events of TYPE have KEY VALUE.
"""
import ipaddress
import json
import sys


def gid(v):
    """A GID as ipoibctl (IPv6 text) or YNL (hex or IPv6 text) gives it."""
    if isinstance(v, list):
        v = bytes(v).hex()
    s = str(v)
    if ":" not in s and len(s) == 32:
        return ipaddress.IPv6Address(bytes.fromhex(s))
    return ipaddress.IPv6Address(s)


def norm(v):
    """YNL prints hex display hints ("0xffff"), ipoibctl numbers."""
    if isinstance(v, str) and v.startswith("0x"):
        return int(v, 16)
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    return v


def load(path):
    with open(path) as f:
        text = f.read()
    data = json.loads(text) if text.strip() else []
    if isinstance(data, dict):
        data = [data]
    return [norm(e) for e in data]


def ynl_bits(v):
    """YNL gives flags as a list/set of names, or a number."""
    if isinstance(v, (list, set, tuple)):
        return sorted(v)
    return v


def die(msg):
    print("obs_check: FAIL: " + msg)
    sys.exit(1)


def find(entries, key, want):
    for e in entries:
        if key in e and gid(e[key]) == want:
            return e
    return None


def find_both(ctl_file, ynl_file, key, want, what):
    """The entry whose KEY is WANT in ipoibctl's dump and in YNL's."""
    ctl, ynl = load(ctl_file), load(ynl_file)
    e, f = find(ctl, key, want), find(ynl, key, want)
    if not e:
        die("no %s %s in ipoibctl's dump: %s" % (what, want, ctl))
    if not f:
        die("no %s %s in the YNL client's dump: %s" % (what, want, ynl))
    print("ipoibctl:", e)
    print("ynl:     ", f)
    return e, f


def check_path(a):
    want, state = gid(a[2]), a[3]
    p, q = find_both(a[0], a[1], "gid", want, "path")
    if p.get("state") != state:
        die("path %s is %s, not %s" % (want, p.get("state"), state))
    for k in ("state", "attempts", "queued", "sl"):
        if p.get(k) != q.get(k):
            die("%s: ipoibctl %r, ynl %r" % (k, p.get(k), q.get(k)))
    if gid(p["sgid"]) != gid(q["sgid"]):
        die("sgid: ipoibctl %s, ynl %s" % (p["sgid"], q["sgid"]))
    if "dmac" not in p or "dmac" not in q:
        die("no RoCE answer (dmac) for %s" % want)
    if p["dmac"].replace(":", "") != str(q["dmac"]).replace(":", ""):
        die("dmac: ipoibctl %s, ynl %s" % (p["dmac"], q["dmac"]))


def check_group(a):
    want, owner, joined = gid(a[2]), a[3], a[4]
    g, h = find_both(a[0], a[1], "mgid", want, "group")
    if g.get("state") != "joined" or joined not in g.get("joined", []):
        die("group %s: state %s joined %s, not joined %s" %
            (want, g.get("state"), g.get("joined"), joined))
    if owner not in g.get("owner", []):
        die("group %s: owner %s, no %s" % (want, g.get("owner"), owner))
    if g.get("state") != h.get("state"):
        die("state: ipoibctl %s, ynl %s" % (g.get("state"), h.get("state")))
    if sorted(g.get("joined", [])) != ynl_bits(h.get("joined")):
        die("joined: ipoibctl %s, ynl %s" % (g.get("joined"), h.get("joined")))
    if g.get("qkey") != h.get("qkey") or g.get("qkey") is None:
        die("qkey: ipoibctl %s, ynl %s" % (g.get("qkey"), h.get("qkey")))


def check_show(a):
    ctl, ynl, ifname, bcast = load(a[0]), load(a[1]), a[2], gid(a[3])
    i = [e for e in ctl if e.get("ifname") == ifname]
    j = [e for e in ynl if e.get("ifname") == ifname]
    if not i or not j:
        die("%s not in both dumps: ipoibctl %s, ynl %s" % (ifname, ctl, ynl))
    i, j = i[0], j[0]
    print("ipoibctl:", {k: v for k, v in i.items() if k != "stats"})
    print("ynl:     ", {k: v for k, v in j.items() if k != "stats"})
    if i.get("link-up") != 1 or i.get("link-why") != "up":
        die("%s: link-up %s why %s" % (ifname, i.get("link-up"),
                                       i.get("link-why")))
    if j.get("link-why") not in ("up", 0):
        die("ynl: link-why %s" % j.get("link-why"))
    for k in ("ifindex", "qpn", "pkey", "mtu", "port", "ibdev", "mode"):
        if i.get(k) != j.get(k):
            die("%s: ipoibctl %r, ynl %r" % (k, i.get(k), j.get(k)))
    b = i.get("bcast", {})
    if gid(b.get("mgid", "::")) != bcast or b.get("state") != "joined":
        die("broadcast group: %s" % b)
    if "qkey" not in b or "broadcast" not in b.get("owner", []):
        die("broadcast group without Q_Key or owner: %s" % b)
    if gid(j["bcast"]["mgid"]) != bcast:
        die("ynl broadcast group: %s" % j.get("bcast"))
    if i.get("paths", 0) < 1:
        die("no path counted")
    st = i.get("stats", {})
    if st.get("path_queries", 0) < 1 or "drop_no_route" not in st:
        die("the counters of ethtool -S are not all there: %s" % st)


def check_conn(a):
    ctl, d, want, state = load(a[0]), a[1], gid(a[2]), a[3]
    for c in ctl:
        if c.get("dir") == d and gid(c["gid"]) == want:
            print("ipoibctl:", c)
            if c.get("state") != state:
                die("connection %s %s: %s, not %s" % (d, want,
                                                      c.get("state"), state))
            if c.get("frames", 0) < 1:
                die("connection %s %s: no frames counted" % (d, want))
            return
    die("no %s connection with %s: %s" % (d, want, ctl))


def matches(e, t, keys, vals):
    if e.get("type") != t:
        return False
    for k, v in zip(keys.split("&"), vals.split("&")):
        if k not in e:
            return False
        if k in ("gid", "mgid"):
            if gid(e[k]) != gid(v):
                return False
        elif str(e[k]) != v:
            return False
    return True


def check_events(a):
    evs = load_lines(a[0])
    rest = a[1:]
    while rest:
        t, k, v = rest[:3]
        rest = rest[3:]
        hit = [e for e in evs if matches(e, t, k, v)]
        if not hit:
            die("no %s event with %s %s among %d: %s" % (t, k, v, len(evs),
                                                        evs))
        print("event:", hit[0])


def count_events(a):
    evs = load_lines(a[0])
    print(len([e for e in evs if matches(e, a[1], a[2], a[3])]))
    sys.exit(0)


def load_lines(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line))
    return out


CHECKS = {"path": check_path, "group": check_group, "show": check_show,
          "conn": check_conn, "events": check_events,
          "count": count_events}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CHECKS:
        print(__doc__)
        sys.exit(2)
    CHECKS[sys.argv[1]](sys.argv[2:])
    print("obs_check: %s ok" % sys.argv[1])
