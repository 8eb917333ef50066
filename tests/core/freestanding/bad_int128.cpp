/* 128-bit division needs libgcc's __udivti3. */
extern "C" unsigned long long div(unsigned __int128 a, unsigned long long b)
{
	return static_cast<unsigned long long>(a / b);
}
