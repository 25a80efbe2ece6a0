/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writer half of libtracecmd (trace-cmd 3.1.6, Debian bookworm's
 * libtracecmd1). Debian ships these functions in libtracecmd.so but not
 * their header (trace-cmd-private.h is not installed), so their
 * prototypes are declared here as the library defines them.
 */
#ifndef FTDUMP_TCMD_H
#define FTDUMP_TCMD_H

#include <trace-cmd/trace-cmd.h>

struct tracecmd_output;
struct tracecmd_event_list;

struct tracecmd_output *tracecmd_output_create(const char *output_file);
int tracecmd_output_set_trace_dir(struct tracecmd_output *handle,
				  const char *tracing_dir);
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle,
				 const char *kallsyms);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle, int cpus,
			     char * const *cpu_data_files);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
void tracecmd_output_close(struct tracecmd_output *handle);
void tracecmd_parse_proc_kallsyms(struct tep_handle *tep, char *file,
				  unsigned int size);

#endif
