// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Shared by the libFuzzer targets: input slicing and a hard assert. */
#ifndef IPOIB_FUZZ_UTIL_HPP
#define IPOIB_FUZZ_UTIL_HPP

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "ipoib_core.h"
}

/* An invariant the core promises; a violation is a crash libFuzzer keeps. */
#define FUZZ_CHECK(cond)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			std::fprintf(stderr, "%s:%d: invariant failed: %s\n", \
				     __FILE__, __LINE__, #cond);              \
			std::abort();                                         \
		}                                                             \
	} while (0)

/* Consume bytes from the front of the input; zeros once it runs out. */
class Input {
public:
	Input(const uint8_t *d, size_t n)
		: d_(d)
		, n_(n)
	{
	}
	void take(void *out, size_t len)
	{
		size_t k = len < n_ ? len : n_;
		std::memcpy(out, d_, k);
		std::memset(static_cast<uint8_t *>(out) + k, 0, len - k);
		d_ += k;
		n_ -= k;
	}
	uint8_t byte()
	{
		uint8_t b;
		take(&b, 1);
		return b;
	}
	uint32_t u32()
	{
		uint8_t b[4];
		take(b, 4);
		return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 |
		       uint32_t(b[2]) << 8 | b[3];
	}
	const uint8_t *rest() const
	{
		return d_;
	}
	size_t left() const
	{
		return n_;
	}

private:
	const uint8_t *d_;
	size_t n_;
};

inline uint16_t be16(const uint8_t *p)
{
	return uint16_t(p[0] << 8 | p[1]);
}

inline uint32_t be24(const uint8_t *p)
{
	return uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2];
}

/* A 20-byte address that may stand for a unicast sender. */
inline bool unicast_endpoint(const uint8_t *a)
{
	static const uint8_t zero[16] = {};
	uint32_t q = be24(a + 1);
	return q != 0 && q != IPC_QPN_MCAST && a[4] != 0xff &&
	       std::memcmp(a + 4, zero, 16) != 0;
}

#endif
