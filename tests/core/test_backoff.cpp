// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The seeded generator and equal-jitter backoff (backoff.cpp). */
#include <gtest/gtest.h>

#include <set>

#include "core_test.hpp"

namespace
{

TEST(rng, seeded_streams_are_reproducible_and_distinct)
{
	struct ipc_rng a, b, c;
	ipc_rng_seed(&a, 42);
	ipc_rng_seed(&b, 42);
	ipc_rng_seed(&c, 43);
	int diff = 0;
	for (int i = 0; i < 100; i++) {
		uint32_t x = ipc_rng_next(&a);
		EXPECT_EQ(x, ipc_rng_next(&b));
		diff += x != ipc_rng_next(&c);
	}
	EXPECT_GT(diff, 95);
}

TEST(rng, never_zero_state)
{
	for (uint64_t seed : { 0ull, 1ull, ~0ull }) {
		struct ipc_rng r;
		ipc_rng_seed(&r, seed);
		EXPECT_NE(r.s, 0u);
	}
	/* An unseeded (zeroed) generator still produces a stream. */
	struct ipc_rng z = { 0 };
	std::set<uint32_t> seen;
	for (int i = 0; i < 64; i++)
		seen.insert(ipc_rng_next(&z));
	EXPECT_GT(seen.size(), 60u);
	EXPECT_NE(z.s, 0u);
}

TEST(rng, roughly_uniform)
{
	struct ipc_rng r;
	ipc_rng_seed(&r, 7);
	int buckets[16] = {};
	for (int i = 0; i < 160000; i++)
		buckets[ipc_rng_next(&r) >> 28]++;
	for (int n : buckets) {
		EXPECT_GT(n, 9400);
		EXPECT_LT(n, 10600);
	}
}

TEST(backoff, equal_jitter_bounds_per_attempt)
{
	struct ipc_backoff_cfg c = { 1000, 16000 };
	struct ipc_rng r;
	ipc_rng_seed(&r, 1);
	const uint32_t ceil[] = { 1000, 2000, 4000, 8000, 16000, 16000, 16000 };
	for (uint32_t attempt = 1; attempt <= 7; attempt++) {
		uint32_t d = ceil[attempt - 1];
		uint32_t lo = ~0u, hi = 0;
		for (int i = 0; i < 4000; i++) {
			uint32_t v = ipc_backoff_ms(&c, attempt, &r);
			ASSERT_GE(v, d / 2);
			ASSERT_LE(v, d);
			lo = std::min(lo, v);
			hi = std::max(hi, v);
		}
		/* The whole [d/2, d] range is used. */
		EXPECT_LT(lo, d / 2 + d / 50);
		EXPECT_GT(hi, d - d / 50);
	}
}

TEST(backoff, deterministic_ceiling_without_rng)
{
	struct ipc_backoff_cfg c = { 500, 3000 };
	EXPECT_EQ(ipc_backoff_ms(&c, 0, nullptr), 500u); /* 0 counts as 1 */
	EXPECT_EQ(ipc_backoff_ms(&c, 1, nullptr), 500u);
	EXPECT_EQ(ipc_backoff_ms(&c, 2, nullptr), 1000u);
	EXPECT_EQ(ipc_backoff_ms(&c, 3, nullptr), 2000u);
	EXPECT_EQ(ipc_backoff_ms(&c, 4, nullptr), 3000u);
	EXPECT_EQ(ipc_backoff_ms(&c, 200, nullptr), 3000u);
	EXPECT_EQ(ipc_backoff_ms(&c, ~0u, nullptr), 3000u);
}

TEST(backoff, no_overflow_at_extremes)
{
	struct ipc_backoff_cfg c = { 0x80000000u, 0xffffffffu };
	EXPECT_EQ(ipc_backoff_ms(&c, 1, nullptr), 0x80000000u);
	EXPECT_EQ(ipc_backoff_ms(&c, 2, nullptr), 0xffffffffu);
	struct ipc_rng r;
	ipc_rng_seed(&r, 3);
	for (int i = 0; i < 1000; i++) {
		uint32_t v = ipc_backoff_ms(&c, 40, &r);
		EXPECT_GE(v, 0x7fffffffu);
	}
	struct ipc_backoff_cfg z = { 0, 0 };
	EXPECT_EQ(ipc_backoff_ms(&z, 5, &r), 0u);
	struct ipc_backoff_cfg small = { 1, 1 };
	for (int i = 0; i < 100; i++)
		EXPECT_LE(ipc_backoff_ms(&small, 3, &r), 1u);
	/* cap below base: the cap wins */
	struct ipc_backoff_cfg inv = { 5000, 1000 };
	EXPECT_EQ(ipc_backoff_ms(&inv, 1, nullptr), 1000u);
}

} // namespace
