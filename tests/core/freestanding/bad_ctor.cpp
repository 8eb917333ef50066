/* A global with a dynamic initializer: .init_array, never run. */
extern "C" int value(void);
int cached = value();
