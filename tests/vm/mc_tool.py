#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Multicast endpoints for the VM scenarios (tests/vm/scenarios/mcast.sh).

  mc_tool.py recv IFNAME GROUP PORT OUT
      Join GROUP (IPv4 or IPv6) on IFNAME, bind PORT, and append every
      datagram received to OUT, one per line, until SIGTERM. Writes
      OUT.ready once the membership is taken.
  mc_tool.py send IFNAME GROUP PORT TAG COUNT [INTERVAL]
      Send COUNT datagrams "TAG <seq>" to GROUP out of IFNAME without
      joining it (hop limit 1 for link scope groups, 8 otherwise).
  mc_tool.py churn IFNAME PREFIX N ROUNDS HOLD [MCG]
      ROUNDS times: join the N IPv4 groups PREFIX.<i // 250>.<i % 250 + 1>
      on IFNAME from one socket, hold them HOLD seconds, leave them all.
      With MCG (the driver's debugfs group table), each round also waits
      up to 30 s for N FullMember groups of PREFIX there and prints the
      count seen ("joined in the driver: K").
"""
import ipaddress
import os
import signal
import socket
import struct
import sys
import time


def family(group):
    return socket.AF_INET6 if ":" in group else socket.AF_INET


def mreq4(group, ifindex):
    # struct ip_mreqn: group, local address (any), ifindex
    return socket.inet_aton(group) + socket.inet_aton("0.0.0.0") + \
        struct.pack("@i", ifindex)


def join(s, group, ifindex):
    if family(group) == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
                     socket.inet_pton(socket.AF_INET6, group) +
                     struct.pack("@I", ifindex))
    else:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                     mreq4(group, ifindex))


def leave(s, group, ifindex):
    s.setsockopt(socket.IPPROTO_IP, socket.IP_DROP_MEMBERSHIP,
                 mreq4(group, ifindex))


def recv(ifname, group, port, out):
    ifindex = socket.if_nametoindex(ifname)
    s = socket.socket(family(group), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((group, port))
    join(s, group, ifindex)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    s.settimeout(0.2)
    with open(out, "a", buffering=1) as f:
        open(out + ".ready", "w").close()
        while not stop:
            try:
                data = s.recv(2048)
            except socket.timeout:
                continue
            except InterruptedError:
                continue
            f.write(data.decode(errors="replace") + "\n")


def send(ifname, group, port, tag, count, interval):
    ifindex = socket.if_nametoindex(ifname)
    fam = family(group)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    link = ipaddress.ip_address(group) in (
        ipaddress.ip_network("224.0.0.0/24") if fam == socket.AF_INET
        else ipaddress.ip_network("ff02::/16"))
    hops = 1 if link else 8
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, ifindex)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, hops)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_LOOP, 0)
    else:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
                     mreq4("0.0.0.0", ifindex))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, hops)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    for i in range(count):
        s.sendto(("%s %d" % (tag, i)).encode(), (group, port))
        time.sleep(interval)


def mgid_prefix(prefix):
    """The debugfs (%pI6) form of the MGIDs of PREFIX.x.y: s4's low 28 bits."""
    a, b = (int(x) for x in prefix.split("."))
    return "ff12:401b:ffff:0000:0000:0000:%04x:" % (((a & 0x0f) << 8) | b)


def joined_in_driver(mcg, prefix):
    want = mgid_prefix(prefix)
    with open(mcg) as f:
        return sum(1 for line in f if line.startswith(want) and
                   " state joined want full " in line)


def churn(ifname, prefix, n, rounds, hold, mcg=None):
    ifindex = socket.if_nametoindex(ifname)
    groups = ["%s.%d.%d" % (prefix, i // 250, i % 250 + 1) for i in range(n)]
    for r in range(rounds):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for g in groups:
            join(s, g, ifindex)
        if mcg:
            end = time.monotonic() + 30
            while joined_in_driver(mcg, prefix) < n and \
                    time.monotonic() < end:
                time.sleep(0.2)
            print("round %d: joined in the driver: %d" %
                  (r + 1, joined_in_driver(mcg, prefix)), flush=True)
        time.sleep(hold)
        for g in groups:
            leave(s, g, ifindex)
        s.close()
        time.sleep(hold)
        print("churn round %d: %d groups joined and left" % (r + 1, n),
              flush=True)


def main(argv):
    cmd = argv[1]
    if cmd == "recv":
        recv(argv[2], argv[3], int(argv[4]), argv[5])
    elif cmd == "send":
        send(argv[2], argv[3], int(argv[4]), argv[5], int(argv[6]),
             float(argv[7]) if len(argv) > 7 else 0.02)
    elif cmd == "churn":
        churn(argv[2], argv[3], int(argv[4]), int(argv[5]), float(argv[6]),
              argv[7] if len(argv) > 7 else None)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
