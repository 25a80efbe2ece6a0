// SPDX-License-Identifier: GPL-2.0
/* wakestorm: limits that decide whether a storm can be started at all. */
#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "limits.h"
#include "stats.h"

#define MiB(x) ((double)(x) / (1024.0 * 1024.0))

/* Capability numbers from linux/capability.h. */
#define WS_CAP_IPC_LOCK		14
#define WS_CAP_SYS_ADMIN	21
#define WS_CAP_SYS_NICE		23
#define WS_CAP_SYS_RESOURCE	24

static int read_u64(const char *path, uint64_t *v)
{
	unsigned long long x;
	char buf[64];
	FILE *f;
	int ok;

	f = fopen(path, "re");
	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	if (!strncmp(buf, "max", 3)) {
		*v = WS_UNLIMITED;
		return 0;
	}
	if (sscanf(buf, "%llu", &x) != 1)
		return -1;
	*v = x;
	return 0;
}

static int read_s64(const char *path, int64_t *v)
{
	long long x;
	FILE *f;
	int n;

	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fscanf(f, "%lld", &x);
	fclose(f);
	if (n != 1)
		return -1;
	*v = x;
	return 0;
}

/* Value of "Key:" in a /proc status-like file, first number. */
static int read_key(const char *path, const char *key, uint64_t *v, int hex)
{
	size_t klen = strlen(key);
	char line[256];
	int ret = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long x;

		if (strncmp(line, key, klen))
			continue;
		if (sscanf(line + klen, hex ? "%llx" : "%llu", &x) == 1) {
			*v = x;
			ret = 0;
		}
		break;
	}
	fclose(f);
	return ret;
}

static uint64_t rlim(int resource)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return WS_UNLIMITED;
	return rl.rlim_cur;
}

static uint64_t count_lines(const char *path)
{
	uint64_t n = 0;
	FILE *f;
	int c;

	f = fopen(path, "re");
	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		if (c == '\n')
			n++;
	fclose(f);
	return n;
}

/* Threads whose real uid is uid (what RLIMIT_NPROC counts). */
static uint64_t count_user_threads(uid_t uid)
{
	uint64_t n = 0;
	struct dirent *de;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		uint64_t ruid, threads;
		char path[300];

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		if (read_key(path, "Uid:", &ruid, 0) ||
		    read_key(path, "Threads:", &threads, 0))
			continue;
		if (ruid == uid)
			n += threads;
	}
	closedir(d);
	return n;
}

static void parse_cpumap(const char *list, uint64_t *map)
{
	static int cpus[WS_MAX_CPUS];
	char buf[4096];
	int i, n;

	snprintf(buf, sizeof(buf), "%s", list);
	buf[strcspn(buf, "\n")] = '\0';
	n = ws_parse_cpulist(buf, cpus, WS_MAX_CPUS);
	for (i = 0; i < n; i++)
		map[cpus[i] / 64] |= 1ull << (cpus[i] % 64);
}

/*
 * Directory of this process's cgroup: the v2 one ("0::/path") when v2 is
 * true, else the v1 hierarchy that carries controller. Returns -1 if none.
 */
static int cgroup_dir(const char *controller, bool v2, char *out, size_t len)
{
	char line[1024];
	int ret = -1;
	FILE *f;

	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		char *ctrl, *path, *tok, *save;

		line[strcspn(line, "\n")] = '\0';
		ctrl = strchr(line, ':');
		if (!ctrl)
			continue;
		ctrl++;
		path = strchr(ctrl, ':');
		if (!path)
			continue;
		*path++ = '\0';
		if (!strcmp(path, "/"))
			path = "";
		if (v2) {
			if (!*ctrl) {
				snprintf(out, len, "/sys/fs/cgroup%s", path);
				ret = 0;
			}
			continue;
		}
		for (tok = strtok_r(ctrl, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (!strcmp(tok, controller)) {
				snprintf(out, len, "/sys/fs/cgroup/%s%s",
					 controller, path);
				ret = 0;
				break;
			}
		}
	}
	fclose(f);
	return ret;
}

static void cgroup_limit(const char *ctrl, const char *max_v2,
			 const char *cur_v2, const char *max_v1,
			 const char *cur_v1, uint64_t *max, uint64_t *cur)
{
	char dir[1100], path[1200];

	*max = WS_UNLIMITED;
	*cur = 0;
	if (!cgroup_dir(ctrl, true, dir, sizeof(dir))) {
		snprintf(path, sizeof(path), "%s/%s", dir, max_v2);
		if (!read_u64(path, max)) {
			snprintf(path, sizeof(path), "%s/%s", dir, cur_v2);
			read_u64(path, cur);
			return;
		}
	}
	if (!cgroup_dir(ctrl, false, dir, sizeof(dir))) {
		snprintf(path, sizeof(path), "%s/%s", dir, max_v1);
		if (read_u64(path, max))
			return;
		/* v1 memory "no limit" is a huge number */
		if (*max >= (1ull << 62))
			*max = WS_UNLIMITED;
		snprintf(path, sizeof(path), "%s/%s", dir, cur_v1);
		read_u64(path, cur);
	}
}

void ws_env_read(struct ws_env *env)
{
	uint64_t capeff = 0, kb;
	char buf[4096];
	cpu_set_t set;
	long v;
	FILE *f;
	int i;

	memset(env, 0, sizeof(*env));
	if (read_u64("/proc/sys/kernel/threads-max", &env->threads_max))
		env->threads_max = WS_UNLIMITED;
	if (read_u64("/proc/sys/kernel/pid_max", &env->pid_max))
		env->pid_max = WS_UNLIMITED;
	if (read_u64("/proc/sys/vm/max_map_count", &env->max_map_count))
		env->max_map_count = WS_UNLIMITED;
	env->map_count = count_lines("/proc/self/maps");
	f = fopen("/proc/loadavg", "re");
	if (f) {
		unsigned long long running, total;

		if (fscanf(f, "%*s %*s %*s %llu/%llu", &running, &total) == 2)
			env->nr_threads = total;
		fclose(f);
	}

	read_key("/proc/self/status", "CapEff:", &capeff, 1);
	env->cap_ipc_lock = capeff >> WS_CAP_IPC_LOCK & 1;
	env->cap_sys_nice = capeff >> WS_CAP_SYS_NICE & 1;
	env->nproc_exempt = getuid() == 0 ||
			    (capeff >> WS_CAP_SYS_RESOURCE & 1) ||
			    (capeff >> WS_CAP_SYS_ADMIN & 1);
	env->rlimit_nproc = rlim(RLIMIT_NPROC);
	if (env->rlimit_nproc != WS_UNLIMITED && !env->nproc_exempt)
		env->user_threads = count_user_threads(getuid());
	env->rlimit_as = rlim(RLIMIT_AS);
	env->rlimit_memlock = rlim(RLIMIT_MEMLOCK);
	env->rlimit_rtprio = rlim(RLIMIT_RTPRIO);
	if (!read_key("/proc/self/status", "VmSize:", &kb, 0))
		env->vm_size = kb * 1024;
	if (!read_key("/proc/meminfo", "MemAvailable:", &kb, 0))
		env->mem_available = kb * 1024;
	else
		env->mem_available = WS_UNLIMITED;

	cgroup_limit("pids", "pids.max", "pids.current", "pids.max",
		     "pids.current", &env->cg_pids_max, &env->cg_pids_current);
	cgroup_limit("memory", "memory.max", "memory.current",
		     "memory.limit_in_bytes", "memory.usage_in_bytes",
		     &env->cg_mem_max, &env->cg_mem_current);

	v = sysconf(_SC_PAGESIZE);
	env->page_size = v > 0 ? (size_t)v : 4096;
	v = sysconf(_SC_THREAD_STACK_MIN);
	env->stack_min = v > 0 ? (size_t)v : 16384;

	f = fopen("/sys/devices/system/cpu/online", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			parse_cpumap(buf, env->online);
		fclose(f);
	}
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (i = 0; i < CPU_SETSIZE && i < (int)WS_MAX_CPUS; i++)
			if (CPU_ISSET(i, &set))
				env->allowed[i / 64] |= 1ull << (i % 64);
	}
	for (i = 0; i < (int)WS_MAX_CPUS; i++)
		env->nr_online += ws_cpu_in(env->online, i);

	if (read_s64("/proc/sys/kernel/sched_rt_runtime_us", &env->rt_runtime_us))
		env->rt_runtime_us = -1;
	if (read_u64("/proc/sys/kernel/sched_rt_period_us", &env->rt_period_us))
		env->rt_period_us = 1000000;
	if (read_u64("/proc/sys/kernel/sched_deadline_period_min_us",
		     &env->dl_period_min_us))
		env->dl_period_min_us = 0;
	if (read_u64("/proc/sys/kernel/sched_deadline_period_max_us",
		     &env->dl_period_max_us))
		env->dl_period_max_us = WS_UNLIMITED;
}

uint64_t ws_thread_mem(const struct ws_opts *o, const struct ws_env *env)
{
	uint64_t m = WS_THREAD_OVERHEAD;

	if (o->mlock)
		m += o->stack_size + env->page_size;
	return m;
}

int ws_check_limits(const struct ws_opts *o, const struct ws_env *env,
		    char *err, size_t errlen)
{
	uint64_t n = o->threads, need, stack_vm, have;
	unsigned int i;

	if (o->stack_size < env->stack_min)
		return ws_fail(err, errlen,
			"-s/--stack-size %zu: below this system's minimum thread stack (PTHREAD_STACK_MIN %zu)",
			o->stack_size, env->stack_min);

	for (i = 0; i < o->ncpus; i++) {
		if (!ws_cpu_in(env->online, o->cpus[i]))
			return ws_fail(err, errlen,
				"-a/--cpus: CPU %d is not online", o->cpus[i]);
		if (!ws_cpu_in(env->allowed, o->cpus[i]))
			return ws_fail(err, errlen,
				"-a/--cpus: CPU %d is not in this process's allowed CPUs (taskset/cpuset)",
				o->cpus[i]);
	}

	/* Who may use the policy: the kernel's user_check_sched_setscheduler(). */
	if ((o->policy == WS_POLICY_FIFO || o->policy == WS_POLICY_RR) &&
	    !env->cap_sys_nice && env->rlimit_rtprio != WS_UNLIMITED &&
	    env->rlimit_rtprio < (uint64_t)o->priority)
		return ws_fail(err, errlen,
			"-p/--policy %s -P %d: not permitted: needs capability CAP_SYS_NICE or RLIMIT_RTPRIO (ulimit -r) >= %d, which is %llu",
			ws_policy_name(o->policy), o->priority, o->priority,
			(unsigned long long)env->rlimit_rtprio);
	if (o->policy == WS_POLICY_DEADLINE && !env->cap_sys_nice)
		return ws_fail(err, errlen,
			"-p/--policy deadline: not permitted: SCHED_DEADLINE needs capability CAP_SYS_NICE");

	if (env->threads_max != WS_UNLIMITED &&
	    env->nr_threads + n + 1 > env->threads_max)
		return ws_fail(err, errlen,
			"-n/--threads %llu: too many threads: the kernel allows %llu (kernel.threads-max) and %llu exist already",
			(unsigned long long)n,
			(unsigned long long)env->threads_max,
			(unsigned long long)env->nr_threads);
	if (env->pid_max != WS_UNLIMITED && env->nr_threads + n + 1 > env->pid_max)
		return ws_fail(err, errlen,
			"-n/--threads %llu: too many threads: only %llu ids exist (kernel.pid_max) and %llu are in use",
			(unsigned long long)n, (unsigned long long)env->pid_max,
			(unsigned long long)env->nr_threads);
	if (!env->nproc_exempt && env->rlimit_nproc != WS_UNLIMITED &&
	    env->user_threads + n > env->rlimit_nproc)
		return ws_fail(err, errlen,
			"-n/--threads %llu: too many threads: RLIMIT_NPROC (ulimit -u) is %llu and this user runs %llu already (CAP_SYS_RESOURCE lifts the limit)",
			(unsigned long long)n,
			(unsigned long long)env->rlimit_nproc,
			(unsigned long long)env->user_threads);
	if (env->cg_pids_max != WS_UNLIMITED &&
	    env->cg_pids_current + n > env->cg_pids_max)
		return ws_fail(err, errlen,
			"-n/--threads %llu: too many threads: the cgroup's pids.max is %llu and %llu are in use",
			(unsigned long long)n,
			(unsigned long long)env->cg_pids_max,
			(unsigned long long)env->cg_pids_current);
	/* a thread stack is one mapping plus its guard page */
	if (env->max_map_count != WS_UNLIMITED &&
	    env->map_count + 2 * n + 16 > env->max_map_count)
		return ws_fail(err, errlen,
			"-n/--threads %llu: too many threads: their stacks need %llu memory mappings, vm.max_map_count is %llu",
			(unsigned long long)n,
			(unsigned long long)(env->map_count + 2 * n),
			(unsigned long long)env->max_map_count);

	stack_vm = n * ((uint64_t)o->stack_size + env->page_size);
	if (env->rlimit_as != WS_UNLIMITED &&
	    env->vm_size + stack_vm > env->rlimit_as)
		return ws_fail(err, errlen,
			"-n/--threads %llu with -s/--stack-size %zu: the stacks need %.1f MiB of address space, RLIMIT_AS (ulimit -v) leaves %.1f MiB",
			(unsigned long long)n, o->stack_size, MiB(stack_vm),
			MiB(env->rlimit_as > env->vm_size ?
			    env->rlimit_as - env->vm_size : 0));

	need = n * ws_thread_mem(o, env) +
	       o->iterations * sizeof(struct ws_expiry_rec);
	if (env->mem_available != WS_UNLIMITED && need > env->mem_available)
		return ws_fail(err, errlen,
			"-n/--threads %llu%s: needs about %.1f MiB of memory, MemAvailable is %.1f MiB",
			(unsigned long long)n,
			o->mlock ? " with -m/--mlock" : "", MiB(need),
			MiB(env->mem_available));
	if (env->cg_mem_max != WS_UNLIMITED) {
		have = env->cg_mem_max > env->cg_mem_current ?
		       env->cg_mem_max - env->cg_mem_current : 0;
		if (need > have)
			return ws_fail(err, errlen,
				"-n/--threads %llu%s: needs about %.1f MiB of memory, the cgroup's memory limit leaves %.1f MiB",
				(unsigned long long)n,
				o->mlock ? " with -m/--mlock" : "", MiB(need),
				MiB(have));
	}
	if (o->mlock && !env->cap_ipc_lock &&
	    env->rlimit_memlock != WS_UNLIMITED &&
	    env->vm_size + stack_vm > env->rlimit_memlock)
		return ws_fail(err, errlen,
			"-m/--mlock: locking %.1f MiB exceeds RLIMIT_MEMLOCK (ulimit -l) of %.1f MiB; needs capability CAP_IPC_LOCK or a higher limit",
			MiB(env->vm_size + stack_vm), MiB(env->rlimit_memlock));

	if (o->policy == WS_POLICY_DEADLINE) {
		uint64_t p_us = o->dl_period_ns / 1000;
		double want, cap;

		if (p_us < env->dl_period_min_us ||
		    (env->dl_period_max_us != WS_UNLIMITED &&
		     p_us > env->dl_period_max_us))
			return ws_fail(err, errlen,
				"--dl-period %llu us: outside the kernel's range %llu..%llu us (kernel.sched_deadline_period_min_us/max_us)",
				(unsigned long long)p_us,
				(unsigned long long)env->dl_period_min_us,
				(unsigned long long)env->dl_period_max_us);
		if (env->rt_runtime_us >= 0 && env->rt_period_us) {
			want = (double)n * (double)o->dl_runtime_ns /
			       (double)o->dl_period_ns;
			cap = (double)env->rt_runtime_us /
			      (double)env->rt_period_us * env->nr_online;
			if (want > cap)
				return ws_fail(err, errlen,
					"-n/--threads %llu with --dl-runtime/--dl-period: needs %.2f CPUs of SCHED_DEADLINE bandwidth, admission control allows at most %.2f (kernel.sched_rt_runtime_us/sched_rt_period_us x %u CPUs)",
					(unsigned long long)n, want, cap,
					env->nr_online);
		}
	}
	return 0;
}
