/* SPDX-License-Identifier: GPL-2.0 */
/* stitch probe: where a line probe goes (its addresses, -L lines, -V variables). */
#ifndef STITCH_PROBE_CMD_H
#define STITCH_PROBE_CMD_H

int cmd_probe(int argc, char **argv);

#endif /* STITCH_PROBE_CMD_H */
