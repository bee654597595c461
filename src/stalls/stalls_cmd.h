/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command's main: src/main.c calls it with the rest of stitch's argv, the
 * command's own name as argv[0] (getopt's messages say it).
 */
#ifndef STITCH_STALLS_CMD_H
#define STITCH_STALLS_CMD_H

int cmd_stalls(int argc, char **argv);

#endif /* STITCH_STALLS_CMD_H */
