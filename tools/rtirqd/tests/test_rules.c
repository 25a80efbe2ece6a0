// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the rtirqd parser, matcher, loader and apply paths.
 * Prints TAP test points (no plan: the runner numbers and plans them).
 */
#include "../src/rtirqd.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int failures;

static void ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		failures++;
}

/* ------------------------------------------------------------ helpers */

struct errs {
	int n;
	char text[8192];
};

static void collect(void *arg, const char *file, int line, const char *msg)
{
	struct errs *e = arg;
	size_t o = strlen(e->text);

	e->n++;
	snprintf(e->text + o, sizeof(e->text) - o, "%s:%d: %s\n", file, line,
		 msg);
}

static struct parse_ctx ctx4;	/* present CPUs 0-3 */

static int parse(struct ruleset *rs, const char *text, struct errs *e)
{
	memset(e, 0, sizeof(*e));
	ruleset_init(rs);
	int n = rules_parse_buffer(rs, "t.rules", text, strlen(text), &ctx4,
				   collect, e);
	ruleset_finish(rs);
	return n;
}

static struct task_info kt(const char *comm)
{
	struct task_info t;

	memset(&t, 0, sizeof(t));
	t.pid = 1000;
	t.kthread = true;
	t.irq = -1;
	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	return t;
}

static struct task_info irqt(const char *comm, int irq, const char *action,
			     bool secondary)
{
	struct task_info t = kt(comm);

	t.irq = irq;
	t.secondary = secondary;
	snprintf(t.action, sizeof(t.action), "%s", action);
	return t;
}

static const char *matched(const struct ruleset *rs, struct task_info t)
{
	const struct rule *r = rules_match(rs, &t);

	return r ? r->name : "(none)";
}

/* Expect one error on `line` whose message contains every needle. */
static void expect_error(const char *text, int nerr, const char *n1,
			 const char *n2, const char *what)
{
	struct ruleset rs;
	struct errs e;
	int n = parse(&rs, text, &e);

	ok(n == nerr && e.n == nerr && rs.n == 0 &&
	   strstr(e.text, "t.rules:1: ") && strstr(e.text, n1) &&
	   (!n2 || strstr(e.text, n2)),
	   "rejects %s (%d error%s)%s%s", what, n, n == 1 ? "" : "s",
	   n == nerr ? "" : ": ", n == nerr ? "" : e.text);
	if (n != nerr || !strstr(e.text, n1) || (n2 && !strstr(e.text, n2)))
		printf("# got: %s", e.text);
	ruleset_free(&rs);
}

/* ------------------------------------------------------------ parser */

/* The commented examples of rtctl's /etc/rtgroups (RHEL for Real Time). */
static const char rhel_rtgroups[] =
	"# rtgroups: rtctl's documented example groups\n"
	"kthreads:*:*:*:\\[.*\\]$\n"
	"softirq:f:1:*:\\[ksoftirqd\\/.*\\]\n"
	"rcu:f:1:*:\\[rcu[bc]\\/.*\\]\n"
	"rpciod:o:*:*:\\[rpciod.*\\]\n"
	"lockd:*:*:*:\\[lockd.*\\]\n"
	"nfsd:*:*:*:\\[nfsd.*\\]\n"
	"hardirq:f:50:*:\\[irq[\\-_/].*\\]\n"
	"rcun:f:99:*:\\[rcun\\/.*\\]\n"
	"watchdog:f:99:*:\\[watchdog\\/.*\\]\n"
	"migration:f:99:*:\\[migration\\/.*\\]\n";

/* A distribution default in the same format (5 fields, one 4-field line). */
static const char distro_rtgroups[] =
	"kthreadd:f:25:*:\\[kthreadd\\]$\n"
	"irqthread:f:15:*:\\[irq\\/.+\\]$\n"
	"irq_work:f:12:*:\\[irq_work\\/.+\\]$\n"
	"ktimers:f:10:*:\\[ktimers\\/.+\\]$\n"
	"rcu:f:2:*:\\[rcu(b|c|og)\\/[0-9]+\\]$\n"
	"rcu_preempt:f:2:\\[rcu_preempt\\]$\n"
	"ksoftirqd:f:1:*:\\[ksoftirqd\\/.+\\]$\n";

static void test_rtctl_examples(void)
{
	struct ruleset rs;
	struct errs e;
	int n = parse(&rs, rhel_rtgroups, &e);

	ok(n == 0 && rs.n == 10, "rtctl documented groups parse (%zu rules)",
	   rs.n);
	ok(strcmp(matched(&rs, kt("ksoftirqd/0")), "softirq") == 0,
	   "[ksoftirqd/0] -> softirq");
	ok(strcmp(matched(&rs, kt("rcub/1")), "rcu") == 0, "[rcub/1] -> rcu");
	ok(strcmp(matched(&rs, kt("irq/16-eth0")), "hardirq") == 0,
	   "[irq/16-eth0] -> hardirq");
	ok(strcmp(matched(&rs, kt("migration/3")), "migration") == 0,
	   "[migration/3] -> migration");
	ok(strcmp(matched(&rs, kt("kworker/0:1H")), "kthreads") == 0,
	   "[kworker/0:1H] -> kthreads (catch-all, first line)");
	{
		struct task_info u = kt("ksoftirqd/0");

		u.kthread = false;
		ok(rules_match(&rs, &u) == NULL,
		   "a user thread named ksoftirqd/0 is not [ksoftirqd/0]");
	}
	{
		const struct rule *r = rules_match(&rs, &(struct task_info){
			.kthread = true, .irq = -1, .comm = "rpciod" });
		ok(r && r->sched == 'o' && r->prio == 0 && !r->has_affinity,
		   "rpciod:o:*:* is SCHED_OTHER 0, affinity kept");
		r = rules_match(&rs, &(struct task_info){
			.kthread = true, .irq = -1, .comm = "lockd" });
		ok(r && r->sched == '*' && r->prio == PRIO_LEAVE,
		   "lockd:*:*:* leaves policy and priority");
	}
	ruleset_free(&rs);

	n = parse(&rs, distro_rtgroups, &e);
	ok(n == 0 && rs.n == 7, "distribution default parses (%zu rules)%s",
	   rs.n, e.text);
	{
		const struct rule *r = rules_match(&rs, &(struct task_info){
			.kthread = true, .irq = -1, .comm = "rcu_preempt" });
		ok(r && strcmp(r->name, "rcu_preempt") == 0 &&
		   r->sched == 'f' && r->prio == 2 && !r->has_affinity,
		   "4-field line name:sched:prio:regex (old rtctl) is read with affinity *");
	}
	ok(strcmp(matched(&rs, kt("irq_work/1")), "irq_work") == 0,
	   "[irq_work/1] -> irq_work, not irqthread");
	ok(strcmp(matched(&rs, kt("irq/9-acpi")), "irqthread") == 0,
	   "[irq/9-acpi] -> irqthread");
	ok(strcmp(matched(&rs, kt("kthreadd")), "kthreadd") == 0,
	   "[kthreadd] -> kthreadd");
	ok(strcmp(matched(&rs, kt("rcuog/0")), "rcu") == 0, "[rcuog/0] -> rcu");
	ok(rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
			.comm = "rcuop/0" }) == NULL, "[rcuop/0] matches no rule");
	ruleset_free(&rs);

	n = parse(&rs, "kthreads:o:0:\\[.*\\]$\r\nwatchdog:f:99:\\[watchdog.*\\]\r\n",
		  &e);
	ok(n == 0 && rs.n == 2 &&
	   strcmp(matched(&rs, kt("watchdog/0")), "watchdog") == 0,
	   "MRG 4-field file with CRLF line ends");
	ruleset_free(&rs);
}

static void test_last_match_wins(void)
{
	struct ruleset rs;
	struct errs e;
	const struct rule *r;

	parse(&rs,
	      "a:f:10:*:\\[irq/.*\\]\n"
	      "\n"
	      "   # indented comment\n"
	      "b:f:20:1:\\[irq/.*eth.*\\]\n"
	      "c:r:30:*:\\[irq/9-.*\\]\n", &e);
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
			.comm = "irq/16-eth0" });
	ok(r && strcmp(r->name, "b") == 0 && r->prio == 20 &&
	   r->has_affinity && CPU_ISSET(0, &r->affinity) &&
	   CPU_COUNT(&r->affinity) == 1, "last matching rule wins (b)");
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
			.comm = "irq/9-acpi" });
	ok(r && strcmp(r->name, "c") == 0 && r->sched == 'r',
	   "last matching rule wins (c, SCHED_RR)");
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
			.comm = "irq/11-ahci" });
	ok(r && strcmp(r->name, "a") == 0 && r->line == 1,
	   "only the first rule matches irq/11 (line 1)");
	ruleset_free(&rs);

	/* drop-ins: a later file overrides an earlier one */
	ruleset_init(&rs);
	memset(&e, 0, sizeof(e));
	{
		const char *a = "x:f:10:*:\\[ktimers/.*\\]\n"
				"y:f:11:*:\\[ktimers/0\\]\n";
		const char *b = "z:f:12:*:\\[ktimers/.*\\]\n";

		rules_parse_buffer(&rs, "rtgroups", a, strlen(a), &ctx4,
				   collect, &e);
		rules_parse_buffer(&rs, "rtgroups.d/10-x.rtgroups", b,
				   strlen(b), &ctx4, collect, &e);
	}
	ruleset_finish(&rs);
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
			.comm = "ktimers/0" });
	ok(e.n == 0 && r && strcmp(r->name, "z") == 0 &&
	   strcmp(r->file, "rtgroups.d/10-x.rtgroups") == 0,
	   "a drop-in rule overrides the main file's");
	ruleset_free(&rs);
}

static void test_tuned(void)
{
	struct ruleset rs;
	struct errs e;
	const struct rule *r;
	int n;

	/* tuned's scheduler plugin: group.NAME=rule_prio:sched:prio:aff:re */
	n = parse(&rs,
		  "group.ksoftirqd=0:f:2:*:^\\[ksoftirqd\n"
		  "group.ktimers=0:f:2:*:^\\[ktimers\n"
		  "group.rcub=0:f:4:*:^\\[rcub\n"
		  "group.rcuc=0:f:4:*:^\\[rcuc\n"
		  "group.late=5:f:7:3:^\\[rcu\n"
		  "group.early=1:r:6:*:^\\[rcu\n", &e);
	ok(n == 0 && rs.n == 6, "tuned group.* rules parse%s", e.text);
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
			.comm = "rcuc/1" });
	ok(r && strcmp(r->name, "late") == 0 && r->prio == 7 &&
	   CPU_COUNT(&r->affinity) == 2,
	   "tuned rules are ordered by rule_prio (5 after 1 and 0)");
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
			.comm = "ksoftirqd/1" });
	ok(r && strcmp(r->name, "ksoftirqd") == 0 && r->sched == 'f' &&
	   r->prio == 2, "tuned ksoftirqd group");
	ruleset_free(&rs);
	n = parse(&rs, "group.x:f:3:*:^\\[a=b\\]\n", &e);
	ok(n == 0 && rs.n == 1 && rs.v[0].kind == RULE_RTCTL &&
	   strcmp(rs.v[0].name, "group.x") == 0 && rs.v[0].prio == 3,
	   "an rtctl group named group.x is still an rtctl rule");
	ruleset_free(&rs);
	expect_error("group.x=a:f:2:*:re\n", 1, "rule_prio 'a'", NULL,
		     "a tuned rule with a bad rule_prio");
	expect_error("group.x=0:f:2:*\n", 1, "4 of 5 fields", NULL,
		     "a tuned rule with a missing field");
}

static void test_irq_rules(void)
{
	struct ruleset rs;
	struct errs e;
	const struct rule *r;
	int n;

	n = parse(&rs,
		  "hardirq:f:50:*:\\[irq/.*\\]\n"
		  "#@irq nic:f:60:2:action=^eth0-rx-\n"
		  "#@irq nictx:f:55:2:action=^eth0-tx- irq-affinity=no\n"
		  "#@irq acpi:f:40:*:irq=9\n"
		  "#@irq range:f:41:*:irq=24-31,40 thread=secondary\n"
		  "#@irqnotarule this is a comment\n"
		  "# @irq also a comment\n", &e);
	ok(n == 0 && rs.n == 5, "#@irq rules parse (%zu)%s", rs.n, e.text);
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = 33,
			.comm = "irq/33-eth0-rx-", .action = "eth0-rx-0" });
	ok(r && strcmp(r->name, "nic") == 0 && r->irq_affinity &&
	   CPU_ISSET(1, &r->affinity),
	   "action= matches the full action name; irq affinity set with the thread's");
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = 34,
			.comm = "irq/34-eth0-tx-", .action = "eth0-tx-0" });
	ok(r && strcmp(r->name, "nictx") == 0 && !r->irq_affinity,
	   "irq-affinity=no: thread affinity only");
	{
		struct task_info t = irqt("irq/9-acpi", 9, "acpi", false);

		r = rules_match(&rs, &t);
		ok(r && strcmp(r->name, "acpi") == 0 && !r->irq_affinity,
		   "irq=9 matches irq 9; affinity * sets no irq affinity");
		t = irqt("irq/10-acpi", 10, "acpi", false);
		r = rules_match(&rs, &t);
		ok(r && strcmp(r->name, "hardirq") == 0,
		   "irq 10 falls back to the rtctl rule");
	}
	ok(strcmp(matched(&rs, irqt("irq/27-s-foo", 27, "foo", true)),
		  "range") == 0, "irq=24-31 thread=secondary: secondary thread of 27");
	ok(strcmp(matched(&rs, irqt("irq/27-foo", 27, "foo", false)),
		  "hardirq") == 0, "... but not the primary one");
	ok(strcmp(matched(&rs, irqt("irq/40-s-foo", 40, "foo", true)),
		  "range") == 0, "irq list 24-31,40 includes 40");
	ok(rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
			.comm = "irq_work/0" }) == NULL,
	   "#@irq rules never match non-irq threads");
	ruleset_free(&rs);

	n = parse(&rs, "#@irq c:f:33:*:comm=^\\[irq/5-\n", &e);
	ok(n == 0 && strcmp(matched(&rs, irqt("irq/5-x", 5, "x", false)), "c") == 0,
	   "#@irq comm= matches [comm]");
	ruleset_free(&rs);
}

static void test_errors(void)
{
	expect_error("x:q:1:*:re\n", 1, "sched 'q': unknown policy letter",
		     NULL, "an unknown policy letter");
	expect_error("x:fifo:1:*:re\n", 1, "sched 'fifo'", NULL,
		     "a policy word instead of a letter");
	expect_error("x::1:*:re\n", 1, "sched: empty", NULL, "an empty policy");
	expect_error("x:f:0:*:re\n", 1, "prio '0': out of range for policy 'f'",
		     "1-99", "FIFO priority 0");
	expect_error("x:f:100:*:re\n", 1, "prio '100': out of range", NULL,
		     "FIFO priority 100");
	expect_error("x:r:*:*:re\n", 1, "prio '*': out of range for policy 'r'",
		     NULL, "RR without a priority");
	expect_error("x:o:5:*:re\n", 1, "prio '5': out of range for policy 'o'",
		     "SCHED_OTHER", "OTHER with priority 5");
	expect_error("x:b:1:*:re\n", 1, "policy 'b'", NULL,
		     "BATCH with priority 1");
	expect_error("x:*:100:*:re\n", 1, "prio '100': out of range", NULL,
		     "priority 100 with policy *");
	expect_error("x:f:abc:*:re\n", 1, "prio 'abc': not a number", NULL,
		     "a non-numeric priority");
	expect_error("x:f:-5:*:re\n", 1, "prio '-5': not a number", NULL,
		     "a negative priority");
	expect_error("x:f:1:*:[abc\n", 1, "regex '[abc': invalid regex", NULL,
		     "an unterminated bracket");
	expect_error("x:f:1:*:a(b\n", 1, "regex 'a(b': invalid regex", NULL,
		     "an unmatched parenthesis");
	expect_error("x:f:1:*:\n", 1, "regex: empty", NULL, "an empty regex");
	expect_error("x:f:1:*:a{1000}\n", 1, "repetition count", NULL,
		     "a regex with a huge repetition count");
	expect_error("x:f:1:*:a++++++++++++\n", 1, "too complex", NULL,
		     "stacked repetitions (exponential in glibc regcomp)");
	expect_error("x:f:1:*:((((((((((((a+)+)+)+)+)+)+)+)+)+)+)+)+\n", 1,
		     "too complex", NULL, "nested repetitions");
	expect_error("x:f:1:*:(a{200}){200}\n", 1, "too complex", NULL,
		     "nested bounded repetitions");
	{
		struct ruleset rs;
		struct errs e;

		ok(parse(&rs, "x:f:1:*:^\\[(irq|irq_work)/[0-9]+(-s)?-[a-z0-9_-]{1,12}\\]$\n", &e) == 0,
		   "an ordinary regex with groups and bounds is accepted%s", e.text);
		ruleset_free(&rs);
	}
	expect_error("x:f:1:0:re\n", 1, "affinity '0': invalid CPU mask: empty",
		     NULL, "an empty CPU mask");
	expect_error("x:f:1:0x:re\n", 1, "affinity '0x': invalid CPU mask",
		     "no hex digits", "a mask without digits");
	expect_error("x:f:1:zz:re\n", 1, "affinity 'zz': invalid CPU mask",
		     "not a hex digit", "a non-hex mask");
	expect_error("x:f:1::re\n", 1, "affinity: empty", NULL,
		     "an empty affinity field");
	expect_error("x:f:1:10:re\n", 1, "affinity '10': CPU 4 not present",
		     "present: 0-3", "a mask naming an absent CPU");
	expect_error("x:f:1:0xf0:re\n", 1, "CPUs 4-7 not present", NULL,
		     "a mask naming absent CPUs only");
	expect_error("x:f:1\n", 1, "expected name:sched:prio:affinity:regex",
		     "3 of 5", "a line with too few fields");
	expect_error(":f:1:*:re\n", 1, "name: empty", NULL, "an empty name");
	expect_error("x:q:1:zz:[\n", 3, "sched 'q'", "affinity 'zz'",
		     "a line with three bad fields (every error reported)");
	expect_error("#@irq x:f:1:*:irq=1 irq=2\n", 1, "irq: duplicate option",
		     NULL, "a duplicate irq= option");
	expect_error("#@irq x:f:1:*:action=a action=b\n", 1,
		     "action: duplicate option", NULL,
		     "a duplicate action= option");
	expect_error("#@irq x:f:1:*:irq=1 irq-affinity=yes\n", 1,
		     "irq-affinity: 'yes' conflicts with affinity '*'", NULL,
		     "irq-affinity=yes without an affinity");
	expect_error("#@irq x:f:1:*:irq=1 irq-affinity=maybe\n", 1,
		     "irq-affinity 'maybe'", NULL, "a bad irq-affinity value");
	expect_error("#@irq x:f:1:*:irq=1 speed=fast\n", 1,
		     "unknown option 'speed'", NULL, "an unknown option");
	expect_error("#@irq x:f:1:*:thread=primary\n", 1,
		     "no irq=, action= or comm=", NULL,
		     "an #@irq rule without a match key");
	expect_error("#@irq x:f:1:*:thread=third irq=3\n", 1,
		     "thread 'third'", NULL, "a bad thread= value");
	expect_error("#@irq x:f:1:*:irq=9-3\n", 1, "range 9-3 is reversed",
		     NULL, "a reversed irq range");
	expect_error("#@irq x:f:1:*:irq=a\n", 1, "irq 'a': expected a list",
		     NULL, "a non-numeric irq");
	expect_error("#@irq x:f:1:*:irq=1,\n", 1, "irq '1,'", NULL,
		     "a trailing comma in an irq list");
	expect_error("#@irq x:f:1:*:irq=99999999\n", 1, "irq number above",
		     NULL, "an irq number out of range");
	expect_error("#@irq x:f:1:*:irq=\n", 1, "irq: empty value", NULL,
		     "an empty irq= value");
	expect_error("#@irq x:f:1:*:action=(\n", 1, "action '(': invalid regex",
		     NULL, "an invalid action regex");
	expect_error("#@irq x:f:1:*:irq\n", 1, "expected key=value", NULL,
		     "an option without a value");
	expect_error("#@irq x:f:1:*\n", 1, "expected name:sched:prio:affinity:match",
		     NULL, "an #@irq rule without a match field");

	{
		struct ruleset rs;
		struct errs e;
		const char text[] = "ok:f:1:*:a\nbad:f:200:*:a\n# c\nalso:o:1:*:b\nfine:f:2:*:c\n";
		int n = parse(&rs, text, &e);

		ok(n == 2 && strstr(e.text, "t.rules:2: prio '200'") &&
		   strstr(e.text, "t.rules:4: prio '1'") && rs.n == 2,
		   "errors carry their own line numbers; valid lines still counted");
		ruleset_free(&rs);
	}
	{
		struct ruleset rs;
		struct errs e;
		char text[] = "x:f:1:*:a\0b\n";
		int n;

		memset(&e, 0, sizeof(e));
		ruleset_init(&rs);
		n = rules_parse_buffer(&rs, "t.rules", text, sizeof(text) - 1,
				       &ctx4, collect, &e);
		ok(n == 1 && strstr(e.text, "NUL"), "a NUL byte is an error");
		ruleset_free(&rs);
	}
}

static void test_cpumask(void)
{
	cpu_set_t s;
	char why[128], buf[256];

	ok(cpumask_parse_hex("0x3", &s, why, sizeof(why)) == 0 &&
	   CPU_COUNT(&s) == 2 && CPU_ISSET(0, &s) && CPU_ISSET(1, &s),
	   "mask 0x3 is CPUs 0-1");
	ok(cpumask_parse_hex("F0", &s, why, sizeof(why)) == 0 &&
	   strcmp(cpulist_format(&s, buf, sizeof(buf)), "4-7") == 0,
	   "mask F0 is CPUs 4-7");
	ok(cpumask_parse_hex("1,00000000", &s, why, sizeof(why)) == 0 &&
	   CPU_COUNT(&s) == 1 && CPU_ISSET(32, &s),
	   "mask 1,00000000 (kernel style) is CPU 32");
	ok(cpumask_parse_hex("0005", &s, why, sizeof(why)) == 0 &&
	   strcmp(cpulist_format(&s, buf, sizeof(buf)), "0,2") == 0,
	   "mask 0005 is CPUs 0,2");
	ok(cpumask_parse_hex("000", &s, why, sizeof(why)) != 0 &&
	   strstr(why, "empty"), "mask 000 is empty");
	ok(cpulist_parse("0-3,8,10-11\n", &s) == 0 &&
	   strcmp(cpulist_format(&s, buf, sizeof(buf)), "0-3,8,10-11") == 0,
	   "cpu list round trip");
	ok(cpulist_parse("3-1", &s) != 0 && cpulist_parse("a", &s) != 0,
	   "bad cpu lists are rejected");
}

static void test_irq_comm(void)
{
	char name[64];
	bool sec;

	ok(irq_comm_parse("irq/16-eth0", &sec, name, sizeof(name)) == 16 &&
	   !sec && strcmp(name, "eth0") == 0, "irq/16-eth0");
	ok(irq_comm_parse("irq/9-s-acpi", &sec, name, sizeof(name)) == 9 &&
	   sec && strcmp(name, "acpi") == 0, "irq/9-s-acpi is secondary");
	ok(irq_comm_parse("irq_work/0", &sec, name, sizeof(name)) < 0 &&
	   irq_comm_parse("irq/", &sec, name, sizeof(name)) < 0 &&
	   irq_comm_parse("irq/x-y", &sec, name, sizeof(name)) < 0 &&
	   irq_comm_parse("irqbalance", &sec, name, sizeof(name)) < 0,
	   "non-irq thread names are not irq threads");
}

static char tmpdir[] = "/tmp/rtirqd-test.XXXXXX";

static void write_file(const char *rel, const char *text, mode_t mode)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		perror(path);
	fchmod(fd, mode);
	close(fd);
}

static void test_thread_lines(void)
{
	struct thread_line tl;

	ok(thread_line_parse("123 eth0-rx-0 primary", &tl) == 0 &&
	   tl.pid == 123 && !tl.secondary && tl.action_len == 9 &&
	   strncmp(tl.action, "eth0-rx-0", 9) == 0, "threads line: primary");
	ok(thread_line_parse("77 ACPI SCI handler secondary", &tl) == 0 &&
	   tl.pid == 77 && tl.secondary && tl.action_len == 16 &&
	   strncmp(tl.action, "ACPI SCI handler", 16) == 0,
	   "threads line: an action name with spaces, secondary");
	ok(thread_line_parse("77 primary", &tl) != 0 &&
	   thread_line_parse("x a primary", &tl) != 0 &&
	   thread_line_parse("5 a tertiary", &tl) != 0 &&
	   thread_line_parse("", &tl) != 0, "threads line: malformed lines are rejected");
}

static void test_irq_lookup(void)
{
	char sys[600], proc[600], path[700];
	struct task_info t = kt("irq/16-eth0-rx-0");

	snprintf(sys, sizeof(sys), "%s/sys", tmpdir);
	snprintf(proc, sizeof(proc), "%s/proc", tmpdir);
	snprintf(path, sizeof(path), "%s/kernel/irq/16", sys);
	mkdir(sys, 0755);
	snprintf(path, sizeof(path), "%s/kernel", sys);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/kernel/irq", sys);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/kernel/irq/16", sys);
	mkdir(path, 0755);
	write_file("sys/kernel/irq/16/threads",
		   "999 other primary\n1000 eth0 rx queue with a long name secondary\n",
		   0444);
	task_irq_lookup(sys, proc, &t);
	ok(t.irq == 16 && t.secondary &&
	   strcmp(t.action, "eth0 rx queue with a long name") == 0,
	   "irq thread map: pid 1000 -> irq 16, full action name with spaces, secondary");

	mkdir(proc, 0755);
	snprintf(path, sizeof(path), "%s/irq", proc);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/irq/17", proc);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/irq/17/eth1-rx-0-long-action", proc);
	mkdir(path, 0755);
	t = kt("irq/17-eth1-rx-");	/* 15 characters: cut */
	task_irq_lookup(sys, proc, &t);
	ok(t.irq == 17 && !t.secondary &&
	   strcmp(t.action, "eth1-rx-0-long-action") == 0,
	   "no kernel map: full action name from /proc/irq/17/");
	t = kt("irq/18-ahci");
	task_irq_lookup(sys, proc, &t);
	ok(t.irq == 18 && strcmp(t.action, "ahci") == 0,
	   "no map, no /proc/irq entry: action from comm");
}

static void test_load(void)
{
	struct ruleset rs;
	struct errs e;
	char main_f[600], dir[600], path[700];
	int n;

	snprintf(main_f, sizeof(main_f), "%s/rtgroups", tmpdir);
	snprintf(dir, sizeof(dir), "%s/rtgroups.d", tmpdir);
	mkdir(dir, 0755);
	write_file("rtgroups", "base:f:10:*:\\[ktimers/.*\\]\n", 0644);
	write_file("rtgroups.d/20-b.rtgroups", "b:f:12:*:\\[ktimers/.*\\]\n",
		   0644);
	write_file("rtgroups.d/10-a.rtgroups", "a:f:11:*:\\[ktimers/.*\\]\n",
		   0644);
	write_file("rtgroups.d/30-c.conf", "c:q:1:*:x\n", 0644);
	write_file("rtgroups.d/.40-d.rtgroups", "d:q:1:*:x\n", 0644);

	memset(&e, 0, sizeof(e));
	n = rules_load(&rs, main_f, false, dir, &ctx4, collect, &e);
	ok(n == 0 && rs.n == 3 &&
	   strcmp(matched(&rs, kt("ktimers/0")), "b") == 0,
	   "main file then drop-ins in name order; other names ignored%s",
	   e.text);
	ruleset_free(&rs);

	write_file("rtgroups.d/15-bad.rtgroups",
		   "ok:f:1:*:x\nbad:f:1:*:(\n", 0644);
	memset(&e, 0, sizeof(e));
	n = rules_load(&rs, main_f, false, dir, &ctx4, collect, &e);
	ok(n == 1 && rs.n == 0 && strstr(e.text, "15-bad.rtgroups:2: regex"),
	   "one bad drop-in line: the whole set is refused (nothing half-applied)");
	ruleset_free(&rs);
	snprintf(path, sizeof(path), "%s/15-bad.rtgroups", dir);
	unlink(path);

	chmod(main_f, 0666);
	memset(&e, 0, sizeof(e));
	n = rules_load(&rs, main_f, false, dir, &ctx4, collect, &e);
	ok(n == 1 && rs.n == 0 && strstr(e.text, "writable by others"),
	   "a world-writable rules file is refused");
	chmod(main_f, 0664);
	memset(&e, 0, sizeof(e));
	n = rules_load(&rs, main_f, false, dir, &ctx4, collect, &e);
	ok(n == 1 && strstr(e.text, "writable by its group"),
	   "a group-writable rules file is refused");
	chmod(main_f, 0644);
	if (getuid() == 0) {
		if (chown(main_f, 1, 1) == 0) {
			memset(&e, 0, sizeof(e));
			n = rules_load(&rs, main_f, false, dir, &ctx4, collect,
				       &e);
			ok(n == 1 && strstr(e.text, "owned by uid 1"),
			   "a rules file not owned by root is refused");
			if (chown(main_f, 0, 0))
				perror("chown");
		}
	} else {
		/* not root: our own file is not root's */
		memset(&e, 0, sizeof(e));
		n = rules_load(&rs, main_f, false, NULL, &ctx4, collect, &e);
		ok(n == 1 && strstr(e.text, "not root"),
		   "a rules file not owned by root is refused");
	}
	chmod(dir, 0777);
	memset(&e, 0, sizeof(e));
	n = rules_load(&rs, main_f, false, dir, &ctx4, collect, &e);
	ok(n == 1 && rs.n == 0 && strstr(e.text, "rtgroups.d:0: refusing: writable by others"),
	   "a world-writable drop-in directory is refused");
	chmod(dir, 0755);

	snprintf(path, sizeof(path), "%s/missing", tmpdir);
	memset(&e, 0, sizeof(e));
	n = rules_load(&rs, path, true, NULL, &ctx4, collect, &e);
	ok(n == 0 && rs.n == 0, "a missing default rules file is no error");
	n = rules_load(&rs, path, false, NULL, &ctx4, collect, &e);
	ok(n == 1 && strstr(e.text, "No such file"),
	   "a missing rules file named on the command line is an error");
}

/* ------------------------------------------------------------ apply */

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pid_t child_tid;
static int release;

static void *child(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	child_tid = gettid_();
	pthread_cond_broadcast(&cv);
	while (!release)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void test_apply(void)
{
	struct ruleset rs;
	struct errs e;
	struct apply_opts ao = { .dry_run = false, .procroot = "/proc" };
	struct task_info t;
	pthread_t th;
	struct sched_param sp;
	cpu_set_t cur;
	enum apply_result res;
	bool can_rt;

	parse(&rs, "t:f:7:1:^unit-test$\n", &e);
	child_tid = 0;
	release = 0;
	pthread_create(&th, NULL, child, NULL);
	pthread_mutex_lock(&mu);
	while (!child_tid)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	ok(task_read("/proc", getpid(), child_tid, &t) == 0 && !t.kthread &&
	   t.policy == SCHED_OTHER && t.tgid == getpid(),
	   "task_read of our own thread (user thread, SCHED_OTHER)");
	snprintf(t.comm, sizeof(t.comm), "unit-test");

	ao.dry_run = true;
	res = rule_apply(&rs.v[0], &t, &ao);
	ok(res == APPLY_OK && sched_getscheduler(child_tid) == SCHED_OTHER,
	   "dry run changes nothing");
	ao.dry_run = false;

	can_rt = sched_getscheduler(0) >= 0 &&
		 sched_setscheduler(child_tid, SCHED_FIFO,
				    &(struct sched_param){ .sched_priority = 1 }) == 0;
	if (can_rt) {
		sched_setscheduler(child_tid, SCHED_OTHER,
				   &(struct sched_param){ .sched_priority = 0 });
		res = rule_apply(&rs.v[0], &t, &ao);
		sched_getparam(child_tid, &sp);
		sched_getaffinity(child_tid, sizeof(cur), &cur);
		ok(res == APPLY_OK &&
		   sched_getscheduler(child_tid) == SCHED_FIFO &&
		   sp.sched_priority == 7 && CPU_COUNT(&cur) == 1 &&
		   CPU_ISSET(0, &cur) && rule_policy_in_place(&rs.v[0], child_tid),
		   "apply sets SCHED_FIFO 7 and CPU 0 on our thread");
	} else {
		printf("ok - apply sets SCHED_FIFO 7 # SKIP no CAP_SYS_NICE\n");
	}

	pthread_mutex_lock(&mu);
	release = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	/* the tid is gone now: applying is not an error */
	res = rule_apply(&rs.v[0], &t, &ao);
	ok(res == APPLY_GONE || (!can_rt && res == APPLY_FAILED),
	   "a thread that exited before the policy was set is APPLY_GONE (%d)",
	   res);
	ok(task_read("/proc", getpid(), child_tid, &t) == -ESRCH,
	   "task_read of an exited thread is -ESRCH");
	ruleset_free(&rs);

	ok(task_read("/proc", 2, 2, &t) == 0 && t.kthread &&
	   strcmp(t.comm, "kthreadd") == 0,
	   "task_read of pid 2 sees kernel thread [kthreadd] (read only)");
}

static void test_pidset(void)
{
	struct pidset s;
	bool good = true;

	pidset_init(&s);
	for (pid_t p = 1; p <= 20000; p++)
		pidset_add(&s, p * 7);
	for (pid_t p = 1; p <= 20000; p += 2)
		pidset_del(&s, p * 7);
	for (pid_t p = 1; p <= 20000; p++)
		if (pidset_has(&s, p * 7) != (p % 2 == 0))
			good = false;
	ok(good && s.n == 10000 && !pidset_has(&s, 3),
	   "pid set: 20000 adds, 10000 deletes, lookups");
	pidset_free(&s);

	/* a daemon's churn: threads come and go, a few stay */
	pidset_init(&s);
	for (pid_t p = 1; p <= 200000; p++) {
		pidset_add(&s, p);
		if (p > 10)
			pidset_del(&s, p - 10);
	}
	ok(s.n == 10 && s.cap <= 256 && pidset_has(&s, 200000) &&
	   !pidset_has(&s, 199990),
	   "pid set: 200000 threads through, 10 live: table stays small (%zu slots)",
	   s.cap);
	pidset_free(&s);
}


/*
 * --compat=rtctl, issue 41 item 2: what rtctl does with each line, as
 * observed by running rtctl's reset awk program under busybox awk 1.35
 * (Debian's busybox-static) on a fake "pid [comm]" list and the same
 * lines, then the chrt/taskset commands it printed (util-linux chrt,
 * busybox taskset) on a sleeping process of the test's own.
 */
static void test_compat_reading(void)
{
	struct parse_ctx c = ctx4;
	struct ruleset rs;
	struct errs e;
	const struct rule *r;
	const char *text =
		/* rtctl printed "chrt -p -f 2 PID", no taskset */
		"rcu_preempt:f:2:\\[rcu_preempt\\]$\n"
		/* the regex kept its colon: [kworker/0:1] matched */
		"col:f:20:*:^\\[kworker/0:1\\]$\n"
		/* "chrt -p -f 100" failed, "taskset -p 3" ran */
		"big:f:100:3:^\\[migration\n"
		/* busybox taskset: "bad affinity '1,00000001'" */
		"comma:f:7:1,00000001:^\\[ksoftirqd\n"
		/* "taskset -p  1  PID": mask 1 set */
		"blank:f:8: 1 :^\\[irq/30\n"
		/* "chrt -p -f 00050": FIFO 50 */
		"lead:f:00050:*:^\\[watchdog\n";

	c.rtctl = true;
	memset(&e, 0, sizeof(e));
	ruleset_init(&rs);
	rules_parse_buffer(&rs, "t.rules", text, strlen(text), &c, collect, &e);
	ruleset_finish(&rs);
	ok(rs.n == 6 && rs.skipped == 0, "compat: all six lines taken (%zu)",
	   rs.n);
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
						  .comm = "rcu_preempt" });
	ok(r && strcmp(r->name, "rcu_preempt") == 0 && !r->has_affinity &&
	   r->sched == 'f' && r->prio == 2,
	   "compat: four fields are name:sched:prio:regex, affinity left");
	ok(strcmp(matched(&rs, kt("kworker/1:1")), "(none)") == 0,
	   "compat: the four-field line does not match every thread");
	ok(strcmp(matched(&rs, kt("kworker/0:1")), "col") == 0,
	   "compat: a ':' inside the regex is kept");
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
						  .comm = "migration/0" });
	ok(r && strcmp(r->name, "big") == 0 && r->sched == '*' &&
	   r->has_affinity && CPU_ISSET(0, &r->affinity) &&
	   CPU_ISSET(1, &r->affinity) && CPU_COUNT(&r->affinity) == 2,
	   "compat: prio 100 still wins, policy left (chrt fails), mask 3 set");
	ok(strstr(e.text, "t.rules:3: warning: prio '100'") != NULL,
	   "compat: the failing chrt is warned about with file:line");
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
						  .comm = "ksoftirqd/0" });
	ok(r && strcmp(r->name, "comma") == 0 && !r->has_affinity &&
	   r->sched == 'f' && r->prio == 7,
	   "compat: a comma-grouped mask is refused (taskset), policy set");
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
						  .comm = "irq/30-eth0" });
	ok(r && strcmp(r->name, "blank") == 0 && r->has_affinity &&
	   CPU_COUNT(&r->affinity) == 1 && CPU_ISSET(0, &r->affinity),
	   "compat: blanks around the mask are dropped, mask 1 set");
	r = rules_match(&rs, &(struct task_info){ .kthread = true, .irq = -1,
						  .comm = "watchdog/0" });
	ok(r && r->sched == 'f' && r->prio == 50,
	   "compat: prio 00050 is 50, as chrt reads it");
	ruleset_free(&rs);

	/* default reading: the four-field line is not warned about */
	parse(&rs, "rcu_preempt:f:2:\\[rcu_preempt\\]$\n"
		   "blank:f:8: 1 :^\\[irq/30\n", &e);
	ok(e.n == 0 && rs.n == 2,
	   "default: four fields and a blank-padded mask, no error or warning%s",
	   e.text);
	ruleset_free(&rs);
}

int main(void)
{
	CPU_ZERO(&ctx4.present);
	for (int c = 0; c < 4; c++)
		CPU_SET(c, &ctx4.present);
	ctx4.nr_present = 4;
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	chmod(tmpdir, 0755);
	log_init(LOG_TO_STDERR, -1);

	test_rtctl_examples();
	test_last_match_wins();
	test_tuned();
	test_irq_rules();
	test_errors();
	test_cpumask();
	test_irq_comm();
	test_thread_lines();
	test_irq_lookup();
	test_load();
	test_apply();
	test_pidset();
	test_compat_reading();

	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			perror("rm");
	}
	return failures ? 1 : 0;
}
