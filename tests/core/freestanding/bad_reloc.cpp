/*
 * Addresses of a global: PC-relative or R_X86_64_32S in the kernel model,
 * a GOT load when built as PIC, R_X86_64_32 in the small code model.
 */
extern int shared_counter;
extern "C" int *counter_addr(void)
{
	return &shared_counter;
}
