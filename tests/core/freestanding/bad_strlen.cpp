/* A libc call the kernel does not export under that name to us. */
extern "C" unsigned long strlen(const char *);
extern "C" unsigned long len(const char *s)
{
	return strlen(s) + 1;
}
