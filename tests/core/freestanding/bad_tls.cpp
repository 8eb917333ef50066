/* thread_local: .tbss and %fs-relative TPOFF relocations. */
thread_local int per_thread;
extern "C" int get(void)
{
	return ++per_thread;
}
