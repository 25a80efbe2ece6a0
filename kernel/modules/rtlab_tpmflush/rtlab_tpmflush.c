// SPDX-License-Identifier: GPL-2.0
/*
 * rtlab_tpmflush - count, inside the guest kernel, the MMIO accesses that
 * tpm_tis makes through its TCG phy (drivers/char/tpm/tpm_tis.c), to show
 * that on PREEMPT_RT every write is followed by tpm_tis_flush()'s ioread8()
 * of TPM_ACCESS(0) (seed 003, mainline since 6.4).
 *
 * tpm_tis_flush() is a static inline and the accessors ioread8()/iowrite8()
 * (lib/iomap.c) are built without ftrace hooks, so neither a kprobe event
 * nor the function tracer reaches them (CONFIG_KPROBE_EVENTS_ON_NOTRACE is
 * off).  This module puts kprobes on iowrite8, iowrite32, ioread8, ioread16
 * and ioread32 directly and looks at each call's return address: only calls
 * made from tpm_tcg_write_bytes() (the writes and the inlined flush) or from
 * tpm_tcg_read_bytes() count.  TPM accesses are serialised by the chip's
 * mutex, so one state machine sees them in order:
 *
 *   write from tpm_tcg_write_bytes           writes++, a flush is now due
 *   ioread8 from tpm_tcg_write_bytes of the  flush_reads++ (if one is due)
 *     base of the written register's page
 *   a write or a tpm_tcg_read_bytes read     unflushed++ (if one is due)
 *     while a flush is due
 *
 * debugfs /sys/kernel/debug/rtlab_tpmflush/:
 *   ctl    write "start" (zero the counts and count) or "stop"
 *   stats  "armed= writes= writes8= writes32= flush_reads= unflushed=
 *          flush_elsewhere= reads_without_write= tpm_reads= pending="
 *
 * Test-only: load it in the lab's QEMU guest, never on a real system.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

struct fn_span {
	const char *name;
	unsigned long start, end;
};

static struct fn_span write_fn = { .name = "tpm_tcg_write_bytes" };
static struct fn_span read_fn = { .name = "tpm_tcg_read_bytes" };

static DEFINE_RAW_SPINLOCK(st_lock);
static struct {
	bool armed, pending;
	unsigned long pending_base;
	u64 writes, writes8, writes32, flush_reads, unflushed, flush_elsewhere;
	u64 reads_without_write, tpm_reads;
} st;

static bool fn_has(const struct fn_span *r, unsigned long ip)
{
	return ip >= r->start && ip < r->end;
}

/* the caller: at a function's first instruction, the return address is on top of the stack */
static unsigned long caller_of(struct pt_regs *regs)
{
	return regs_get_kernel_stack_nth(regs, 0);
}

static void on_write(struct pt_regs *regs, bool wide)
{
	unsigned long addr = regs_get_kernel_argument(regs, 1);
	unsigned long flags;

	if (!fn_has(&write_fn, caller_of(regs)))
		return;
	raw_spin_lock_irqsave(&st_lock, flags);
	if (st.armed) {
		if (st.pending)
			st.unflushed++;
		st.writes++;
		if (wide)
			st.writes32++;
		else
			st.writes8++;
		st.pending = true;
		st.pending_base = addr & ~0xfffUL;
	}
	raw_spin_unlock_irqrestore(&st_lock, flags);
}

static void on_read(struct pt_regs *regs, bool byte)
{
	unsigned long addr = regs_get_kernel_argument(regs, 0);
	unsigned long ip = caller_of(regs), flags;
	bool from_write = fn_has(&write_fn, ip);

	if (!from_write && !fn_has(&read_fn, ip))
		return;
	raw_spin_lock_irqsave(&st_lock, flags);
	if (st.armed) {
		if (from_write && byte) {
			if (!st.pending)
				st.reads_without_write++;
			else if (addr == st.pending_base)
				st.flush_reads++;
			else
				st.flush_elsewhere++;
		} else {
			st.tpm_reads++;
			if (st.pending)
				st.unflushed++;
		}
		st.pending = false;
	}
	raw_spin_unlock_irqrestore(&st_lock, flags);
}

static int pre_w8(struct kprobe *p, struct pt_regs *regs)
{
	on_write(regs, false);
	return 0;
}

static int pre_w32(struct kprobe *p, struct pt_regs *regs)
{
	on_write(regs, true);
	return 0;
}

static int pre_r8(struct kprobe *p, struct pt_regs *regs)
{
	on_read(regs, true);
	return 0;
}

static int pre_rwide(struct kprobe *p, struct pt_regs *regs)
{
	on_read(regs, false);
	return 0;
}

static struct kprobe probes[] = {
	{ .symbol_name = "iowrite8", .pre_handler = pre_w8 },
	{ .symbol_name = "iowrite32", .pre_handler = pre_w32 },
	{ .symbol_name = "ioread8", .pre_handler = pre_r8 },
	{ .symbol_name = "ioread16", .pre_handler = pre_rwide },
	{ .symbol_name = "ioread32", .pre_handler = pre_rwide },
};

/*
 * Find a function's address with a kprobe and its size from kallsyms
 * ("name+0x0/0xSIZE"); it must exist as a function, not inlined away.
 */
static int find_range(struct fn_span *r)
{
	struct kprobe kp = { .symbol_name = r->name };
	char buf[KSYM_SYMBOL_LEN], *slash;
	unsigned long size;
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("rtlab_tpmflush: no function %s (%d)\n", r->name, ret);
		return ret;
	}
	r->start = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	sprint_symbol(buf, r->start);
	slash = strchr(buf, '/');
	if (strncmp(buf, r->name, strlen(r->name)) || buf[strlen(r->name)] != '+' ||
	    !slash || kstrtoul(slash + 1, 16, &size) || !size) {
		pr_err("rtlab_tpmflush: cannot size %s from \"%s\"\n", r->name, buf);
		return -EINVAL;
	}
	r->end = r->start + size;
	return 0;
}

static int stats_show(struct seq_file *m, void *v)
{
	unsigned long flags;
	typeof(st) s;

	raw_spin_lock_irqsave(&st_lock, flags);
	s = st;
	raw_spin_unlock_irqrestore(&st_lock, flags);
	seq_printf(m, "armed=%d writes=%llu writes8=%llu writes32=%llu flush_reads=%llu unflushed=%llu flush_elsewhere=%llu reads_without_write=%llu tpm_reads=%llu pending=%d\n",
		   s.armed, s.writes, s.writes8, s.writes32, s.flush_reads, s.unflushed,
		   s.flush_elsewhere, s.reads_without_write, s.tpm_reads, s.pending);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len, loff_t *off)
{
	char buf[16];
	unsigned long flags;
	size_t n = min(len, sizeof(buf) - 1);

	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = '\0';
	strim(buf);
	raw_spin_lock_irqsave(&st_lock, flags);
	if (!strcmp(buf, "start")) {
		memset(&st, 0, sizeof(st));
		st.armed = true;
	} else if (!strcmp(buf, "stop")) {
		st.armed = false;
	} else {
		len = -EINVAL;
	}
	raw_spin_unlock_irqrestore(&st_lock, flags);
	return len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
};

static struct dentry *dir;

static int __init tpmflush_init(void)
{
	int ret, i;

	ret = find_range(&write_fn);
	if (!ret)
		ret = find_range(&read_fn);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		ret = register_kprobe(&probes[i]);
		if (ret) {
			pr_err("rtlab_tpmflush: kprobe on %s: %d\n", probes[i].symbol_name, ret);
			while (--i >= 0)
				unregister_kprobe(&probes[i]);
			return ret;
		}
	}
	dir = debugfs_create_dir("rtlab_tpmflush", NULL);
	debugfs_create_file("stats", 0444, dir, NULL, &stats_fops);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
	pr_info("rtlab_tpmflush: %s at %lx-%lx, %s at %lx-%lx\n", write_fn.name,
		write_fn.start, write_fn.end, read_fn.name, read_fn.start, read_fn.end);
	return 0;
}

static void __exit tpmflush_exit(void)
{
	int i;

	debugfs_remove_recursive(dir);
	for (i = 0; i < ARRAY_SIZE(probes); i++)
		unregister_kprobe(&probes[i]);
}

module_init(tpmflush_init);
module_exit(tpmflush_exit);
MODULE_DESCRIPTION("rtlab: count tpm_tis MMIO writes and their flush reads (test only)");
MODULE_LICENSE("GPL");
