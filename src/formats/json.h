/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON strings for every JSON writer (speedscope, snapshot, latency):
 * names come from traced processes, so each is escaped and invalid UTF-8
 * becomes U+FFFD, and the file always parses.
 */
#ifndef STITCH_FORMATS_JSON_H
#define STITCH_FORMATS_JSON_H

#include <stdio.h>

/* Write str as a JSON string: escaped, < > & as \u escapes, bad UTF-8 as U+FFFD. */
void json_string(FILE *f, const char *str);

#endif /* STITCH_FORMATS_JSON_H */
