/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rtpi.h - priority-inheriting mutex and condition variable (rtlab librtpi)
 *
 * Source and binary compatible with librtpi 1.0's rtpi.h: same type names,
 * function names and signatures, same static initializers and flags, same
 * object sizes and layout (pi_mutex_t 64 bytes, pi_cond_t 128 bytes,
 * 64-byte aligned).
 * All functions return 0 or a positive errno value; errno is not changed.
 * See pi_mutex_init(3), pi_cond_init(3) and rtpi(7).
 */
#ifndef RTPI_H
#define RTPI_H

/* what librtpi's rtpi.h brings in: programs rely on it */
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Binary compatible with librtpi 1.0: the same sizes, alignment, field
 * offsets and static initializer values, so programs built against
 * librtpi 1.0's headers run on this library (same SONAME).  librtpi's
 * initializers set only the words named below (the rest of an automatic
 * object may hold anything): the library makes everything else valid on
 * first use.  A mutex whose words are { 0, flags } and a condvar whose
 * words are { 0, flags, 0, RTPI_COND_STATE_READY } are initialized objects.
 */
typedef union pi_mutex {
	struct {
		uint32_t futex;	/* 0 or owner TID | FUTEX_WAITERS */
		uint32_t flags;	/* RTPI_MUTEX_*; bit 31: destroyed */
	};
	uint8_t pad[64];
} __attribute__((aligned(64))) pi_mutex_t;

typedef union pi_cond {
	struct {
		uint32_t seq;		/* futex word the waiters sleep on */
		uint32_t flags;		/* RTPI_COND_* */
		uint32_t lock;		/* internal PI lock (TID word) */
		uint32_t state;		/* RTPI_COND_STATE_READY while valid */
		/* valid once the condvar was used (seq != 0) */
		uint32_t waiters;	/* upper bound of sleepers */
		uint32_t spare_;
		int64_t mutex_off;	/* mutex address - cond address */
	};
	uint8_t pad[128];
} __attribute__((aligned(64))) pi_cond_t;

#define RTPI_MUTEX_PSHARED		0x1

#define RTPI_COND_PSHARED		0x1
#define RTPI_COND_CLOCK_REALTIME	0x2

/* the state word of an initialized condvar (librtpi 1.0's value) */
#define RTPI_COND_STATE_READY		0x1

/* positional, every field: valid C and C++ (librtpi offers both) */
#define PI_MUTEX_INIT(f) { { 0, (uint32_t)(f) } }
#define PI_COND_INIT(f)  { { 0, (uint32_t)(f), 0, RTPI_COND_STATE_READY, 0, 0, 0 } }

#define DEFINE_PI_MUTEX(mutex, flags) pi_mutex_t mutex = PI_MUTEX_INIT(flags)
#define DEFINE_PI_COND(condvar, flags) pi_cond_t condvar = PI_COND_INIT(flags)

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
#endif

#endif /* RTPI_H */
