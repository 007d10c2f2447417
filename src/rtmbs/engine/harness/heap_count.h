/* heap_count.h -- the heap calls of a program without Python, counted: malloc, calloc and
 * realloc wrapped at link time (-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc). Included once,
 * by the file with main (the harness, tests/engine/truck_dense_driver.c); heap_calls is the
 * program's own counter (the engine has no globals). */
#ifndef RTMBS_HEAP_COUNT_H
#define RTMBS_HEAP_COUNT_H

#include <stddef.h>

static long heap_calls = 0;
void* __real_malloc(size_t size);
void* __real_calloc(size_t n, size_t size);
void* __real_realloc(void* p, size_t size);
void* __wrap_malloc(size_t size) { heap_calls++; return __real_malloc(size); }
void* __wrap_calloc(size_t n, size_t size) { heap_calls++; return __real_calloc(n, size); }
void* __wrap_realloc(void* p, size_t size) { heap_calls++; return __real_realloc(p, size); }

#endif /* RTMBS_HEAP_COUNT_H */
