/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtlab's one way for a C program to write a JSON report: built with cJSON
 * (libcjson-dev), written on one line to a file.
 *   rtlab_json_round(x, 1)        x to one decimal, as "%.1f" reported it
 *   rtlab_json_write(path, json)  write and free json; 0, or -1 (errno)
 */
#ifndef RTLAB_JSON_H
#define RTLAB_JSON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

static inline double rtlab_json_round(double x, int decimals)
{
	double scale = 1;

	while (decimals-- > 0)
		scale *= 10;
	return (double)(long long)(x * scale + (x >= 0 ? 0.5 : -0.5)) / scale;
}

static inline int rtlab_json_write(const char *path, cJSON *json)
{
	char *text = json ? cJSON_PrintUnformatted(json) : NULL;
	FILE *f = text ? fopen(path, "w") : NULL;
	int ok = f && fprintf(f, "%s\n", text) >= 0;

	if (f && fclose(f))
		ok = 0;
	if (!text)
		errno = ENOMEM;
	free(text);
	cJSON_Delete(json);
	return ok ? 0 : -1;
}

#endif
