// SPDX-License-Identifier: BSD-3-Clause
/*
 * LD_PRELOAD shim for the verification test: wraps memcpy and flips one bit of the
 * destination in the Nth call (NBW_FLIP_CALL, 1-based) whose size is NBW_FLIP_BYTES.
 * Every other call is the C library's memcpy, unchanged.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

typedef void *(*memcpy_fn)(void *, const void *, size_t);

static memcpy_fn real_memcpy;
static atomic_int resolving;
static atomic_ulong calls;

static void *byte_copy(void *dst, const void *src, size_t n)
{
	volatile unsigned char *d = dst;
	const unsigned char *s = src;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	if (!real_memcpy) {
		if (atomic_exchange(&resolving, 1))
			return byte_copy(dst, src, n); /* dlsym itself copying */
		real_memcpy = (memcpy_fn)dlsym(RTLD_NEXT, "memcpy");
		atomic_store(&resolving, 0);
		if (!real_memcpy)
			return byte_copy(dst, src, n);
	}
	void *r = real_memcpy(dst, src, n);
	const char *want = getenv("NBW_FLIP_BYTES"), *nth = getenv("NBW_FLIP_CALL");
	if (n && want && nth && n == strtoull(want, NULL, 10) &&
	    atomic_fetch_add(&calls, 1) + 1 == strtoul(nth, NULL, 10))
		((unsigned char *)dst)[n / 2] ^= 0x10;
	return r;
}
