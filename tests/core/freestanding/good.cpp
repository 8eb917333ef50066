// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the core may do: constexpr tables, struct copies, an indirect call. */
struct big {
	unsigned char b[64];
};

constexpr int table[4] = { 1, 2, 4, 8 };
constinit int counter = 0;

extern "C" void copy_big(struct big *d, const struct big *s)
{
	*d = *s;
	__builtin_memset(d->b, 0, 8);
}

extern "C" int call(int (*fn)(int), int x)
{
	char buf[32];
	__builtin_memcpy(buf, &x, sizeof(x));
	counter++;
	return fn(buf[0]) + table[x & 3];
}
