/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * abi-librtpi10.h - the objects laid out the way librtpi 1.0's public
 * header lays them out, written down from the ABI facts (no librtpi code):
 *
 *   pi_mutex_t  64-byte union, 64-byte aligned, its first words
 *               u32 futex, u32 flags;  PI_MUTEX_INIT(f) = { 0, f }
 *   pi_cond_t   128-byte union, 64-byte aligned, its first words
 *               u32 cond, flags, wake_id, state;
 *               PI_COND_INIT(f) = { 0, f, 0, 1 }  (state 1: ready)
 *   flags       RTPI_MUTEX_PSHARED 1, RTPI_COND_PSHARED 1,
 *               RTPI_COND_CLOCK_REALTIME 2
 *   C++         the initializers are constexpr functions; the mutex and
 *               condvar classes hold one object each, built by them
 *
 * Only the words named are set by an initializer: the rest of an
 * automatic object may hold anything.  The ABI tests include this header
 * instead of rtlab's rtpi.h and link against librtpi.so.1: what a program
 * built against librtpi 1.0 meets when rtlab's library replaces librtpi's.
 */
#ifndef ABI_LIBRTPI10_H
#define ABI_LIBRTPI10_H

#ifdef RTPI_H
#error "abi-librtpi10.h stands in for librtpi 1.0's header, not rtlab's rtpi.h"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

union pi_mutex {
	struct {
		uint32_t futex;
		uint32_t flags;
	};
	uint8_t pad[64];
} __attribute__((aligned(64)));

union pi_cond {
	struct {
		uint32_t cond;
		uint32_t flags;
		uint32_t wake_id;
		uint32_t state;
	};
	uint8_t pad[128];
} __attribute__((aligned(64)));

typedef union pi_mutex pi_mutex_t;
typedef union pi_cond pi_cond_t;

#define RTPI_MUTEX_PSHARED		0x1
#define RTPI_COND_PSHARED		0x1
#define RTPI_COND_CLOCK_REALTIME	0x2
#define ABI10_COND_READY		0x1

#ifndef __cplusplus
#define PI_MUTEX_INIT(f)	{ .futex = 0, .flags = (f) }
#define PI_COND_INIT(f)		{ .cond = 0, .flags = (f), .wake_id = 0, \
				  .state = ABI10_COND_READY }
#endif

#define DEFINE_PI_MUTEX(name, f)	pi_mutex_t name = PI_MUTEX_INIT(f)
#define DEFINE_PI_COND(name, f)		pi_cond_t name = PI_COND_INIT(f)

pi_mutex_t *pi_mutex_alloc(void);
void pi_mutex_free(pi_mutex_t *mutex);
int pi_mutex_init(pi_mutex_t *mutex, uint32_t flags);
int pi_mutex_destroy(pi_mutex_t *mutex);
int pi_mutex_lock(pi_mutex_t *mutex);
int pi_mutex_trylock(pi_mutex_t *mutex);
int pi_mutex_unlock(pi_mutex_t *mutex);

pi_cond_t *pi_cond_alloc(void);
void pi_cond_free(pi_cond_t *cond);
int pi_cond_init(pi_cond_t *cond, uint32_t flags);
int pi_cond_destroy(pi_cond_t *cond);
int pi_cond_wait(pi_cond_t *cond, pi_mutex_t *mutex);
int pi_cond_timedwait(pi_cond_t *cond, pi_mutex_t *mutex,
		      const struct timespec *abstime);
int pi_cond_signal(pi_cond_t *cond, pi_mutex_t *mutex);
int pi_cond_broadcast(pi_cond_t *cond, pi_mutex_t *mutex);

#ifdef __cplusplus
}

/* C++: the initializers are constant expressions returning the object */
constexpr pi_mutex PI_MUTEX_INIT(uint32_t f)
{
	return pi_mutex{ { 0, f } };
}

constexpr pi_cond PI_COND_INIT(uint32_t f)
{
	return pi_cond{ { 0, f, 0, ABI10_COND_READY } };
}
#endif

#endif /* ABI_LIBRTPI10_H */
