/* Floating point: compiled without -mno-sse it lives in %xmm registers. */
extern "C" int scale(int x, float f)
{
	return static_cast<int>(x * f);
}
