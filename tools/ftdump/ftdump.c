// SPDX-License-Identifier: GPL-2.0
/*
 * ftdump: turn an ftrace dump in a console log (sysrq-z,
 * ftrace_dump_on_oops) into a trace.dat for trace-cmd and KernelShark.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "formats.h"
#include "rtlab/opt.h"

#define DEFAULT_MAX_ERRORS 20
#define MAX_ARG_PATH 2048
#define MAX_COUNT 1000000	/* largest --dump and --max-errors */

static void usage(FILE *f)
{
	fprintf(f,
"usage: ftdump -f FORMATS [-o trace.dat] [options] LOG\n"
"       ftdump --save-formats DIR [--tracefs DIR] [--kallsyms FILE] [--btf FILE]\n"
"\n"
"Turns an ftrace dump in a console log (sysrq-z, ftrace_dump_on_oops; serial\n"
"log, dmesg, QEMU console, pstore; with or without printk times and caller\n"
"ids) into a trace.dat that trace-cmd report and KernelShark read. Records\n"
"are rebuilt from the kernel's event formats; a record whose text cannot be\n"
"turned back is kept as a print record with its text and counted.\n"
"\n"
"  -f, --formats DIR     format bundle (from --save-formats) or a tracefs\n"
"                        directory of the kernel that made the dump\n"
"  -o, --output FILE     trace.dat to write (default trace.dat)\n"
"  -d, --dump N          convert the Nth dump of the log (default: the last)\n"
"  -l, --list            list the dumps in the log and stop\n"
"  -s, --strict          exit 3 when a record was kept as text\n"
"  -q, --quiet           no summary\n"
"  -e, --max-errors N    per-line messages to print (default %d)\n"
"  -c, --cpus N          the machine had N CPUs: records on CPU N or above\n"
"                        are dropped (default: dropped when far above the\n"
"                        dump's other CPUs and few)\n"
"  --save-formats DIR    on the target: save the event formats, header\n"
"                        page and kallsyms from tracefs into DIR\n"
"  --tracefs DIR         tracefs to save from (default: the mounted one)\n"
"  --kallsyms FILE       kallsyms to save (default /proc/kallsyms)\n"
"  --btf FILE            BTF of the same kernel build (raw or an ELF .BTF\n"
"                        section) for the enum constants that print fmts\n"
"                        name (default /sys/kernel/btf/vmlinux); when\n"
"                        converting: instead of the bundle's \"enums\"\n"
"  -h, --help            this help\n"
"\n"
"Exit: 0 converted, 1 bad input or write error, 2 usage, 3 see --strict.\n",
		DEFAULT_MAX_ERRORS);
}

enum { OPT_SAVE = 256, OPT_TRACEFS, OPT_KALLSYMS, OPT_BTF };
#define MAX_CPUS_OPT 1024	/* convert.c's MAX_CPUS */

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "formats", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "dump", required_argument, NULL, 'd' },
		{ "list", no_argument, NULL, 'l' },
		{ "strict", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "max-errors", required_argument, NULL, 'e' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "save-formats", required_argument, NULL, OPT_SAVE },
		{ "tracefs", required_argument, NULL, OPT_TRACEFS },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct conv_opts o = { .out = "trace.dat",
			       .max_errors = DEFAULT_MAX_ERRORS };
	const char *save = NULL, *tracefs = NULL, *kallsyms = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "f:o:d:lsqe:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o.formats = optarg; break;
		case 'o': o.out = optarg; break;
		case 'd':
			if (!opt_int(optarg, 1, MAX_COUNT, &o.dump)) {
				fprintf(stderr, "ftdump: --dump wants a number from 1\n");
				return 2;
			}
			break;
		case 'l': o.list = true; break;
		case 's': o.strict = true; break;
		case 'q': o.quiet = true; break;
		case 'e':
			if (!opt_int(optarg, 0, MAX_COUNT, &o.max_errors)) {
				fprintf(stderr, "ftdump: --max-errors wants a number\n");
				return 2;
			}
			break;
		case 'c':
			if (!opt_int(optarg, 1, MAX_CPUS_OPT, &o.cpus)) {
				fprintf(stderr, "ftdump: --cpus wants a number from 1 to %d\n",
					MAX_CPUS_OPT);
				return 2;
			}
			break;
		case OPT_SAVE: save = optarg; break;
		case OPT_TRACEFS: tracefs = optarg; break;
		case OPT_KALLSYMS: kallsyms = optarg; break;
		case OPT_BTF: o.btf = optarg; break;
		case 'h': opt_usage_exit(usage, 0);
		default: opt_usage_exit(usage, 2);
		}
	}
	/* paths inside these stay far below PATH_LEN (pathf.h) */
	for (c = 1; c < argc; c++)
		if (strlen(argv[c]) > MAX_ARG_PATH) {
			fprintf(stderr, "ftdump: argument too long: %.40s...\n",
				argv[c]);
			return 2;
		}
	if (save)
		return optind == argc &&
		       !formats_save(tracefs, kallsyms, o.btf, save) ? 0 : 1;
	if (optind + 1 != argc || (!o.formats && !o.list))
		opt_usage_exit(usage, 2);
	o.log = argv[optind];
	return convert_run(&o);
}
