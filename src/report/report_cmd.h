/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands' mains: src/main.c calls each with the rest of stitch's argv, the
 * command's own name as argv[0] (getopt's messages say it).
 */
#ifndef STITCH_REPORT_CMD_H
#define STITCH_REPORT_CMD_H

int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);

#endif /* STITCH_REPORT_CMD_H */
