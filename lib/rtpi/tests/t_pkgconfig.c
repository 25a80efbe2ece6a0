/* A librtpi program built against the installed header, pkg-config file and
 * libraries (shared and static). */
#include <rtpi.h>
#include <stdio.h>
static DEFINE_PI_MUTEX(m, 0);
static DEFINE_PI_COND(c, RTPI_COND_CLOCK_REALTIME);
int main(void) { struct timespec t = {0, 0}; pi_mutex_lock(&m); int e = pi_cond_timedwait(&c, &m, &t); pi_mutex_unlock(&m); printf("%d\n", e); return e != 110; }
