/* Heap allocation: operator new is undefined in the kernel. */
struct node {
	int v;
};
extern "C" void *make(void)
{
	return new node{ 1 };
}
