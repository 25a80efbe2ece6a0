// SPDX-License-Identifier: LGPL-2.1-or-later
/* A librtpi program that includes nothing but rtpi.h (issue 16): it uses
 * EXIT_FAILURE/exit (stdlib.h), pthread_create (pthread.h), PRIu64
 * (inttypes.h), errno values (errno.h), clock_gettime (time.h) and
 * FUTEX_WAITERS (linux/futex.h), as programs written for librtpi do.
 * Built as C and as C++; exit status 0 = every check held, else the number
 * of the first failed check. */
#include "rtpi.h"

static DEFINE_PI_MUTEX(mtx, 0);
static DEFINE_PI_COND(cnd, 0);
static int flag;

static void *signaller(void *arg)
{
	(void)arg;
	pi_mutex_lock(&mtx);
	flag = 1;
	pi_cond_signal(&cnd, &mtx);
	pi_mutex_unlock(&mtx);
	return NULL;
}

int main(void)
{
	static const char fmt[] = "%" PRIu64;
	struct timespec ts;
	pthread_t t;
	uint64_t big = UINT64_MAX;

	if (fmt[0] != '%' || big != (uint64_t)-1 || (FUTEX_WAITERS & 0x80000000u) == 0)
		exit(EXIT_FAILURE);
	if (pi_mutex_lock(&mtx) != 0 || pi_mutex_trylock(&mtx) != EDEADLK)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec = -1;
	if (pi_cond_timedwait(&cnd, &mtx, &ts) != EINVAL)
		return 3;
	if (pthread_create(&t, NULL, signaller, NULL) != 0)
		return 4;
	while (!flag)
		if (pi_cond_wait(&cnd, &mtx) != 0)
			return 5;
	pi_mutex_unlock(&mtx);
	pthread_join(t, NULL);
	errno = 0;
	if (pi_mutex_unlock(&mtx) != EPERM || errno != 0)
		return 6;	/* errors are returned, errno untouched */
	return EXIT_SUCCESS;
}
