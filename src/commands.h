/* SPDX-License-Identifier: GPL-2.0 */
#ifndef STITCH_COMMANDS_H
#define STITCH_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_stalls(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_latency(int argc, char **argv);
int cmd_agent(int argc, char **argv);

#endif /* STITCH_COMMANDS_H */
